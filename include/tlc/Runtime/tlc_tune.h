/*===- tlc_tune.h - The runner of a tuning bundle ------------------------===//
 *
 * `tlc tune` writes a runner.cpp that describes each tuned kernel (its
 * arguments, its candidates and the shapes to measure) and includes this
 * header, which does the measuring: for every shape it fills the inputs with
 * deterministic random data, runs the kernel's defaults as the reference,
 * runs every candidate, checks its outputs against the reference, times the
 * ones that agree and prints the tuning database (docs/tuning.md) with the
 * fastest candidate per shape. Define TLC_TUNE_CUDA before including it to
 * measure on a CUDA device (memory through tlc_cuda.h's driver loader);
 * otherwise the kernels run on the host.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TLC_RUNTIME_TLC_TUNE_H
#define TLC_RUNTIME_TLC_TUNE_H

#include "tlc/Runtime/tlc_runtime.h"

#ifdef TLC_TUNE_CUDA
#include "tlc/Runtime/tlc_cuda.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace tlc {
namespace tune {

/// A dimension of an argument: the symbolic dimension `name`, or `size`.
struct DimSpec {
  const char *name;
  int64_t size;
};

enum class Access { In, Out, InOut };

struct ArgSpec {
  const char *name;
  bool tensor;
  int32_t dtype; // a tlc_dtype
  int rank;
  DimSpec dims[TLC_MAX_RANK];
  Access access;
  double scalar; // the value of a scalar argument
};

struct CandidateSpec {
  /// "BM=16, BN=64" (the defaults: "defaults").
  const char *label;
  /// The tuned parameters as JSON members: "\"BM\": 16, \"BN\": 64".
  const char *params;
  /// Why the candidate did not compile (nullptr: it did).
  const char *failure;
};

struct ShapeSpec {
  int numDims;
  const char *names[TLC_MAX_RANK * 4];
  int64_t sizes[TLC_MAX_RANK * 4];
};

/// Runs candidate `index` (0: the defaults) on `tensors` (the tensor
/// arguments, in order) and `scalars` (the scalar ones).
using RunFn = Status (*)(int index, const TensorView *tensors,
                         const double *scalars, const LaunchOptions &options);

struct KernelSpec {
  const char *name;
  const char *target;
  const char *arch;
  const ArgSpec *args;
  int numArgs;
  const CandidateSpec *candidates; // [0] is the defaults
  int numCandidates;
  RunFn run;
  const ShapeSpec *shapes;
  int numShapes;
  /// The entries' "for" as JSON members ("\"T\": \"bf16\", \"D\": 128"):
  /// the dtype parameters and those fixed with -D, since a tuning for one
  /// dtype or head size says little about another. Empty: none.
  const char *forValues = "";
};

//===--- Devices ----------------------------------------------------------===//

#ifdef TLC_TUNE_CUDA
/// CUDA device memory in the current (or device 0's primary) context.
struct Device {
  std::string error;
  Device() {
    const cuda::Driver &d = cuda::driver();
    if (!d.error.empty()) {
      error = d.error;
      return;
    }
    if (!d.cuMemAlloc || !d.cuMemFree || !d.cuMemcpyHtoD || !d.cuMemcpyDtoH ||
        !d.cuCtxSynchronize) {
      error = "libcuda.so.1 lacks the memory functions";
      return;
    }
    cuda::CUcontext ctx;
    Status st = cuda::currentContext("tune", ctx);
    if (!st.ok())
      error = st.message;
  }
  void *alloc(size_t bytes) {
    cuda::CUdeviceptr p = 0;
    check(cuda::driver().cuMemAlloc(&p, std::max<size_t>(bytes, 1)),
          "cuMemAlloc");
    return reinterpret_cast<void *>(p);
  }
  void release(void *p) {
    cuda::driver().cuMemFree(reinterpret_cast<cuda::CUdeviceptr>(p));
  }
  void upload(void *dst, const void *src, size_t bytes) {
    check(cuda::driver().cuMemcpyHtoD(reinterpret_cast<cuda::CUdeviceptr>(dst),
                                      src, bytes),
          "cuMemcpyHtoD");
  }
  void download(void *dst, const void *src, size_t bytes) {
    check(cuda::driver().cuMemcpyDtoH(
              dst, reinterpret_cast<cuda::CUdeviceptr>(src), bytes),
          "cuMemcpyDtoH");
  }
  void sync() { check(cuda::driver().cuCtxSynchronize(), "cuCtxSynchronize"); }
  void check(cuda::CUresult r, const char *what) {
    if (r != cuda::CUDA_SUCCESS) {
      std::fprintf(stderr, "tune: error: %s failed: %s\n", what,
                   cuda::driver().describe(r).c_str());
      std::exit(2);
    }
  }
};
#else
/// Host memory: the kernels run on the CPU.
struct Device {
  std::string error;
  void *alloc(size_t bytes) {
    // 64-byte aligned, as any dtype and vector loads want.
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, rounded);
    if (!p) {
      std::fprintf(stderr, "tune: error: out of memory (%zu bytes)\n", bytes);
      std::exit(2);
    }
    return p;
  }
  void release(void *p) { std::free(p); }
  void upload(void *dst, const void *src, size_t bytes) {
    std::memcpy(dst, src, bytes);
  }
  void download(void *dst, const void *src, size_t bytes) {
    std::memcpy(dst, src, bytes);
  }
  void sync() {}
};
#endif

//===--- Data -------------------------------------------------------------===//

inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exponent = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (exponent <= 0) // the inputs are in [-1, 1): flush tiny ones to 0
    return uint16_t(sign);
  if (exponent >= 31)
    return uint16_t(sign | 0x7c00);
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return uint16_t(half);
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t x;
  if (exponent == 0) {
    float f = std::ldexp(float(mantissa), -24);
    return sign ? -f : f;
  }
  if (exponent == 31)
    x = sign | 0x7f800000 | (mantissa << 13);
  else
    x = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline uint16_t floatToBF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fff + ((x >> 16) & 1); // round to nearest even
  return uint16_t(x >> 16);
}

inline float bf16ToFloat(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// The OCP 8-bit floats: E4M3 (bias 7, no infinities) when `e5m2` is
/// false, E5M2 (bias 15) when it is true.
inline float f8ToFloat(uint8_t c, bool e5m2) {
  int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int exponent = (c & 0x7f) >> m, q = c & ((1 << m) - 1);
  float sign = (c & 0x80) ? -1.0f : 1.0f;
  if (!e5m2 && (c & 0x7f) == 0x7f)
    return std::nanf("");
  if (e5m2 && exponent == 31)
    return q ? std::nanf("") : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(float(q), 1 - bias - m);
  return sign * std::ldexp(float(q + (1 << m)), exponent - bias - m);
}

/// `f` to nearest even, saturating to the largest finite value, as tlc's
/// conversions do.
inline uint8_t floatToF8(float f, bool e5m2) {
  int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int maxCode = e5m2 ? 0x7b : 0x7e;
  if (std::isnan(f))
    return 0x7f;
  uint8_t sign = std::signbit(f) ? 0x80 : 0;
  float a = std::fabs(f);
  if (std::isinf(a))
    return uint8_t(sign | maxCode);
  // a = q * 2^(e - m) with q rounded to an integer: a subnormal's code is
  // q, a normal's q plus its exponent field (q's leading one bumps it).
  int e = a == 0 ? 1 - bias : std::max(std::ilogb(a), 1 - bias);
  double q = std::nearbyint(std::ldexp(double(a), m - e));
  double code = q + double((e - 1 + bias) << m);
  return uint8_t(sign | int(std::min(code, double(maxCode))));
}

/// Element `i` of a host buffer of `dtype`, as a double.
inline double load(const void *data, int32_t dtype, size_t i) {
  switch (dtype) {
  case TLC_F64:
    return static_cast<const double *>(data)[i];
  case TLC_F32:
    return static_cast<const float *>(data)[i];
  case TLC_F16:
    return halfToFloat(static_cast<const uint16_t *>(data)[i]);
  case TLC_BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(data)[i]);
  case TLC_I64:
    return double(static_cast<const int64_t *>(data)[i]);
  case TLC_I32:
    return static_cast<const int32_t *>(data)[i];
  case TLC_I16:
    return static_cast<const int16_t *>(data)[i];
  case TLC_I8:
    return static_cast<const int8_t *>(data)[i];
  case TLC_F8E4M3:
  case TLC_F8E5M2:
    return f8ToFloat(static_cast<const uint8_t *>(data)[i],
                     dtype == TLC_F8E5M2);
  default:
    return static_cast<const uint8_t *>(data)[i];
  }
}

/// Fills a host buffer with values from `seed`: floats uniform in [-1, 1),
/// integers in [0, 4), bools 0 or 1.
inline void fillRandom(void *data, int32_t dtype, size_t n, uint64_t seed) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t bits = uint32_t(state >> 40); // 24 bits
    float u = float(bits) / float(1 << 24) * 2.0f - 1.0f;
    switch (dtype) {
    case TLC_F64:
      static_cast<double *>(data)[i] = u;
      break;
    case TLC_F32:
      static_cast<float *>(data)[i] = u;
      break;
    case TLC_F16:
      static_cast<uint16_t *>(data)[i] = floatToHalf(u);
      break;
    case TLC_BF16:
      static_cast<uint16_t *>(data)[i] = floatToBF16(u);
      break;
    case TLC_I64:
      static_cast<int64_t *>(data)[i] = bits & 3;
      break;
    case TLC_I32:
      static_cast<int32_t *>(data)[i] = bits & 3;
      break;
    case TLC_I16:
      static_cast<int16_t *>(data)[i] = int16_t(bits & 3);
      break;
    case TLC_I8:
      static_cast<int8_t *>(data)[i] = int8_t(bits & 3);
      break;
    case TLC_BOOL:
      static_cast<uint8_t *>(data)[i] = bits & 1;
      break;
    case TLC_F8E4M3:
    case TLC_F8E5M2:
      static_cast<uint8_t *>(data)[i] = floatToF8(u, dtype == TLC_F8E5M2);
      break;
    default:
      static_cast<uint8_t *>(data)[i] = uint8_t(bits & 3);
    }
  }
}

/// How far a candidate's output may be from the reference, relative to the
/// reference's largest magnitude: the candidates sum in other orders.
inline double tolerance(int32_t dtype) {
  switch (dtype) {
  case TLC_F64:
  case TLC_F32:
    return 1e-3;
  case TLC_F16:
  case TLC_BF16:
    return 3e-2;
  case TLC_F8E4M3:
  case TLC_F8E5M2:
    return 0.075; // one unit of the last place at the top of the range
  default:
    return 0; // integers and bools must agree exactly
  }
}

//===--- Measuring --------------------------------------------------------===//

/// Microseconds per call of `call` (launches that `device.sync()` waits
/// for): the median of five batches, each at least a fifth of `budgetMs`.
template <typename Call>
double microsecondsPerCall(Call &&call, Device &device, double budgetMs) {
  using clock = std::chrono::steady_clock;
  double batchSeconds = budgetMs * 1e-3 / 5;
  int64_t reps = 1;
  std::vector<double> perCall;
  while (perCall.size() < 5) {
    auto start = clock::now();
    for (int64_t r = 0; r < reps; ++r)
      call();
    device.sync();
    double seconds =
        std::chrono::duration<double>(clock::now() - start).count();
    if (seconds < batchSeconds && reps < (int64_t(1) << 20)) {
      reps *= 2;
      continue;
    }
    perCall.push_back(seconds / double(reps) * 1e6);
  }
  std::sort(perCall.begin(), perCall.end());
  return perCall[2];
}

struct Options {
  const char *out = nullptr;         // the database; stdout without --out
  const char *saveTimes = nullptr;   // --save-times: every time measured
  const char *replayTimes = nullptr; // --replay-times: times to use instead
  double budgetMs = 20;              // timing per candidate and shape
  int numThreads = 0;                // LaunchOptions::num_threads (CPU)
  int verbose = 1;
};

/// Timed calls rotate over copies of the arguments, up to this many bytes
/// in all and at most kMaxTimingSets copies, so that shapes of a few MiB
/// and more cannot stay in the caches: each call reads its inputs from
/// memory, as the harness measures (L2 flushed) and as an application's
/// large tensors do, not the lines the previous call left in the L2 (which
/// made bandwidth-bound kernels at such shapes look faster than they are,
/// and ranked their variants by cache bandwidth). At most 8 copies: the
/// CUDA stubs keep the tensor maps of 8 tensors per argument, so a TMA
/// kernel encodes none while timed.
constexpr size_t kColdBytes = size_t(256) << 20;
constexpr size_t kMaxTimingSets = 8;

struct Buffer {
  size_t elements = 0, bytes = 0;
  std::vector<unsigned char> initial; // host copy of the starting contents
  std::vector<unsigned char> result;  // host copy after a run
  void *device = nullptr;
};

class Runner {
public:
  Runner(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&](const char *flag) -> const char * {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "tune: error: %s needs a value\n", flag);
          std::exit(1);
        }
        return argv[++i];
      };
      if (a == "--out")
        options.out = value("--out");
      else if (a == "--budget-ms")
        options.budgetMs = std::atof(value("--budget-ms"));
      else if (a == "--threads")
        options.numThreads = std::atoi(value("--threads"));
      else if (a == "--save-times")
        options.saveTimes = value("--save-times");
      else if (a == "--replay-times")
        options.replayTimes = value("--replay-times");
      else if (a == "--quiet")
        options.verbose = 0;
      else {
        std::fprintf(stderr,
                     "tune: error: unknown option '%s' (--out FILE, "
                     "--budget-ms MS, --threads N, --save-times FILE, "
                     "--replay-times FILE, --quiet)\n",
                     a.c_str());
        std::exit(1);
      }
    }
    if (options.replayTimes && !readTimes(options.replayTimes))
      std::exit(1);
    if (!device.error.empty()) {
      std::fprintf(stderr, "tune: error: %s\n", device.error.c_str());
      std::exit(2);
    }
  }

  /// Measures every candidate of `k` at each of its shapes.
  void tune(const KernelSpec &k) {
    for (int s = 0; s < k.numShapes; ++s)
      tuneShape(k, k.shapes[s]);
  }

  /// Writes the database (and --save-times); the exit status of the runner.
  int finish() {
    if (options.saveTimes) {
      FILE *f = std::fopen(options.saveTimes, "w");
      bool ok = f != nullptr;
      for (const std::string &line : savedTimes)
        ok = ok && std::fputs(line.c_str(), f) >= 0;
      if (!f || std::fclose(f) != 0 || !ok) {
        std::fprintf(stderr, "tune: error: cannot write '%s'\n",
                     options.saveTimes);
        return 1;
      }
    }
    std::string text = "{\n  \"format\": \"tlc-tuning-1\",\n  \"entries\": [";
    for (size_t i = 0; i < entries.size(); ++i)
      text += std::string(i ? ",\n    " : "\n    ") + entries[i];
    text += entries.empty() ? "]\n}\n" : "\n  ]\n}\n";
    if (!options.out) {
      std::fputs(text.c_str(), stdout);
    } else {
      FILE *f = std::fopen(options.out, "w");
      if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
        std::fprintf(stderr, "tune: error: cannot write '%s'\n", options.out);
        return 1;
      }
      if (options.verbose)
        std::fprintf(stderr, "tune: wrote %s (%zu entries)\n", options.out,
                     entries.size());
    }
    return failed ? 1 : 0;
  }

private:
  Options options;
  Device device;
  std::vector<std::string> entries;
  bool failed = false;
  // Times file lines: "KERNEL SHAPE CANDIDATE MICROSECONDS", the shape as
  // M=..,N=.. and the candidate by its index (0: the defaults).
  std::vector<std::string> savedTimes;
  std::map<std::string, double> replayed; // "KERNEL SHAPE CANDIDATE" -> us

  bool readTimes(const char *path) {
    FILE *f = std::fopen(path, "r");
    if (!f) {
      std::fprintf(stderr, "tune: error: cannot read '%s'\n", path);
      return false;
    }
    char line[1024];
    int number = 0;
    bool ok = true;
    while (ok && std::fgets(line, sizeof line, f)) {
      ++number;
      char kernel[256], shape[512];
      int candidate = 0;
      double us = 0;
      char rest = 0;
      if (std::sscanf(line, "%255s %511s %d %lf %c", kernel, shape, &candidate,
                      &us, &rest) != 4 ||
          !(us >= 0)) {
        std::fprintf(stderr,
                     "tune: error: %s:%d: expected KERNEL SHAPE CANDIDATE "
                     "MICROSECONDS\n",
                     path, number);
        ok = false;
        break;
      }
      replayed[std::string(kernel) + " " + shape + " " +
               std::to_string(candidate)] = us;
    }
    std::fclose(f);
    return ok;
  }

  static std::string shapeText(const ShapeSpec &shape, const char *sep,
                               bool json) {
    std::string text;
    for (int d = 0; d < shape.numDims; ++d) {
      if (d)
        text += sep;
      text += json ? "\"" + std::string(shape.names[d]) + "\": "
                   : std::string(shape.names[d]) + "=";
      text += std::to_string(shape.sizes[d]);
    }
    return text;
  }

  static bool dimSize(const ShapeSpec &shape, const DimSpec &dim,
                      int64_t &size) {
    if (!dim.name) {
      size = dim.size;
      return true;
    }
    for (int d = 0; d < shape.numDims; ++d)
      if (std::strcmp(shape.names[d], dim.name) == 0) {
        size = shape.sizes[d];
        return true;
      }
    return false;
  }

  /// Restores the starting contents of the outputs on the device.
  void reset(std::vector<Buffer> &buffers, const KernelSpec &k) {
    size_t t = 0;
    for (int a = 0; a < k.numArgs; ++a) {
      if (!k.args[a].tensor)
        continue;
      Buffer &b = buffers[t++];
      if (k.args[a].access != Access::In)
        device.upload(b.device, b.initial.data(), b.bytes);
    }
  }

  void download(std::vector<Buffer> &buffers, const KernelSpec &k) {
    size_t t = 0;
    for (int a = 0; a < k.numArgs; ++a) {
      if (!k.args[a].tensor)
        continue;
      Buffer &b = buffers[t++];
      if (k.args[a].access != Access::In) {
        b.result.resize(b.bytes);
        device.download(b.result.data(), b.device, b.bytes);
      }
    }
  }

  /// The argument sets timed calls rotate over: `views` and copies of its
  /// tensors (their starting contents), owned until destruction.
  struct TimingSets {
    Device &device;
    std::vector<std::vector<TensorView>> sets;
    std::vector<void *> owned;
    size_t footprint = 0; // of one set
    /// `copies`: make them (not when the times are replayed).
    TimingSets(Device &device, const std::vector<TensorView> &views,
               const std::vector<Buffer> &buffers, bool copies)
        : device(device), sets{views} {
      for (const Buffer &b : buffers)
        footprint += b.bytes;
      size_t count = footprint && copies
                         ? std::min(kMaxTimingSets,
                                    (kColdBytes + footprint - 1) / footprint)
                         : 1;
      for (size_t s = 1; s < count; ++s) {
        std::vector<TensorView> copy = views;
        for (size_t t = 0; t < buffers.size(); ++t) {
          void *p = device.alloc(buffers[t].bytes);
          owned.push_back(p);
          device.upload(p, buffers[t].initial.data(), buffers[t].bytes);
          copy[t].data = p;
        }
        sets.push_back(std::move(copy));
      }
    }
    ~TimingSets() {
      for (void *p : owned)
        device.release(p);
    }
  };

  /// Candidate `c`'s time at `shape`: measured, or read from
  /// --replay-times (a negative value: it has none there).
  double time(const KernelSpec &k, const ShapeSpec &shape, int c,
              const TimingSets &timing, const std::vector<double> &scalars,
              const LaunchOptions &launch) {
    std::string key = std::string(k.name) + " " + shapeText(shape, ",", false) +
                      " " + std::to_string(c);
    double us = 0;
    if (options.replayTimes) {
      auto it = replayed.find(key);
      if (it == replayed.end()) {
        std::fprintf(stderr, "tune: error: %s has no time for '%s'\n",
                     options.replayTimes, key.c_str());
        failed = true;
        return -1;
      }
      us = it->second;
    } else {
      size_t call = 0;
      us = microsecondsPerCall(
          [&] {
            const std::vector<TensorView> &views =
                timing.sets[call++ % timing.sets.size()];
            k.run(c, views.data(), scalars.data(), launch);
          },
          device, options.budgetMs);
    }
    char text[64];
    std::snprintf(text, sizeof text, " %.17g\n", us);
    savedTimes.push_back(key + text);
    return us;
  }

  void tuneShape(const KernelSpec &k, const ShapeSpec &shape) {
    std::string where =
        std::string(k.name) + " at " + shapeText(shape, ",", false);
    // The arguments at this shape.
    std::vector<Buffer> buffers;
    std::vector<TensorView> views;
    std::vector<double> scalars;
    uint64_t seed = 1;
    for (int a = 0; a < k.numArgs; ++a) {
      const ArgSpec &arg = k.args[a];
      if (!arg.tensor) {
        scalars.push_back(arg.scalar);
        continue;
      }
      TensorView view{};
      view.dtype = arg.dtype;
      view.rank = arg.rank;
      size_t elements = 1;
      for (int d = 0; d < arg.rank; ++d) {
        int64_t size = 0;
        if (!dimSize(shape, arg.dims[d], size)) {
          std::fprintf(stderr, "tune: error: %s: the shape does not give %s\n",
                       where.c_str(), arg.dims[d].name);
          failed = true;
          return;
        }
        view.shape[d] = size;
        elements *= size_t(size);
      }
      int64_t stride = 1;
      for (int d = arg.rank; d-- > 0;) {
        view.strides[d] = stride;
        stride *= std::max<int64_t>(view.shape[d], 1);
      }
      Buffer b;
      b.elements = elements;
      b.bytes = elements * size_t(runtime::elementSize(arg.dtype));
      b.initial.resize(b.bytes);
      if (arg.access == Access::Out)
        std::memset(b.initial.data(), 0, b.bytes);
      else
        fillRandom(b.initial.data(), arg.dtype, elements, seed);
      ++seed;
      b.device = device.alloc(b.bytes);
      device.upload(b.device, b.initial.data(), b.bytes);
      view.data = b.device;
      views.push_back(view);
      buffers.push_back(std::move(b));
    }
    LaunchOptions launch;
    launch.num_threads = options.numThreads;

    // The reference: the defaults.
    Status st = k.run(0, views.data(), scalars.data(), launch);
    device.sync();
    if (!st.ok()) {
      std::fprintf(stderr, "tune: error: %s: the defaults fail: %s\n",
                   where.c_str(), st.message.c_str());
      failed = true;
      return release(buffers);
    }
    download(buffers, k);
    std::vector<std::vector<unsigned char>> reference;
    for (Buffer &b : buffers)
      reference.push_back(b.result);
    std::vector<double> scales = referenceScales(k, buffers, reference);
    TimingSets timing(device, views, buffers, !options.replayTimes);
    if (options.verbose && timing.sets.size() > 1)
      std::fprintf(stderr,
                   "tune: %s: timing on %zu copies of the arguments (%.1f "
                   "MiB in all)\n",
                   where.c_str(), timing.sets.size(),
                   double(timing.sets.size() * timing.footprint) / (1 << 20));
    double defaultUs = time(k, shape, 0, timing, scalars, launch);
    if (defaultUs < 0)
      return release(buffers);
    if (options.verbose)
      std::fprintf(stderr, "tune: %s: defaults %.3f us\n", where.c_str(),
                   defaultUs);

    int best = 0, measured = 1;
    double bestUs = defaultUs;
    for (int c = 1; c < k.numCandidates; ++c) {
      const CandidateSpec &cand = k.candidates[c];
      std::string progress = "tune: " + where + ": [" + std::to_string(c) +
                             "/" + std::to_string(k.numCandidates - 1) + "] " +
                             cand.label + ": ";
      if (cand.failure) {
        if (options.verbose)
          std::fprintf(stderr, "%sdoes not compile: %s\n", progress.c_str(),
                       cand.failure);
        continue;
      }
      reset(buffers, k);
      st = k.run(c, views.data(), scalars.data(), launch);
      device.sync();
      if (!st.ok()) {
        if (options.verbose)
          std::fprintf(stderr, "%sfails: %s\n", progress.c_str(),
                       st.message.c_str());
        continue;
      }
      download(buffers, k);
      std::string mismatch = compare(k, buffers, reference, scales);
      if (!mismatch.empty()) {
        std::fprintf(stderr, "%sWRONG RESULT: %s\n", progress.c_str(),
                     mismatch.c_str());
        continue;
      }
      double us = time(k, shape, c, timing, scalars, launch);
      if (us < 0)
        continue;
      ++measured;
      if (options.verbose)
        std::fprintf(stderr, "%s%.3f us (%.2fx the defaults)\n",
                     progress.c_str(), us, defaultUs / us);
      if (us < bestUs) {
        bestUs = us;
        best = c;
      }
    }
    if (options.verbose)
      std::fprintf(stderr, "tune: %s: best %s: %.3f us (%.2fx the defaults)\n",
                   where.c_str(), k.candidates[best].label, bestUs,
                   defaultUs / bestUs);
    char times[128];
    std::snprintf(times, sizeof times,
                  "\"time_us\": %.3f, \"default_time_us\": %.3f, "
                  "\"candidates\": %d}",
                  bestUs, defaultUs, measured);
    std::string forValues =
        k.forValues && *k.forValues
            ? std::string("\"for\": {") + k.forValues + "}, "
            : std::string();
    entries.push_back(std::string("{\"kernel\": \"") + k.name +
                      "\", \"target\": \"" + k.target + "\", \"arch\": \"" +
                      k.arch + "\", " + forValues + "\"shape\": {" +
                      shapeText(shape, ", ", true) + "}, \"params\": {" +
                      k.candidates[best].params + "}, " + times);
    release(buffers);
  }

  /// The largest chunkMax(begin, end) over chunks of [0, n), run on the
  /// host's threads (as many as --threads allows): the outputs of a large
  /// shape hold tens of millions of elements, and checking them on one
  /// thread took longer than timing the candidate.
  template <typename ChunkMax>
  double maxOverChunks(size_t n, ChunkMax &&chunkMax) {
    constexpr size_t kChunk = size_t(1) << 20;
    std::vector<double> partial((n + kChunk - 1) / kChunk, 0.0);
    runtime::parallelFor(
        int64_t(partial.size()), options.numThreads, [&](int64_t c) {
          size_t begin = size_t(c) * kChunk;
          partial[size_t(c)] = chunkMax(begin, std::min(n, begin + kChunk));
        });
    double m = 0;
    for (double p : partial)
      m = std::max(m, p);
    return m;
  }

  /// Each output's largest reference magnitude (0 for inputs), measured
  /// once per shape: tolerances are relative to it.
  std::vector<double>
  referenceScales(const KernelSpec &k, const std::vector<Buffer> &buffers,
                  const std::vector<std::vector<unsigned char>> &ref) {
    std::vector<double> scales(buffers.size(), 0.0);
    size_t t = 0;
    for (int a = 0; a < k.numArgs; ++a) {
      if (!k.args[a].tensor)
        continue;
      size_t i = t++;
      if (k.args[a].access == Access::In)
        continue;
      int32_t dtype = k.args[a].dtype;
      scales[i] = maxOverChunks(buffers[i].elements, [&](size_t b, size_t e) {
        double m = 0;
        for (; b < e; ++b)
          m = std::max(m, std::fabs(load(ref[i].data(), dtype, b)));
        return m;
      });
    }
    return scales;
  }

  /// "" when every output agrees with the reference, else what differs.
  std::string compare(const KernelSpec &k, const std::vector<Buffer> &buffers,
                      const std::vector<std::vector<unsigned char>> &ref,
                      const std::vector<double> &scales) {
    size_t t = 0;
    for (int a = 0; a < k.numArgs; ++a) {
      if (!k.args[a].tensor)
        continue;
      size_t i = t++;
      if (k.args[a].access == Access::In)
        continue;
      int32_t dtype = k.args[a].dtype;
      double worst =
          maxOverChunks(buffers[i].elements, [&](size_t b, size_t e) {
            double chunkWorst = 0;
            for (; b < e; ++b) {
              double got = load(buffers[i].result.data(), dtype, b);
              double want = load(ref[i].data(), dtype, b);
              double error =
                  std::isnan(got) != std::isnan(want)
                      ? INFINITY
                      : (std::isnan(want) ? 0 : std::fabs(got - want));
              chunkWorst = std::max(chunkWorst, error);
            }
            return chunkWorst;
          });
      double allowed = tolerance(dtype) * std::max(scales[i], 1e-30);
      if (!(worst <= allowed)) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "%s differs from the defaults by %.3g (allowed %.3g)",
                      k.args[a].name, worst, allowed);
        return text;
      }
    }
    return "";
  }

  void release(std::vector<Buffer> &buffers) {
    for (Buffer &b : buffers)
      device.release(b.device);
  }
};

} // namespace tune
} // namespace tlc

#endif /* TLC_RUNTIME_TLC_TUNE_H */
