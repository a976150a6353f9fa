//===- TuningDatabase.h - What `tlc tune` measured, per shape ---*- C++ -*-===//
//
// A tuning database maps (kernel, target, arch, shape) to the parameter
// values that ran fastest there. `tlc tune` writes it (the runner of a tuning
// bundle prints it, see docs/tuning.md); `tlc --tuning=FILE` reads it and
// compiles one variant per distinct parameter set into a stub that picks a
// variant per call. The file is JSON, one entry per line, sorted, so that it
// is diffable and the same measurements give the same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TUNE_TUNINGDATABASE_H
#define TLC_TUNE_TUNINGDATABASE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tlc::tune {

/// The format tag of the files this tlc reads and writes.
inline constexpr const char *kDatabaseFormat = "tlc-tuning-1";

struct TuningEntry {
  std::string kernel;
  std::string target;
  std::string arch;
  /// Symbolic dimensions of the tuned call, in the file's order.
  std::vector<std::pair<std::string, int64_t>> shape;
  /// Parameter values as -D spells them ("64", "true", "0.5").
  std::vector<std::pair<std::string, std::string>> params;
  /// "for": the entry applies only to compiles whose parameters have these
  /// values (dtype parameters, as -D spells them: "bf16"); `tlc tune`
  /// records the kernel's dtype parameters here.
  std::vector<std::pair<std::string, std::string>> when;
  /// Median time of the chosen parameters and of the kernel's defaults, in
  /// microseconds (0: not measured).
  double timeUs = 0;
  double defaultTimeUs = 0;
  /// The number of candidates measured for this entry.
  int64_t candidates = 0;
  /// Where the entry was read: "db.json: entries[2]".
  std::string origin;
};

struct TuningDatabase {
  std::vector<TuningEntry> entries;
};

/// Parses `text`; `fileName` starts every error message, followed by the
/// line and column of a syntax error or the path of the offending value
/// (`entries[2].params.BM`).
llvm::Expected<TuningDatabase> parseTuningDatabase(llvm::StringRef text,
                                                   llvm::StringRef fileName);

/// Reads and parses the file at `path`.
llvm::Expected<TuningDatabase> readTuningDatabase(llvm::StringRef path);

/// What the stub of one tuned kernel holds: each distinct parameter set
/// once (in the order of first use) and one bucket per entry.
struct KernelVariants {
  using Params = std::vector<std::pair<std::string, std::string>>;
  struct Bucket {
    std::vector<std::pair<std::string, int64_t>> shape;
    unsigned variant = 0;
    std::string origin; // of the entry
  };
  std::vector<Params> variants;
  std::vector<Bucket> buckets;
  /// The files the entries came from, for messages ("a.json, b.json").
  std::string origin;
  /// No database: the fill heuristic's variants (LaunchHeuristic.h), picked
  /// per call by grid size; `buckets` is empty.
  bool fillHeuristic = false;
};

/// The tuned kernels of `db` for one target and arch, by kernel name. Two
/// entries for the same kernel and shape are an error.
llvm::Expected<std::map<std::string, KernelVariants>>
variantsFor(const TuningDatabase &db, llvm::StringRef target,
            llvm::StringRef arch);

} // namespace tlc::tune

#endif // TLC_TUNE_TUNINGDATABASE_H
