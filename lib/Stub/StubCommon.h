//===- StubCommon.h - Target-neutral parts of stub emitters ---*- C++ -*-===//
//
// What every launch stub shares, whatever runs the kernel: C/C++ names for
// the kernel's arguments (renaming keywords and clashes), the C++ and C API
// declarations of NAME.h, the argument checks (dtypes, ranks, strides,
// alignment), the binding of symbolic dimensions from the shapes, the grid
// printed as C++ and the C entry point that wraps the C++ one. A target's
// emitter (StubEmitter.cpp for the CPU, GpuStubEmitter.cpp for CUDA and ROCm)
// adds how the blocks run.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_STUB_STUBCOMMON_H
#define TLC_LIB_STUB_STUBCOMMON_H

#include "tlc/Stub/KernelSignature.h"
#include "tlc/Stub/StubEmitter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tlc::stub {

/// C and C++ keywords and names the generated code relies on.
bool isReservedName(llvm::StringRef name);

/// Gives every user name a C/C++ identifier that is not a keyword, does not
/// start with the `tlc_` prefix of generated locals and is unique.
class NameTable {
public:
  std::string add(llvm::StringRef name);

private:
  llvm::StringSet<> used;
};

/// The parts of a launch stub that do not depend on the target. Target
/// emitters derive from it and write the rest.
class StubBuilder {
public:
  StubBuilder(const KernelSignature &k, const StubPlacement &placement);
  virtual ~StubBuilder() = default;

  /// The header (shared layout, the target's ABI comment) and the source.
  StubFiles emit();

  /// What differs per target.
  virtual llvm::StringRef targetName() const = 0;
  virtual std::string abiComment() const = 0;
  virtual void emitSource(std::string &out) = 0;
  /// C++ expression: how many units (multiprocessors, worker threads) the
  /// call's machine has, for the fill heuristic; <= 0 when unknown.
  virtual std::string fillUnits() const = 0;
  /// Blocks of fill variant `v` that fill one unit; 0: the runtime's
  /// default (kFillBlocksPerUnit).
  virtual int64_t fillBlocksPerUnit(size_t v) const { return 0; }

protected:
  const KernelSignature &k;
  const StubPlacement &placement;
  /// The C++ function name (in tlc::kernels).
  std::string fnName;
  NameTable names;
  /// C/C++ parameter name of every argument.
  std::vector<std::string> argNames;
  /// Local variable of every symbolic dimension.
  std::map<std::string, std::string> dimVars;
  std::string gridError; // set when a grid expression cannot be printed

  bool isTensor(unsigned i) const { return k.args[i].isTensor(); }
  /// The C++ name of argument `i` as the kernel gets it (after
  /// emitArgumentChecks): a packed u4/i4 tensor as its bytes.
  std::string launchName(unsigned i) const {
    return isTensor(i) && isPacked(k.args[i].type.dtype)
               ? "tlc_bytes_" + argNames[i]
               : argNames[i];
  }
  bool hasTensors() const;
  ArgAccess access(unsigned i) const { return k.args[i].access; }

  /// The C++ parameters of the kernel, without the launch options.
  std::string cxxParams() const;
  /// The C parameters, the options and error buffer included.
  std::string cParams() const;
  /// "X: f32[M, N], Y (out): f32[M, N]" (fixed dimensions as "K=64").
  std::string argSummary() const;
  /// A C name of the kernel that would clash with a runtime name.
  bool cNameClashes() const;

  /// Writes NAME.h: the generation note (with the target name and
  /// parameters), `abiComment` (comment lines describing the launch ABI), the
  /// runtime include and the C++/C declarations.
  void emitHeader(llvm::raw_ostream &os, llvm::StringRef target,
                  llvm::StringRef abiComment) const;

  /// The C++ entry point: `tlc::Status tlc::kernels::NAME(...) { try { BODY }
  /// catch ... }`; `body` writes the statements inside the try.
  void emitCxxEntry(llvm::raw_ostream &os,
                    const std::function<void(llvm::raw_ostream &)> &body) const;

  /// The C entry point `int tlc_NAME(...)`, which calls the C++ one.
  void emitCEntry(llvm::raw_ostream &os) const;

  /// Statements that check every tensor argument, bind the symbolic
  /// dimensions (checking every other use) and check the fixed dimensions;
  /// each returns the failure status.
  void emitArgumentChecks(llvm::raw_ostream &os);
  /// Opens a `{` block that defines `const int64_t NAME = value;` (a host
  /// expression), returning an error that names `what` when it divides
  /// by zero.
  void emitHostValue(llvm::raw_ostream &os, llvm::StringRef name,
                     const std::string &value, const std::string &what);

  /// Statements that compute `tlc_gx`, `tlc_gy`, `tlc_gz` (int64_t) and
  /// return an empty status for an empty grid (an error when the grid divides
  /// by zero). Emits an #error when the grid cannot be computed on the host.
  void emitGrid(llvm::raw_ostream &os);

  /// The start of a source: the generation note and the header include
  /// (none for a variant).
  void emitSourcePrologue(llvm::raw_ostream &os) const;

  /// For the stub of a tuned kernel: the variants' text, then the C++ and C
  /// entry points of NAME, which pick the variant of the nearest bucket.
  void emitDispatchSource(llvm::raw_ostream &os);

  /// The parts of a dispatching entry: the labels of the variants; the
  /// trace and the call of variant `tlc_variant`; the entry of a kernel
  /// under the fill heuristic (variants picked by grid size).
  void emitVariantLabels(llvm::raw_ostream &os) const;
  void emitVariantCall(llvm::raw_ostream &os, const char *shapeArray) const;
  void emitFillDispatch(llvm::raw_ostream &os);

  /// `"NAME"` as a C string literal.
  std::string quotedName() const { return "\"" + k.name + "\""; }

  /// What the stub launches, in the generation note: "kernel" or
  /// "operation".
  std::string entity = "kernel";

  /// A host expression (grid extents, scratch sizes, scalar arguments);
  /// the first that cannot be computed sets gridError.
  std::string print(const GridExpr &e);

private:
  std::string staticDimText(unsigned arg, unsigned dim, int64_t size) const;

  // Grid expressions.
  void unsupported(llvm::StringRef what);
  std::string printConst(const ConstValue &c, HostKind kind);
  std::string printBinary(const GridExpr &e);
  std::string printCast(const GridExpr &e);
  std::string printCall(const GridExpr &e);
};

/// A GPU stub that embeds the device binary as an array (or refers to the
/// one a kernel before it in the same bundle embedded) and launches through
/// a runtime header.
class EmbeddedBinaryStub : public StubBuilder {
public:
  using StubBuilder::StubBuilder;
  void emitSource(std::string &out) override;

protected:
  /// The runtime header the source includes ("tlc/Runtime/tlc_cuda.h").
  virtual llvm::StringRef runtimeHeader() const = 0;
  /// The array that holds the device binary and its size in bytes.
  virtual void emitBinary(llvm::raw_ostream &os) const = 0;
  /// The statements of the C++ entry point: checks, grid, launch.
  virtual void emitBody(llvm::raw_ostream &os) = 0;

  /// The names of the binary's array and of its size.
  std::string binaryVar() const;
  std::string binarySizeVar() const;
};

} // namespace tlc::stub

#endif // TLC_LIB_STUB_STUBCOMMON_H
