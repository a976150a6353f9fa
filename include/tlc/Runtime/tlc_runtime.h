/* tlc_runtime.h - Header-only runtime shared by tlc-generated launch stubs. */
/*===----------------------------------------------------------------------===
 *
 * The C part (tensors, dtypes, launch options, status codes) is valid C99 and
 * is what the extern "C" entry points of generated stubs use. The C++ part
 * (namespace tlc) adds Status, tensor helpers and the CPU thread pool that
 * runs the blocks of a kernel grid. Only the standard library is needed;
 * link with -pthread.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TLC_RUNTIME_TLC_RUNTIME_H
#define TLC_RUNTIME_TLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/*===--- C ABI ------------------------------------------------------------===*/

/* Element types; the values match tlc::DType. */
typedef enum tlc_dtype {
  TLC_F64 = 0,
  TLC_F32 = 1,
  TLC_F16 = 2,
  TLC_BF16 = 3,
  TLC_I64 = 4,
  TLC_I32 = 5,
  TLC_I16 = 6,
  TLC_I8 = 7,
  TLC_U8 = 8,
  TLC_BOOL = 9,    /* one byte per element, 0 or 1 */
  TLC_F8E4M3 = 10, /* OCP FP8 E4M3 (torch.float8_e4m3fn): max 448, no inf */
  TLC_F8E5M2 = 11, /* OCP FP8 E5M2 (torch.float8_e5m2): max 57344 */
  TLC_U4 = 12,     /* 4-bit, two per byte along the innermost dimension */
  TLC_I4 = 13      /* (element 2c in the low nibble of byte c) */
} tlc_dtype;

/* Status codes returned by the C entry points. */
#define TLC_OK 0
#define TLC_ERR_INVALID_ARGUMENT (-1)
#define TLC_ERR_ALIGNMENT (-2)
#define TLC_ERR_RUNTIME (-3)

#define TLC_MAX_RANK 8

/* A view of a strided tensor owned by the caller. `strides` count elements,
 * not bytes; the innermost dimension must be contiguous (stride 1). For the
 * packed u4/i4, `data` points at the byte of element 0, the innermost size
 * is even and the other strides are even (every row starts a byte). */
typedef struct tlc_tensor {
  void *data;
  int32_t dtype; /* a tlc_dtype */
  int32_t rank;  /* 1 to TLC_MAX_RANK */
  int64_t shape[TLC_MAX_RANK];
  int64_t strides[TLC_MAX_RANK];
} tlc_tensor;

typedef struct tlc_launch_options {
  int32_t num_threads; /* 0 = hardware threads */
  void *stream;        /* GPU targets; ignored on CPU */
} tlc_launch_options;

/*===--- C++ API ----------------------------------------------------------===*/

#ifdef __cplusplus

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace tlc {

/// The result of a launch: code is one of TLC_OK / TLC_ERR_*, message says
/// what went wrong (empty on success).
struct Status {
  int code = TLC_OK;
  std::string message;
  bool ok() const { return code == TLC_OK; }
};

using TensorView = tlc_tensor;

/// A tensor view with explicit strides (in elements).
inline TensorView makeTensor(void *data, tlc_dtype dtype,
                             std::initializer_list<int64_t> shape,
                             std::initializer_list<int64_t> strides) {
  TensorView t{};
  t.data = data;
  t.dtype = dtype;
  // A rank above TLC_MAX_RANK (or a strides list of another length) is kept
  // visible in `rank` so that launching reports it instead of truncating.
  t.rank = static_cast<int32_t>(shape.size());
  if (strides.size() != shape.size())
    t.rank = -1;
  size_t i = 0;
  for (int64_t s : shape)
    if (i < TLC_MAX_RANK)
      t.shape[i++] = s;
  i = 0;
  for (int64_t s : strides)
    if (i < TLC_MAX_RANK)
      t.strides[i++] = s;
  return t;
}

/// A contiguous row-major tensor view.
inline TensorView makeTensor(void *data, tlc_dtype dtype,
                             std::initializer_list<int64_t> shape) {
  TensorView t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  size_t n = std::min<size_t>(shape.size(), TLC_MAX_RANK);
  std::copy(shape.begin(), shape.begin() + n, t.shape);
  int64_t stride = 1;
  for (size_t i = n; i-- > 0;) {
    t.strides[i] = stride;
    stride *= std::max<int64_t>(t.shape[i], 1);
  }
  return t;
}

/// tlc_launch_options with defaults: all hardware threads, no stream.
struct LaunchOptions : tlc_launch_options {
  LaunchOptions() : tlc_launch_options{0, nullptr} {}
  explicit LaunchOptions(int32_t numThreads, void *gpuStream = nullptr)
      : tlc_launch_options{numThreads, gpuStream} {}
  LaunchOptions(const tlc_launch_options &o) : tlc_launch_options(o) {}
};

/// Ceiling division for b > 0, exact for every a (no overflow near
/// INT64_MAX).
inline int64_t cdiv(int64_t a, int64_t b) {
  return a / b + (a % b > 0 ? 1 : 0);
}

namespace runtime {

/// A persistent pool of worker threads. Use parallelFor() rather than this
/// class directly.
class ThreadPool {
public:
  ThreadPool() = default;
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool() { shutdown(); }

  /// Runs fn(0) ... fn(numTasks - 1) on up to numThreads threads, the caller
  /// included. Calls from several threads are serialized.
  void run(int64_t numTasks, int numThreads,
           const std::function<void(int64_t)> &fn) {
    std::lock_guard<std::mutex> callLock(callMutex);
    int64_t wanted = std::min<int64_t>(numThreads - 1, numTasks - 1);
    int helpers = grow(static_cast<int>(std::max<int64_t>(wanted, 0)));
    if (helpers == 0) { // shut down, or no thread could be created
      for (int64_t i = 0; i < numTasks; ++i)
        fn(i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = &fn;
      jobTasks = numTasks;
      next.store(0, std::memory_order_relaxed);
      jobHelpers = helpers;
      finished = 0;
      error = nullptr;
      ++generation;
    }
    wake.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return finished == jobHelpers; });
    job = nullptr;
    std::exception_ptr e = error;
    error = nullptr;
    lock.unlock();
    if (e)
      std::rethrow_exception(e);
  }

  /// Stops and joins the workers once they finish the job at hand. Later
  /// run() calls execute inline.
  void shutdown() {
    std::vector<std::thread> stopped;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
      stopped.swap(workers);
    }
    wake.notify_all();
    for (std::thread &t : stopped) {
      if (t.get_id() == std::this_thread::get_id())
        t.detach(); // exit() called from a task running on this worker
      else if (t.joinable())
        t.join();
    }
  }

  /// True on a thread that is running a task of this pool.
  static bool &insideTask() {
    static thread_local bool inside = false;
    return inside;
  }

private:
  /// Makes sure `wanted` workers exist; returns how many of them the job can
  /// use (fewer when thread creation fails, 0 after shutdown).
  int grow(int wanted) {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return 0;
    while (static_cast<int>(workers.size()) < wanted) {
      try {
        int id = static_cast<int>(workers.size());
        uint64_t seen = generation;
        workers.emplace_back([this, id, seen] { workerLoop(id, seen); });
      } catch (const std::system_error &) {
        break;
      }
    }
    return std::min(wanted, static_cast<int>(workers.size()));
  }

  /// Takes tasks until none are left. An exception stops the job and is
  /// handed to the caller.
  void work() {
    bool &inside = insideTask();
    bool wasInside = inside;
    inside = true;
    for (;;) {
      int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= jobTasks)
        break;
      try {
        (*job)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error)
          error = std::current_exception();
        next.store(jobTasks, std::memory_order_relaxed);
      }
    }
    inside = wasInside;
  }

  void workerLoop(int id, uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      if (id >= jobHelpers)
        continue;
      lock.unlock();
      work();
      lock.lock();
      if (++finished == jobHelpers)
        done.notify_one();
    }
  }

  std::mutex callMutex; // serializes run()
  std::mutex mutex;     // guards everything below except `next`
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  bool stopping = false;
  uint64_t generation = 0;
  const std::function<void(int64_t)> *job = nullptr;
  int64_t jobTasks = 0;
  int jobHelpers = 0;
  int finished = 0;
  std::exception_ptr error;
  std::atomic<int64_t> next{0};
};

/// The process-wide pool, created on first use. Its workers are joined at
/// exit, but the pool itself is never destroyed: exit() may be called while a
/// launch is in flight (even from inside a task), and destroying a condition
/// variable that a thread still waits on would block forever.
inline ThreadPool &threadPool() {
  static ThreadPool *pool = new ThreadPool;
  static struct Joiner {
    ~Joiner() { pool->shutdown(); }
  } joiner;
  return *pool;
}

/// Most threads one parallelFor uses.
constexpr int kMaxThreads = 1024;

/// The worker threads a CPU launch with `numThreads` uses (<= 0: the
/// hardware thread count), as parallelFor counts them.
inline int workerCount(int numThreads) {
  if (numThreads <= 0)
    numThreads = static_cast<int>(std::thread::hardware_concurrency());
  return std::min(std::max(numThreads, 1), kMaxThreads);
}

/// Runs fn(i) for every i in [0, numTasks), each exactly once, on up to
/// numThreads threads (<= 0: the hardware thread count), the caller included.
/// Tasks must be independent. Runs inline when one thread or one task
/// suffices, and when called from inside a task. Exceptions thrown by fn stop
/// the remaining tasks and are rethrown here.
inline void parallelFor(int64_t numTasks, int numThreads,
                        const std::function<void(int64_t)> &fn) {
  if (numTasks <= 0)
    return;
  numThreads = workerCount(numThreads);
  if (numThreads == 1 || numTasks == 1 || ThreadPool::insideTask()) {
    for (int64_t i = 0; i < numTasks; ++i)
      fn(i);
    return;
  }
  threadPool().run(numTasks, numThreads, fn);
}

/// How a CPU stub splits a gx x gy grid into rectangles of blocks, one per
/// task, for a kernel with a task entry (tile-cpu-task-nest).
struct GridSplit {
  int64_t columns = 0; ///< parts of [0, gx); 0: run block by block instead
  int64_t rows = 0;    ///< parts of [0, gy)
};

/// The split of a gx x gy x gz grid over `workers` threads whose largest
/// rectangle is smallest (columns first on ties: a rectangle then copies
/// fewer B tiles). Block by block (columns = 0) when gz > 1 (rectangles
/// span the whole depth) or when that largest rectangle would hold over a
/// quarter more blocks than a thread's share of the grid: per-block tasks
/// are scheduled dynamically and balance the load.
inline GridSplit splitGrid(int64_t gx, int64_t gy, int64_t gz,
                           int64_t workers) {
  GridSplit best;
  if (gx <= 0 || gy <= 0 || gz != 1 || workers <= 0)
    return best;
  int64_t largest = 0;
  for (int64_t c = 1; c <= std::min(gx, workers); ++c) {
    int64_t r = std::min(gy, std::max<int64_t>(1, workers / c));
    int64_t area = ((gx + c - 1) / c) * ((gy + r - 1) / r);
    if (best.columns == 0 || area <= largest) { // ties: more columns
      best = {c, r};
      largest = area;
    }
  }
  int64_t share = (gx * gy + workers - 1) / workers;
  if (largest * 4 > share * 5)
    return GridSplit{};
  return best;
}

//===--- Helpers for generated stubs -------------------------------------===//

inline const char *dtypeName(int32_t dtype) {
  static const char *const names[] = {"f64",    "f32",    "f16", "bf16", "i64",
                                      "i32",    "i16",    "i8",  "u8",   "bool",
                                      "f8e4m3", "f8e5m2", "u4",  "i4"};
  return dtype >= 0 && dtype <= TLC_I4 ? names[dtype] : "?";
}

/// Bytes per element; a packed 4-bit element counts its whole byte (an
/// upper bound for buffer sizes).
inline int64_t elementSize(int32_t dtype) {
  static const int64_t sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1, 1, 1, 1, 1};
  return dtype >= 0 && dtype <= TLC_I4 ? sizes[dtype] : 0;
}

inline bool isPacked(int32_t dtype) {
  return dtype == TLC_U4 || dtype == TLC_I4;
}

inline Status invalidArgument(std::string message) {
  return Status{TLC_ERR_INVALID_ARGUMENT, std::move(message)};
}

/// Whether a tensor has no elements (some size is 0).
inline bool isEmpty(const TensorView &t) {
  for (int32_t d = 0; d < t.rank; ++d)
    if (t.shape[d] == 0)
      return true;
  return false;
}

/// Checks one tensor argument against the kernel's dtype and rank: a valid
/// dtype and rank, sizes >= 0, data non-null (unless the tensor is empty) and
/// aligned to the element size, innermost stride 1 (unless that size is <= 1).
/// `type` is the declared type for messages, e.g. "f32[M, K]".
inline Status checkTensor(const char *kernel, const char *name,
                          const TensorView &t, tlc_dtype dtype, int32_t rank,
                          const char *type) {
  std::string at = std::string(kernel) + ": " + name;
  if (t.dtype < 0 || t.dtype > TLC_I4)
    return invalidArgument(at + " has invalid dtype code " +
                           std::to_string(t.dtype));
  if (t.dtype != dtype)
    return invalidArgument(at + " has dtype " + dtypeName(t.dtype) +
                           " but the kernel expects " + type);
  if (t.rank != rank)
    return invalidArgument(at + " has rank " + std::to_string(t.rank) +
                           " but the kernel expects " + type);
  for (int32_t d = 0; d < rank; ++d)
    if (t.shape[d] < 0)
      return invalidArgument(at + ".shape[" + std::to_string(d) + "] is " +
                             std::to_string(t.shape[d]) +
                             "; sizes must be >= 0");
  bool empty = isEmpty(t);
  if (!t.data && !empty)
    return invalidArgument(at + ".data is NULL");
  int64_t size = elementSize(dtype);
  // The bytes the tensor spans, sum (shape - 1) * |stride| + 1 elements,
  // must be representable: beyond that the kernel's addresses wrap.
  if (!empty) {
    int64_t last = 0, term = 0, bytes = 0;
    bool overflow = false;
    for (int32_t d = 0; d < rank && !overflow; ++d) {
      int64_t stride = t.strides[d];
      if (stride == std::numeric_limits<int64_t>::min())
        overflow = true;
      else
        overflow = __builtin_mul_overflow(
                       t.shape[d] - 1, stride < 0 ? -stride : stride, &term) ||
                   __builtin_add_overflow(last, term, &last);
    }
    if (overflow || __builtin_add_overflow(last, int64_t(1), &last) ||
        __builtin_mul_overflow(last, size, &bytes))
      return invalidArgument(at + " is too large: its shape and strides span "
                                  "more than 2^63 bytes");
  }
  if (reinterpret_cast<uintptr_t>(t.data) % static_cast<uintptr_t>(size))
    return Status{TLC_ERR_ALIGNMENT, at + ".data is not aligned to " +
                                         std::to_string(size) + " bytes (" +
                                         dtypeName(dtype) + " elements)"};
  if (t.strides[rank - 1] != 1 && t.shape[rank - 1] > 1)
    return invalidArgument(at + ".strides[" + std::to_string(rank - 1) +
                           "] is " + std::to_string(t.strides[rank - 1]) +
                           " but the innermost dimension must be contiguous "
                           "(stride 1)");
  if (isPacked(dtype)) {
    // The kernel addresses whole bytes: every row starts one.
    if (t.shape[rank - 1] % 2)
      return invalidArgument(at + ".shape[" + std::to_string(rank - 1) +
                             "] is " + std::to_string(t.shape[rank - 1]) +
                             " but " + dtypeName(dtype) +
                             " elements are packed two per byte: the "
                             "innermost size must be even");
    for (int32_t d = 0; d + 1 < rank; ++d)
      if (t.strides[d] % 2 && t.shape[d] > 1)
        return invalidArgument(at + ".strides[" + std::to_string(d) + "] is " +
                               std::to_string(t.strides[d]) + " but " +
                               dtypeName(dtype) +
                               " rows must start at a byte (even strides)");
  }
  return Status{};
}

/// The bytes of a checked packed (u4/i4) tensor as the u8 tensor the kernel
/// addresses: half the innermost size, half the other strides.
inline TensorView packedBytes(const TensorView &t) {
  TensorView bytes = t;
  bytes.dtype = TLC_U8;
  bytes.shape[t.rank - 1] /= 2;
  for (int32_t d = 0; d + 1 < t.rank; ++d)
    bytes.strides[d] /= 2;
  bytes.strides[t.rank - 1] = 1;
  return bytes;
}

/// Checks a tensor the kernel views with another shape (`view(X, ...)`,
/// whose sizes the stub computed into `dims`): sizes >= 0, X row-major
/// contiguous (each stride the product of the sizes after it; dimensions
/// of size 1 may have any stride) and holding as many elements as the view.
inline Status checkViewable(const char *kernel, const char *name,
                            const TensorView &t, const int64_t *dims,
                            int32_t rank, const char *view) {
  std::string at = std::string(kernel) + ": " + name;
  int64_t elements = 1, count = 1, dense = 1;
  bool tooLarge = false, contiguous = true;
  for (int32_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return invalidArgument(at + ": the kernel views it as " + view +
                             ", whose size " + std::to_string(d) + " is " +
                             std::to_string(dims[d]) + " for these arguments");
    tooLarge |= __builtin_mul_overflow(elements, dims[d], &elements);
  }
  for (int32_t d = t.rank - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != dense)
      contiguous = false;
    contiguous &= !__builtin_mul_overflow(dense, t.shape[d], &dense);
    tooLarge |= __builtin_mul_overflow(count, t.shape[d], &count);
  }
  if (tooLarge)
    return invalidArgument(at + " or its view " + view +
                           " has more than 2^63 elements");
  if (!contiguous && count > 1)
    return invalidArgument(at +
                           " must be contiguous (row-major, no gaps): "
                           "the kernel views it as " +
                           view);
  if (elements != count)
    return invalidArgument(at + " has " + std::to_string(count) +
                           " elements but the kernel views it as " + view +
                           " = " + std::to_string(elements) + " elements");
  return Status{};
}

/// The bytes [first, end) between a checked, non-empty tensor's lowest and
/// highest element, and whether every byte in between belongs to an element
/// (a dense tensor).
struct ByteSpan {
  uintptr_t first = 0, end = 0;
  bool dense = false;
};
inline ByteSpan byteSpan(const TensorView &t) {
  // checkTensor has bounded the reaches; the element count may still
  // overflow (stride-0 broadcasts), and then the tensor is not dense.
  int64_t size = elementSize(t.dtype), low = 0, high = 0, elements = 1;
  bool overflow = false;
  for (int32_t d = 0; d < t.rank; ++d) {
    int64_t reach = (t.shape[d] - 1) * t.strides[d];
    (reach < 0 ? low : high) += reach;
    overflow |= __builtin_mul_overflow(elements, t.shape[d], &elements);
  }
  uintptr_t base = reinterpret_cast<uintptr_t>(t.data);
  ByteSpan span{base + static_cast<uintptr_t>(low * size),
                base + static_cast<uintptr_t>((high + 1) * size), false};
  int64_t bytes = 0;
  span.dense = !overflow && !__builtin_mul_overflow(elements, size, &bytes) &&
               static_cast<int64_t>(span.end - span.first) == bytes;
  return span;
}

/// Rejects an output that certainly shares memory with another tensor
/// argument (the blocks run in parallel): the same data pointer, or the
/// lowest element of one inside the span of the other when that one is
/// dense. Interleaved strided views that may or may not share elements are
/// let through (telling would cost more than the launch).
inline Status checkNoOverlap(const char *kernel, const char *outName,
                             const TensorView &out, const char *otherName,
                             const TensorView &other) {
  if (isEmpty(out) || isEmpty(other))
    return Status{};
  ByteSpan a = byteSpan(out), b = byteSpan(other);
  auto inside = [](uintptr_t p, const ByteSpan &s) {
    return p >= s.first && p < s.end;
  };
  if (out.data == other.data || (a.dense && inside(b.first, a)) ||
      (b.dense && inside(a.first, b)))
    return invalidArgument(std::string(kernel) + ": " + outName + " overlaps " +
                           otherName +
                           " in memory; outputs must not overlap other "
                           "tensor arguments (the blocks run in parallel)");
  return Status{};
}

/// "gemm: B.shape[0] is 300 but K = 256 (from A.shape[1])"
inline Status dimMismatch(const char *kernel, const char *name, int dim,
                          int64_t actual, const std::string &expected) {
  return invalidArgument(std::string(kernel) + ": " + name + ".shape[" +
                         std::to_string(dim) + "] is " +
                         std::to_string(actual) + " but " + expected);
}

/// Shifts of a grid expression's bits; the amount is taken modulo 64 as
/// the generated code masks it to its type's width already. A negative
/// value shifts as two's complement (left: through uint64_t; right:
/// arithmetic, written without the implementation-defined >> of C++17).
inline int64_t shiftLeft(int64_t a, int64_t amount) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) << (amount & 63));
}

inline int64_t shiftRight(int64_t a, int64_t amount) {
  amount &= 63;
  return a < 0 ? ~(~a >> amount) : a >> amount;
}

/// Integer division in a grid expression; sets `failed` on a zero divisor.
inline int64_t checkedDiv(int64_t a, int64_t b, bool &failed) {
  if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min())) {
    failed = true;
    return 0;
  }
  return a / b;
}

inline int64_t checkedRem(int64_t a, int64_t b, bool &failed) {
  if (b == 0) {
    failed = true;
    return 0;
  }
  return b == -1 ? 0 : a % b;
}

/// cdiv in a grid expression; sets `failed` on a divisor <= 0.
inline int64_t checkedCdiv(int64_t a, int64_t b, bool &failed) {
  if (b <= 0) {
    failed = true;
    return 0;
  }
  return cdiv(a, b);
}

/// Copies at most len - 1 characters of message and a NUL into buf.
inline void copyMessage(const char *message, char *buf, size_t len) noexcept {
  if (!buf || len == 0)
    return;
  size_t n = std::min(std::strlen(message), len - 1);
  std::memcpy(buf, message, n);
  buf[n] = '\0';
}

/// The bucket of a tuned kernel that a call of shape `dims` uses: the one
/// nearest in log2 space, summing |log2(dim) - log2(bucket dim)| over the
/// dimensions the bucket names (a 0 in `buckets` names none); the first of
/// equally near buckets. `buckets` is numBuckets rows of numDims sizes. An
/// empty dimension counts as 1.
inline int nearestBucket(const int64_t *dims, const int64_t *buckets,
                         int numBuckets, int numDims) {
  int best = 0;
  double bestDistance = 0;
  for (int b = 0; b < numBuckets; ++b) {
    double distance = 0;
    for (int d = 0; d < numDims; ++d) {
      int64_t tuned = buckets[b * numDims + d];
      if (tuned <= 0)
        continue;
      double size = double(dims[d] > 1 ? dims[d] : 1);
      distance += std::fabs(std::log2(size) - std::log2(double(tuned)));
    }
    if (b == 0 || distance < bestDistance) {
      best = b;
      bestDistance = distance;
    }
  }
  return best;
}

/// Blocks per unit at which the fill heuristic calls the machine full: four
/// per multiprocessor (GPU) or worker thread (CPU), enough to hide latency
/// and balance uneven blocks (docs/tuning.md).
constexpr int64_t kFillBlocksPerUnit = 4;

/// The variant the fill heuristic picks for a call (docs/tuning.md): the
/// variants come largest tiles first (variant 0: the defaults) and
/// `blocks[v]` is variant v's grid size for this call. The first variant
/// whose grid fills `units` units with `perUnit[v]` blocks each (what one
/// unit holds of that variant at once, at most kFillBlocksPerUnit; null:
/// kFillBlocksPerUnit); when none does, the one with the most blocks (the
/// first of equals). `units` <= 0 (the machine cannot say) picks variant 0.
inline int fillingVariant(const int64_t *blocks, int numVariants, int64_t units,
                          const int64_t *perUnit = nullptr) {
  if (units <= 0)
    return 0;
  int most = 0;
  for (int v = 0; v < numVariants; ++v) {
    int64_t full =
        perUnit ? std::max<int64_t>(1, perUnit[v]) : kFillBlocksPerUnit;
    if (blocks[v] >= units * full)
      return v;
    if (blocks[v] > blocks[most])
      most = v;
  }
  return most;
}

/// TLC_TRACE_DISPATCH=1: tuned kernels say which variant each call runs.
inline bool traceDispatch() {
  static const bool on = [] {
    const char *v = std::getenv("TLC_TRACE_DISPATCH");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

inline void printDispatch(const char *kernel,
                          std::initializer_list<const char *> dimNames,
                          const int64_t *shape, int variant,
                          const char *params) {
  std::string text = std::string("tlc: ") + kernel + ":";
  int d = 0;
  for (const char *name : dimNames)
    text += std::string(" ") + name + "=" + std::to_string(shape[d++]);
  text += " -> variant " + std::to_string(variant) + " (" + params + ")\n";
  std::fputs(text.c_str(), stderr);
}

/// Shader kernels (Vulkan, Metal) take sizes, strides and scalars as 32-bit
/// words: a scalar argument or size as its word, false when it does not fit.
inline bool pushWord(int64_t v, uint32_t &word) {
  if (v < INT32_MIN || v > INT32_MAX)
    return false;
  word = static_cast<uint32_t>(static_cast<int32_t>(v));
  return true;
}
inline bool pushWord(float v, uint32_t &word) {
  std::memcpy(&word, &v, sizeof word);
  return true;
}

/// Where the scratch tensors of an operation lie in its one allocation:
/// contiguous, each at a multiple of 256 bytes.
class ScratchLayout {
public:
  /// Reserves a tensor of `dtype` and `shape` and sets `offset` (bytes);
  /// false when a size is negative or the total does not fit a size_t.
  bool add(int32_t dtype, std::initializer_list<int64_t> shape,
           size_t &offset) {
    uint64_t bytes = static_cast<uint64_t>(elementSize(dtype));
    for (int64_t size : shape) {
      if (size < 0)
        return false;
      if (size && bytes > std::numeric_limits<uint64_t>::max() / size)
        return false;
      bytes *= static_cast<uint64_t>(size);
    }
    uint64_t start = (total + 255) / 256 * 256;
    if (start < total || bytes > std::numeric_limits<size_t>::max() - start)
      return false;
    offset = static_cast<size_t>(start);
    total = static_cast<size_t>(start + bytes);
    return true;
  }
  size_t bytes() const { return total; }

private:
  size_t total = 0;
};

/// The scratch of an operation on the CPU: host memory, freed when the
/// operation returns (its kernels have run by then).
class HostScratch {
public:
  HostScratch() = default;
  HostScratch(const HostScratch &) = delete;
  HostScratch &operator=(const HostScratch &) = delete;
  ~HostScratch() { std::free(memory); }

  Status allocate(const char *operation, size_t bytes, const LaunchOptions &) {
    size_t rounded = (bytes + 255) / 256 * 256;
    memory = rounded >= bytes ? std::aligned_alloc(256, rounded ? rounded : 256)
                              : nullptr;
    if (!memory)
      return Status{TLC_ERR_RUNTIME,
                    std::string(operation) + ": cannot allocate " +
                        std::to_string(bytes) + " bytes of scratch memory"};
    return Status{};
  }
  void *data() const { return memory; }
  Status release() {
    std::free(memory);
    memory = nullptr;
    return Status{};
  }

private:
  void *memory = nullptr;
};

/// A shader kernel's push-constant block: the ABI lists each tensor's
/// element offset, then the stub's `words`; the kernel reads `count` of
/// them, word i being the ABI's word block[i].
inline void pushBlock(const uint32_t *offsets, uint32_t tensors,
                      const uint32_t *words, const uint32_t *block,
                      uint32_t count, uint32_t *out) {
  for (uint32_t i = 0; i < count; ++i)
    out[i] = block[i] < tensors ? offsets[block[i]] : words[block[i] - tensors];
}

/// The blocks of one thread block cluster on the CPU (a kernel with
/// `cluster(c)`): runCluster runs them a thread each, and a block's
/// cluster_reduce publishes its tile (clusterExchange) and waits for the
/// others (clusterSync). A block that returns while the others wait for it
/// fails the cluster instead of hanging it; from then on the blocks go on
/// alone (their results are not used) and share nothing.
class Cluster {
public:
  explicit Cluster(int64_t size) : size(size) {}

  /// Waits until every block has arrived; false when the cluster failed.
  bool arrive() {
    std::unique_lock<std::mutex> lock(mutex);
    if (failed)
      return false;
    uint64_t generation = passed;
    if (++arrived == size) {
      arrived = 0;
      ++passed;
      changed.notify_all();
      return true;
    }
    changed.wait(lock, [&] { return passed != generation || finished > 0; });
    if (passed != generation)
      return true;
    failed = true;
    changed.notify_all();
    return false;
  }
  /// Publishes `bytes` of block `rank` and returns every block's, block 0's
  /// first, once all have published (the same `bytes` in each block). In a
  /// failed cluster: `size` copies of the block's own bytes, in a buffer of
  /// the calling thread (the shared one may still be read).
  void *exchange(int64_t rank, const void *values, int64_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (failed)
        return alone(values, bytes);
      // The last exchange's readers are done (clusterSync): resizing moves
      // nothing anybody reads.
      if (copies.size() < static_cast<size_t>(size * bytes))
        copies.resize(static_cast<size_t>(size * bytes));
      std::memcpy(copies.data() + rank * bytes, values,
                  static_cast<size_t>(bytes));
    }
    if (!arrive())
      return alone(values, bytes);
    return copies.data();
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mutex);
    ++finished;
    changed.notify_all();
  }
  bool ok() const { return !failed; }

private:
  void *alone(const void *values, int64_t bytes) {
    static thread_local std::vector<char> own;
    own.resize(static_cast<size_t>(size * bytes));
    for (int64_t r = 0; r < size; ++r)
      std::memcpy(own.data() + r * bytes, values, static_cast<size_t>(bytes));
    return own.data();
  }

  const int64_t size;
  std::mutex mutex;
  std::condition_variable changed;
  int64_t arrived = 0, finished = 0;
  uint64_t passed = 0;
  bool failed = false;
  std::vector<char> copies;
};

/// The cluster and rank of the block this thread runs.
struct ClusterMember {
  Cluster *cluster = nullptr;
  int64_t rank = 0;
};
inline ClusterMember &currentClusterMember() {
  static thread_local ClusterMember member;
  return member;
}

/// How runCluster ended.
enum class ClusterRun {
  Ok,
  BlockReturnedEarly, ///< a block returned while the others waited for it
  NoThreads           ///< the system would not start a thread for a block
};

/// Runs block(0) ... block(size - 1) of one cluster, each on its own thread
/// (this one runs block 0), so that a reduction can wait for all of them.
inline ClusterRun runCluster(int64_t size,
                             const std::function<void(int64_t)> &block) {
  Cluster cluster(size);
  auto run = [&](int64_t rank) {
    ClusterMember saved = currentClusterMember();
    currentClusterMember() = {&cluster, rank};
    block(rank);
    currentClusterMember() = saved;
    cluster.finish();
  };
  std::vector<std::thread> others;
  others.reserve(static_cast<size_t>(size));
  bool started = true;
  for (int64_t rank = 1; rank < size && started; ++rank) {
    try {
      others.emplace_back(run, rank);
    } catch (const std::system_error &) {
      // The blocks that could not start count as returned: the ones
      // already running fail their next reduction instead of waiting.
      started = false;
      for (int64_t missing = rank; missing < size; ++missing)
        cluster.finish();
    }
  }
  if (started)
    run(0);
  for (std::thread &t : others)
    t.join();
  if (!started)
    return ClusterRun::NoThreads;
  return cluster.ok() ? ClusterRun::Ok : ClusterRun::BlockReturnedEarly;
}

/// tlc_cpu_cluster_exchange / tlc_cpu_cluster_sync, which CPU kernels with
/// cluster reductions call (the stubs define them).
inline void *clusterExchange(void *values, int64_t bytes) {
  ClusterMember &m = currentClusterMember();
  return m.cluster->exchange(m.rank, values, bytes);
}
inline void clusterSync() { currentClusterMember().cluster->arrive(); }

} // namespace runtime
} // namespace tlc

/// Writes the status message into buf (truncated, NUL-terminated; "" on
/// success; buf may be NULL) and returns the status code.
inline int tlc_status_to_c(const tlc::Status &status, char *buf,
                           size_t len) noexcept {
  tlc::runtime::copyMessage(status.message.c_str(), buf, len);
  return status.code;
}

#endif /* __cplusplus */

#endif /* TLC_RUNTIME_TLC_RUNTIME_H */
