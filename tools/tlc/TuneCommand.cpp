//===- TuneCommand.cpp - tlc tune: measure a kernel's tune space ----------===//
//
// tlc tune FILE.tl -target=T --shape M=..,N=.. [--shape ...] [-o db.json]
//
// Checks the file, enumerates each tuned kernel's candidates (its defaults
// first), compiles every candidate in parallel as its own tlc process (kernel
// NAME__cI; results cached by content hash) and writes a tuning bundle: the
// candidates' stubs (and objects), runner.cpp (which includes
// tlc/Runtime/tlc_tune.h), the runtime headers, manifest.json and build.sh.
// On the CPU it then builds and runs the bundle here and writes the
// database; for GPU targets --prepare DIR leaves the bundle for the GPU
// machine, whose build.sh builds it with a C++ compiler and runs it there.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "tlc/Stub/StubEmitter.h"
#include "tlc/Target/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Threading.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

using namespace tlc;
using namespace tlc::driver;

namespace {

/// The runtime headers, embedded at build time (RuntimeHeaders.inc).
struct EmbeddedFile {
  const char *name;
  const char *text;
};
const EmbeddedFile kRuntimeHeaders[] = {
#include "RuntimeHeaders.inc"
};

struct TuneOptions {
  std::string input;
  std::string target = "cpu";
  std::string arch;
  std::vector<std::string> defines;
  std::vector<std::string> includeDirs;
  std::vector<std::string> kernels;
  std::vector<std::string> shapes;
  std::vector<std::string> values;
  std::string output;
  std::string prepare;
  std::string cacheDir;
  std::string saveTimes;
  std::string replayTimes;
  unsigned jobs = 0;
  double budgetMs = 20;
  bool list = false;
};

/// A symbolic dimension binding of one --shape.
using Shape = std::vector<std::pair<std::string, int64_t>>;

std::string quoteJSON(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += llvm::formatv("\\u{0:x-4}", unsigned(c)).str();
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// What a database entry is "for", as JSON members ("\"T\": \"bf16\",
/// \"D\": 128"): the kernel's dtype parameters, and the integer and bool
/// parameters the command line fixed with -D (a tuned parameter fixed so
/// has left the space): a compile with other values of them (D = 64
/// against entries measured at D = 128) must not take the entry.
std::string forJson(const KernelInfo &k,
                    const std::map<std::string, std::string> &defines) {
  std::string out;
  for (const auto &[name, value] : k.params) {
    std::string text;
    if (value.kind == ConstValue::DTypeVal)
      text = quoteJSON(dtypeName(value.dtype));
    else if ((value.kind == ConstValue::Int ||
              value.kind == ConstValue::Bool) &&
             defines.count(name))
      text = value.str();
    else
      continue;
    out += (out.empty() ? "" : ", ") + quoteJSON(name) + ": " + text;
  }
  return out;
}

/// A C++ string literal.
std::string quoteCxx(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20)
      continue;
    out += c;
  }
  return out + "\"";
}

bool writeText(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "tlc tune: error: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return false;
  }
  os << text;
  os.close();
  if (os.has_error()) {
    llvm::errs() << "tlc tune: error: cannot write '" << path << "'\n";
    os.clear_error();
    return false;
  }
  return true;
}

std::string readText(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

std::string join(llvm::StringRef dir, llvm::StringRef name) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  return p.str().str();
}

/// $TLC_CACHE_DIR, else $XDG_CACHE_HOME/tlc, else ~/.cache/tlc; then tune/.
std::string defaultCacheDir() {
  if (const char *dir = std::getenv("TLC_CACHE_DIR"); dir && *dir)
    return join(dir, "tune");
  if (const char *dir = std::getenv("XDG_CACHE_HOME"); dir && *dir)
    return join(join(dir, "tlc"), "tune");
  if (const char *home = std::getenv("HOME"); home && *home)
    return join(join(join(home, ".cache"), "tlc"), "tune");
  return join(".tlc-cache", "tune");
}

/// The C++ compiler that builds stubs and the runner: $CXX or c++.
std::string cxxCompiler() {
  const char *cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

/// One candidate of one kernel: its -D values and what became of it.
struct Candidate {
  std::string kernel;
  size_t index = 0; // 0: the defaults
  std::string label;
  std::string paramsJSON; // "\"BM\": 16, \"BN\": 64"
  std::vector<std::string> defines;
  std::string key;     // content hash: the cache entry
  std::string dir;     // the cache entry's directory
  std::string failure; // why it did not compile ("": it did)
  bool cached = false;
  std::string name() const { return kernel + "__c" + std::to_string(index); }
};

/// Runs `argv` and waits; "" on success, else the first error line of its
/// output (the whole output goes to `log`).
std::string run(const std::vector<std::string> &argv, const std::string &log) {
  std::string program = argv[0];
  if (!llvm::StringRef(program).contains('/')) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(program);
    if (!found)
      return "cannot find " + program + " on PATH";
    program = *found;
  }
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(log), llvm::StringRef(log)};
  std::string message;
  bool failed = false;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &message, &failed);
  if (failed)
    return "cannot run " + argv[0] + ": " + message;
  if (rc == 0)
    return "";
  std::string output = readText(log);
  llvm::SmallVector<llvm::StringRef, 16> lines;
  llvm::StringRef(output).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines)
    if (line.contains("error:"))
      return line.trim().str();
  return argv[0] + " exited with status " + std::to_string(rc);
}

class Tuner {
public:
  Tuner(const TuneOptions &opts, const char *tlcPath)
      : opts(opts), tlcPath(tlcPath) {}

  int run();

private:
  const TuneOptions &opts;
  std::string tlcPath;
  std::unique_ptr<Target> target;
  std::string archName;
  std::map<std::string, std::string> defines;
  std::vector<std::string> sourceFiles;
  std::vector<Shape> shapes;
  std::vector<Candidate> candidates;

  int fail(const std::string &message) {
    llvm::errs() << "tlc tune: error: " << message << "\n";
    return 1;
  }
  bool parseShapes();
  int listOrMeasure(const Sema &sema);
  std::string cacheKey(const Candidate &c) const;
  bool compileCandidates();
  std::string runnerSource(
      const std::vector<const KernelInfo *> &kernels,
      const std::map<std::string, std::vector<Shape>> &kernelShapes) const;
  std::string
  manifest(const std::map<std::string, std::vector<Shape>> &kernelShapes) const;
  std::string buildScript() const;
  bool
  writeBundle(const std::string &dir,
              const std::vector<const KernelInfo *> &kernels,
              const std::map<std::string, std::vector<Shape>> &kernelShapes);
};

bool Tuner::parseShapes() {
  for (const std::string &text : opts.shapes) {
    Shape shape;
    llvm::SmallVector<llvm::StringRef, 8> parts;
    llvm::StringRef(text).split(parts, ',', -1, false);
    for (llvm::StringRef part : parts) {
      auto [name, value] = part.split('=');
      int64_t size = 0;
      if (name.trim().empty() || value.trim().getAsInteger(10, size) ||
          size <= 0) {
        fail("--shape " + text +
             ": expected NAME=SIZE,... with positive sizes");
        return false;
      }
      shape.push_back({name.trim().str(), size});
    }
    if (shape.empty()) {
      fail("--shape needs NAME=SIZE,...");
      return false;
    }
    shapes.push_back(std::move(shape));
  }
  return true;
}

std::string Tuner::cacheKey(const Candidate &c) const {
  llvm::SHA256 hash;
  auto add = [&](llvm::StringRef s) {
    hash.update(s);
    hash.update(llvm::StringRef("\0", 1));
  };
  add("tlc-tune-cache-1");
  // The compiler itself: its path, size and modification time.
  add(tlcPath);
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(tlcPath, status)) {
    add(std::to_string(status.getSize()));
    add(std::to_string(
        status.getLastModificationTime().time_since_epoch().count()));
  }
  add(target->name());
  add(archName);
  for (const EmbeddedFile &f : kRuntimeHeaders)
    add(f.text); // the stub objects include them
  add(cxxCompiler());
  add(c.name());
  for (const std::string &d : c.defines)
    add(d);
  for (const std::string &dir : opts.includeDirs)
    add(dir);
  for (const std::string &file : sourceFiles) {
    add(file);
    add(readText(file));
  }
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true).substr(0, 32);
}

bool Tuner::compileCandidates() {
  std::string cacheDir =
      opts.cacheDir.empty() ? defaultCacheDir() : opts.cacheDir;
  for (Candidate &c : candidates) {
    c.key = cacheKey(c);
    c.dir = join(cacheDir, c.key);
    // Failures are tried again: they may come from the machine (a missing
    // compiler, a full disk) rather than from the candidate.
    c.cached = llvm::sys::fs::exists(join(c.dir, "ok"));
  }
  size_t toCompile =
      llvm::count_if(candidates, [](const Candidate &c) { return !c.cached; });
  llvm::errs() << "tlc tune: " << candidates.size() << " candidates, "
               << candidates.size() - toCompile << " cached, compiling "
               << toCompile << "\n";
  bool cpu = !target->stubsEmbedBinary();
  std::string stem = llvm::sys::path::stem(opts.input).str();
  // The runtime headers the CPU stub objects include.
  std::string runtimeInclude = join(cacheDir, "runtime");
  if (cpu) {
    std::string dir = join(join(runtimeInclude, "tlc"), "Runtime");
    llvm::sys::fs::create_directories(dir);
    for (const EmbeddedFile &f : kRuntimeHeaders)
      if (readText(join(dir, f.name)) != f.text &&
          !writeText(join(dir, f.name), f.text))
        return false;
  }
  std::atomic<size_t> next{0}, done{0};
  std::mutex printing;
  auto work = [&] {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      Candidate &c = candidates[i];
      if (c.cached)
        continue;
      std::error_code ec = llvm::sys::fs::create_directories(c.dir);
      std::string failure;
      if (ec)
        failure = "cannot create " + c.dir + ": " + ec.message();
      std::vector<std::string> argv = {tlcPath,
                                       opts.input,
                                       "--target=" + target->name().str(),
                                       "--only-kernel=" + c.kernel,
                                       "--kernel-suffix=__c" +
                                           std::to_string(c.index),
                                       "-o",
                                       c.dir + "/"};
      if (!opts.arch.empty())
        argv.push_back("--arch=" + opts.arch);
      for (const std::string &d : c.defines) {
        argv.push_back("-D");
        argv.push_back(d);
      }
      for (const std::string &dir : opts.includeDirs) {
        argv.push_back("-I");
        argv.push_back(dir);
      }
      if (failure.empty())
        failure = ::run(argv, join(c.dir, "tlc.log"));
      // CPU candidates: the stub's object too, so that building the runner
      // is only a link.
      if (failure.empty() && cpu) {
        failure = ::run({cxxCompiler(), "-std=c++17", "-O2", "-c",
                         "-I" + runtimeInclude, "-I" + c.dir,
                         join(c.dir, c.name() + ".cpp"), "-o",
                         join(c.dir, c.name() + ".stub.o")},
                        join(c.dir, "cxx.log"));
      }
      if (failure.empty() && cpu)
        llvm::sys::fs::rename(join(c.dir, stem + ".o"),
                              join(c.dir, c.name() + ".o"));
      c.failure = failure;
      if (failure.empty())
        writeText(join(c.dir, "ok"), "");
      size_t n = ++done;
      std::lock_guard<std::mutex> lock(printing);
      llvm::errs() << "tlc tune: [" << n << "/" << toCompile << "] " << c.kernel
                   << " " << c.label
                   << (failure.empty() ? "" : ": does not compile: " + failure)
                   << "\n";
    }
  };
  unsigned jobs =
      opts.jobs
          ? opts.jobs
          : llvm::heavyweight_hardware_concurrency().compute_thread_count();
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < std::max(1u, jobs); ++j)
    workers.emplace_back(work);
  for (std::thread &t : workers)
    t.join();
  return true;
}

std::string Tuner::runnerSource(
    const std::vector<const KernelInfo *> &kernels,
    const std::map<std::string, std::vector<Shape>> &kernelShapes) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "// Generated by tlc tune: measures the candidates of "
     << llvm::sys::path::filename(opts.input) << " (target " << target->name()
     << ", arch " << archName << "). Do not edit.\n";
  if (target->name() == "cuda")
    os << "#define TLC_TUNE_CUDA 1\n";
  os << "#include \"tlc/Runtime/tlc_tune.h\"\n\n";
  for (const Candidate &c : candidates)
    if (c.failure.empty())
      os << "#include \"" << c.name() << ".h\"\n";
  os << "\nnamespace {\n";
  std::map<std::string, double> scalarValues;
  for (const std::string &v : opts.values) {
    auto [name, value] = llvm::StringRef(v).split('=');
    double d = 0;
    if (!value.trim().getAsDouble(d))
      scalarValues[name.trim().str()] = d;
  }
  for (const KernelInfo *k : kernels) {
    const std::string &name = k->name;
    // Arguments.
    os << "const tlc::tune::ArgSpec args_" << name << "[] = {\n";
    for (const Symbol *arg : k->args) {
      const Type &t = arg->type;
      bool tensor = t.kind == TypeKind::Tensor;
      os << "    {" << quoteCxx(arg->name) << ", "
         << (tensor ? "true" : "false") << ", " << stub::dtypeCode(t.dtype)
         << ", " << (tensor ? t.shape.size() : 0) << ", {";
      if (tensor)
        for (size_t d = 0; d < t.shape.size(); ++d) {
          const Dim &dim = t.shape[d];
          std::optional<int64_t> fixed;
          if (dim.isStatic())
            fixed = dim.size;
          for (const SymDimInfo &sd : k->symDims)
            if (sd.name == dim.symbol && sd.staticValue)
              fixed = sd.staticValue;
          os << (d ? ", " : "");
          if (fixed)
            os << "{nullptr, " << *fixed << "}";
          else
            os << "{" << quoteCxx(dim.symbol) << ", 0}";
        }
      std::string access = "In";
      for (const ArgDecl &decl : k->decl->args)
        if (decl.name == arg->name)
          access = decl.qualifier == ArgQualifier::Out     ? "Out"
                   : decl.qualifier == ArgQualifier::InOut ? "InOut"
                                                           : "In";
      double scalar = tensor ? 0 : isFloat(t.dtype) ? 0.5 : 1;
      if (!tensor && scalarValues.count(arg->name))
        scalar = scalarValues[arg->name];
      char value[32];
      std::snprintf(value, sizeof value, "%.17g", scalar);
      os << "}, tlc::tune::Access::" << access << ", " << value << "},\n";
    }
    os << "};\n";
    // Candidates.
    os << "const tlc::tune::CandidateSpec candidates_" << name << "[] = {\n";
    for (const Candidate &c : candidates)
      if (c.kernel == name)
        os << "    {" << quoteCxx(c.label) << ", " << quoteCxx(c.paramsJSON)
           << ", " << (c.failure.empty() ? "nullptr" : quoteCxx(c.failure))
           << "},\n";
    os << "};\n";
    // The launch of each candidate.
    os << "tlc::Status run_" << name
       << "(int index, const tlc::TensorView *t, const double *s, const "
          "tlc::LaunchOptions &options) {\n  (void)t;\n  (void)s;\n"
          "  switch (index) {\n";
    for (const Candidate &c : candidates) {
      if (c.kernel != name || !c.failure.empty())
        continue;
      os << "  case " << c.index << ":\n    return tlc::kernels::" << c.name()
         << "(";
      unsigned ti = 0, si = 0;
      for (const Symbol *arg : k->args) {
        const Type &t = arg->type;
        bool tensor = t.kind == TypeKind::Tensor;
        if (tensor)
          os << "t[" << ti++ << "], ";
        else
          os << "static_cast<" << stub::elementCType(t.dtype).str() << ">(s["
             << si++ << "]), ";
      }
      os << "options);\n";
    }
    os << "  }\n  return tlc::Status{TLC_ERR_RUNTIME, \"no such candidate\"};"
          "\n}\n";
    // Shapes.
    const std::vector<Shape> &ks = kernelShapes.at(name);
    os << "const tlc::tune::ShapeSpec shapes_" << name << "[] = {\n";
    for (const Shape &shape : ks) {
      os << "    {" << shape.size() << ", {";
      for (size_t d = 0; d < shape.size(); ++d)
        os << (d ? ", " : "") << quoteCxx(shape[d].first);
      os << "}, {";
      for (size_t d = 0; d < shape.size(); ++d)
        os << (d ? ", " : "") << shape[d].second;
      os << "}},\n";
    }
    os << "};\n";
  }
  os << "} // namespace\n\nint main(int argc, char **argv) {\n"
     << "  tlc::tune::Runner runner(argc, argv);\n";
  for (const KernelInfo *k : kernels) {
    size_t n = llvm::count_if(
        candidates, [&](const Candidate &c) { return c.kernel == k->name; });
    os << "  runner.tune({" << quoteCxx(k->name) << ", "
       << quoteCxx(target->name()) << ", " << quoteCxx(archName) << ", args_"
       << k->name << ", " << k->args.size() << ", candidates_" << k->name
       << ", " << n << ", run_" << k->name << ", shapes_" << k->name << ", "
       << kernelShapes.at(k->name).size() << ", "
       << quoteCxx(forJson(*k, defines)) << "});\n";
  }
  os << "  return runner.finish();\n}\n";
  return s;
}

std::string Tuner::manifest(
    const std::map<std::string, std::vector<Shape>> &kernelShapes) const {
  std::string s = "{\n  \"format\": \"tlc-tuning-bundle-1\",\n";
  s += "  \"source\": " + quoteJSON(llvm::sys::path::filename(opts.input)) +
       ",\n  \"target\": " + quoteJSON(target->name()) +
       ",\n  \"arch\": " + quoteJSON(archName) + ",\n  \"kernels\": [";
  bool firstKernel = true;
  for (const auto &[kernel, ks] : kernelShapes) {
    s += std::string(firstKernel ? "" : ",") +
         "\n    {\"name\": " + quoteJSON(kernel) + ", \"shapes\": [";
    for (size_t i = 0; i < ks.size(); ++i) {
      s += std::string(i ? ", " : "") + "{";
      for (size_t d = 0; d < ks[i].size(); ++d)
        s += std::string(d ? ", " : "") + quoteJSON(ks[i][d].first) + ": " +
             std::to_string(ks[i][d].second);
      s += "}";
    }
    s += "], \"candidates\": [";
    bool first = true;
    for (const Candidate &c : candidates) {
      if (c.kernel != kernel)
        continue;
      s += std::string(first ? "" : ",") +
           "\n      {\"name\": " + quoteJSON(c.name()) + ", \"params\": {" +
           c.paramsJSON + "}";
      if (!c.failure.empty())
        s += ", \"failure\": " + quoteJSON(c.failure);
      s += "}";
      first = false;
    }
    s += "]}";
    firstKernel = false;
  }
  s += "\n  ]\n}\n";
  return s;
}

std::string Tuner::buildScript() const {
  bool cpu = !target->stubsEmbedBinary();
  std::string s =
      "#!/bin/sh\n"
      "# Generated by tlc tune: builds the runner and measures the "
      "candidates.\n"
      "# Usage: sh build.sh [--out db.json] [--budget-ms MS] [--threads N]\n"
      "set -e\ncd \"$(dirname \"$0\")\"\nCXX=${CXX:-c++}\n"
      "# Built once: a runner newer than all its inputs is run as it is.\n"
      "if [ ! -x runner ] || [ -n \"$(find runner.cpp kernels include "
      "-newer runner | head -n 1)\" ]; then\n";
  if (cpu) {
    s += "  $CXX -std=c++17 -O2 -pthread -Iinclude -Ikernels runner.cpp "
         "kernels/*.o -ldl -o runner\n";
  } else {
    // Each stub compiles on its own, as many at a time as there are CPUs.
    s += "  jobs=$(nproc 2>/dev/null || echo 4)\n"
         "  ls kernels/*.cpp | xargs -P \"$jobs\" -I{} sh -c "
         "'$0 -std=c++17 -O1 -c -Iinclude -Ikernels {} -o {}.o' \"$CXX\"\n"
         "  $CXX -std=c++17 -O2 -pthread -Iinclude -Ikernels runner.cpp "
         "kernels/*.cpp.o -ldl -o runner\n";
  }
  s += "fi\nexec ./runner \"$@\"\n";
  return s;
}

/// Writes `text` to `path` unless the file already holds it, so that an
/// unchanged bundle keeps its modification times and build.sh relinks
/// nothing.
bool writeIfChanged(const std::string &path, llvm::StringRef text) {
  if (llvm::sys::fs::exists(path) && readText(path) == text)
    return true;
  return writeText(path, text);
}

bool copyIfChanged(const std::string &from, const std::string &to) {
  auto source = llvm::MemoryBuffer::getFile(from, /*IsText=*/false);
  if (!source) {
    llvm::errs() << "tlc tune: error: cannot read " << from << ": "
                 << source.getError().message() << "\n";
    return false;
  }
  auto existing = llvm::MemoryBuffer::getFile(to, /*IsText=*/false);
  if (existing && (*existing)->getBuffer() == (*source)->getBuffer())
    return true;
  return writeText(to, (*source)->getBuffer());
}

bool Tuner::writeBundle(
    const std::string &dir, const std::vector<const KernelInfo *> &kernels,
    const std::map<std::string, std::vector<Shape>> &kernelShapes) {
  bool cpu = !target->stubsEmbedBinary();
  std::string kernelsDir = join(dir, "kernels");
  std::string runtimeDir = join(join(join(dir, "include"), "tlc"), "Runtime");
  for (const std::string &d : {kernelsDir, runtimeDir})
    if (std::error_code ec = llvm::sys::fs::create_directories(d)) {
      fail("cannot create " + d + ": " + ec.message());
      return false;
    }
  std::set<std::string> wanted;
  for (const Candidate &c : candidates) {
    if (!c.failure.empty())
      continue;
    std::vector<std::string> files = {c.name() + ".h", c.name() + ".cpp"};
    if (cpu) {
      files.push_back(c.name() + ".o");
      files.push_back(c.name() + ".stub.o");
    }
    for (const std::string &f : files) {
      wanted.insert(f);
      if (!copyIfChanged(join(c.dir, f), join(kernelsDir, f)))
        return false;
    }
  }
  // A previous bundle's candidates must not be linked in.
  std::error_code ec;
  std::vector<std::string> stale;
  for (llvm::sys::fs::directory_iterator it(kernelsDir, ec), end;
       it != end && !ec; it.increment(ec))
    if (!wanted.count(llvm::sys::path::filename(it->path()).str()))
      stale.push_back(it->path());
  for (const std::string &path : stale)
    llvm::sys::fs::remove(path);
  for (const EmbeddedFile &f : kRuntimeHeaders)
    if (!writeIfChanged(join(runtimeDir, f.name), f.text))
      return false;
  return writeIfChanged(join(dir, "runner.cpp"),
                        runnerSource(kernels, kernelShapes)) &&
         writeIfChanged(join(dir, "manifest.json"), manifest(kernelShapes)) &&
         writeIfChanged(join(dir, "build.sh"), buildScript());
}

int Tuner::listOrMeasure(const Sema &sema) {
  std::vector<const KernelInfo *> tuned;
  for (const KernelInfo &k : sema.kernels()) {
    if (k.decl->tune.empty())
      continue;
    tuned.push_back(&k);
    std::string axes;
    for (const std::string &axis : k.tuneAxes)
      axes += (axes.empty() ? "" : ", ") + axis;
    llvm::outs() << k.name << ": " << k.tunePoints.size() << " candidates"
                 << (axes.empty() ? "" : " over " + axes);
    if (k.tuneExcluded)
      llvm::outs() << " (" << k.tuneExcluded << " excluded by the constraint)";
    llvm::outs() << "\n";
    if (opts.list)
      for (const TunePoint &point : k.tunePoints) {
        llvm::outs() << " ";
        for (const auto &[name, value] : point)
          llvm::outs() << " " << name << "=" << value.str();
        llvm::outs() << "\n";
      }
  }
  llvm::outs().flush(); // before any error, in order
  for (const KernelInfo *k : tuned)
    if (k->tunePoints.empty())
      return fail("the tune constraint of '" + k->name +
                  "' admits none of "
                  "the " +
                  std::to_string(k->tuneExcluded) + " points of its space on " +
                  target->name().str() + " " + archName);
  if (tuned.empty())
    return fail("no kernel in " + opts.input +
                " has a tune clause (docs/tuning.md)");
  if (opts.list)
    return 0;

  // The shapes of each kernel: those that bind all its free dimensions.
  if (shapes.empty())
    return fail("no shape to measure at; give --shape NAME=SIZE,... (the "
                "kernel's symbolic dimensions)");
  std::map<std::string, std::vector<Shape>> kernelShapes;
  for (const KernelInfo *k : tuned) {
    for (const Shape &shape : shapes) {
      bool binds = llvm::all_of(k->symDims, [&](const SymDimInfo &d) {
        return d.staticValue || llvm::any_of(shape, [&](const auto &b) {
                 return b.first == d.name;
               });
      });
      if (!binds)
        continue;
      // Only the kernel's dimensions go into its entries.
      Shape own;
      for (const auto &b : shape)
        if (llvm::any_of(k->symDims, [&](const SymDimInfo &d) {
              return d.name == b.first && !d.staticValue;
            }))
          own.push_back(b);
      kernelShapes[k->name].push_back(own);
    }
    if (kernelShapes[k->name].empty()) {
      std::string dims;
      for (const SymDimInfo &d : k->symDims)
        if (!d.staticValue)
          dims += (dims.empty() ? "" : ", ") + d.name;
      return fail("no --shape gives every dimension of kernel '" + k->name +
                  "' (" + dims + ")");
    }
  }

  // The candidates: the defaults, then every point of the space.
  std::vector<std::string> baseDefines;
  for (const auto &[name, value] : defines)
    baseDefines.push_back(name + "=" + value);
  for (const KernelInfo *k : tuned) {
    Candidate defaults;
    defaults.kernel = k->name;
    defaults.label = "defaults";
    defaults.defines = baseDefines;
    for (const std::string &axis : k->tuneAxes)
      for (const auto &[name, value] : k->params)
        if (name == axis)
          defaults.paramsJSON += (defaults.paramsJSON.empty() ? "" : ", ") +
                                 quoteJSON(name) + ": " + value.str();
    candidates.push_back(defaults);
    for (size_t p = 0; p < k->tunePoints.size(); ++p) {
      Candidate c;
      c.kernel = k->name;
      c.index = p + 1;
      c.defines = baseDefines;
      for (const auto &[name, value] : k->tunePoints[p]) {
        c.label += (c.label.empty() ? "" : ", ") + name + "=" + value.str();
        c.paramsJSON += (c.paramsJSON.empty() ? "" : ", ") + quoteJSON(name) +
                        ": " + value.str();
        c.defines.push_back(name + "=" + value.str());
      }
      candidates.push_back(c);
    }
  }
  auto start = std::chrono::steady_clock::now();
  if (!compileCandidates())
    return 1;
  for (const Candidate &c : candidates)
    if (c.index == 0 && !c.failure.empty())
      return fail("the defaults of '" + c.kernel +
                  "' do not compile: " + c.failure);

  bool cpu = !target->stubsEmbedBinary();
  std::string bundle = opts.prepare;
  if (bundle.empty()) {
    if (!cpu)
      return fail("target " + target->name().str() +
                  " runs on a GPU: give --prepare DIR, copy DIR to the GPU "
                  "machine and run 'sh DIR/build.sh --out db.json' there");
    bundle = join(opts.cacheDir.empty() ? defaultCacheDir() : opts.cacheDir,
                  "bundle-" + llvm::sys::path::stem(opts.input).str());
  }
  if (!writeBundle(bundle, tuned, kernelShapes))
    return 1;
  double compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  llvm::errs() << llvm::formatv("tlc tune: candidates ready in {0:f1} s\n",
                                compileSeconds);
  if (!opts.prepare.empty()) {
    llvm::errs() << "tlc tune: wrote the bundle " << bundle
                 << "; on the GPU machine run: sh " << bundle
                 << "/build.sh --out db.json\n";
    return 0;
  }
  // CPU: build and run the bundle here.
  std::string output =
      opts.output.empty()
          ? llvm::sys::path::stem(opts.input).str() + ".tuning.json"
          : opts.output;
  llvm::SmallString<256> absolute(output);
  llvm::sys::fs::make_absolute(absolute);
  std::vector<std::string> argv = {
      "/bin/sh",     join(bundle, "build.sh"),
      "--out",       absolute.str().str(),
      "--budget-ms", llvm::formatv("{0}", opts.budgetMs).str()};
  for (auto [flag, file] : {std::pair{"--save-times", &opts.saveTimes},
                            std::pair{"--replay-times", &opts.replayTimes}}) {
    if (file->empty())
      continue;
    llvm::SmallString<256> path(*file);
    llvm::sys::fs::make_absolute(path);
    argv.push_back(flag);
    argv.push_back(path.str().str());
  }
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(argv[0], args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return fail("the runner failed" + (message.empty() ? "" : ": " + message));
  return 0;
}

int Tuner::run() {
  std::string known;
  target = createTarget(opts.target, known);
  if (!target)
    return fail("unknown target '" + opts.target + "'; available: " + known);
  if (llvm::Error err =
          target->setArch(opts.arch.empty() ? target->defaultArch()
                                            : llvm::StringRef(opts.arch)))
    return fail(llvm::toString(std::move(err)));
  archName = tuningArch(target->defaultArch(), opts.arch);
  if (std::optional<std::string> bad = parseDefines(opts.defines, defines))
    return fail("-D expects NAME=VALUE, got '" + *bad + "'");
  if (!parseShapes())
    return 1;
  llvm::SourceMgr srcMgr;
  DiagnosticEngine diags(srcMgr);
  Program program;
  ProgramLoader loader(diags, srcMgr, opts.includeDirs);
  if (!loader.load(opts.input, program) || diags.hasErrors())
    return 1;
  for (const std::string &f : loader.files())
    sourceFiles.push_back(f);
  Sema sema(diags, defines, builtinConstants(target->languageConstants()));
  KernelSelection selection;
  selection.only.insert(opts.kernels.begin(), opts.kernels.end());
  sema.select(selection);
  if (!sema.check(program))
    return 1;
  for (const std::string &name : opts.kernels)
    if (!llvm::any_of(sema.kernels(),
                      [&](const KernelInfo &k) { return k.name == name; }))
      return fail("no kernel '" + name + "' in " + opts.input);
  return listOrMeasure(sema);
}

} // namespace

int tlc::driver::tuneMain(int argc, char **argv, const char *tlcPath) {
  TuneOptions opts;
  CLI::App app{"tlc tune: measure the candidates of a kernel's tune space "
               "and write a tuning database (docs/tuning.md).",
               "tlc tune"};
  app.add_option("input", opts.input, "The .tl source file")->required();
  app.add_option("--target", opts.target, "Code generation target")
      ->capture_default_str();
  app.add_option("--arch", opts.arch, "Target architecture");
  app.add_option("-D", opts.defines,
                 "Fix a parameter or dimension (a tuned parameter fixed "
                 "this way leaves the space)");
  app.add_option("-I", opts.includeDirs, "Add a directory to the import path");
  app.add_option("--kernel", opts.kernels,
                 "Tune only this kernel (repeatable; default: every kernel "
                 "with a tune clause)");
  app.add_option("--shape", opts.shapes,
                 "A shape to measure at: NAME=SIZE,... over the symbolic "
                 "dimensions (repeatable; each kernel uses those that give "
                 "all its dimensions)");
  app.add_option("--value", opts.values,
                 "The value of a scalar argument: NAME=V (default 0.5 for "
                 "floats, 1 for integers)");
  app.add_option("-o", opts.output,
                 "The database to write (CPU; default STEM.tuning.json)");
  app.add_option("--prepare", opts.prepare,
                 "Write the tuning bundle to this directory and stop (GPU "
                 "targets: run DIR/build.sh on the GPU machine)");
  app.add_option("--cache-dir", opts.cacheDir,
                 "Where compiled candidates are kept (default "
                 "$TLC_CACHE_DIR/tune or ~/.cache/tlc/tune)");
  app.add_option("-j,--jobs", opts.jobs,
                 "Candidates compiled at once (default: one per core)");
  app.add_option("--budget-ms", opts.budgetMs,
                 "Timing per candidate and shape, in milliseconds")
      ->capture_default_str();
  app.add_option("--save-times", opts.saveTimes,
                 "CPU: also write every time measured to this file");
  app.add_option("--replay-times", opts.replayTimes,
                 "CPU: take the times from a --save-times file instead of "
                 "measuring (the candidates still run and are checked)");
  app.add_flag("--list", opts.list, "Print every candidate and stop");
  std::vector<std::string> args = normalizeArgs(argc, argv);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    llvm::errs() << "tlc tune: error: " << e.what()
                 << "\nRun 'tlc tune --help' for the options.\n";
    return 1;
  }
  return Tuner(opts, tlcPath).run();
}
