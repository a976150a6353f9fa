//===- PythonEmitter.cpp - Python bindings of a .tl file's kernels --------===//
//
// -emit=python writes STEM.py: a pure-Python module (ctypes only, nothing
// compiled, no Python needed to build it) that loads the shared library
// built from the launch stubs and calls each kernel's C entry point with
// NumPy arrays or PyTorch tensors. The C ABI it uses is docs/abi.md's; the
// module's own API is docs/python.md.
//
//===----------------------------------------------------------------------===//
#include "tlc/Stub/StubEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;

namespace {

/// The module's own names and Python's keywords: a kernel or argument
/// with one of these names gets a trailing underscore.
bool isReservedPythonName(llvm::StringRef name) {
  static const char *const reserved[] = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break",
      "class", "continue", "def", "del", "elif", "else", "except", "finally",
      "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
      "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      "load", "packed4", "Packed4", "TlcError", "TARGET", "KERNELS",
      "num_threads", "stream",
      // Builtins the module's own code calls.
      "len", "any", "zip", "enumerate", "reversed", "hasattr", "getattr",
      "isinstance", "str", "tuple", "max", "min", "int", "type", "super",
      "range", "list", "dict", "print", "bool", "float", "object"};
  return llvm::is_contained(reserved, name) || name.starts_with("_");
}

std::string pythonName(llvm::StringRef name) {
  return isReservedPythonName(name) ? name.str() + "_" : name.str();
}

/// The ctypes type of a scalar argument (its C type in the stub's API).
std::string ctypesOf(DType t) {
  llvm::StringRef c = stub::elementCType(t);
  if (c == "float")
    return "_ct.c_float";
  if (c == "double")
    return "_ct.c_double";
  if (c == "bool")
    return "_ct.c_bool";
  // int64_t, int32_t, int16_t, int8_t, uint8_t
  return "_ct.c_" + c.drop_back(2).str();
}

/// The part of the module that does not depend on the kernels.
const char *const kRuntime = R"PY(
import ctypes as _ct
import os as _os
import sys as _sys


class TlcError(RuntimeError):
    """A launch the stub refused or that failed: `code` is the TLC_ERR_*
    status (-1 invalid argument, -2 alignment, -3 runtime), the message
    says what was wrong."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Tensor(_ct.Structure):
    _fields_ = [("data", _ct.c_void_p), ("dtype", _ct.c_int32),
                ("rank", _ct.c_int32), ("shape", _ct.c_int64 * 8),
                ("strides", _ct.c_int64 * 8)]


class _Options(_ct.Structure):
    _fields_ = [("num_threads", _ct.c_int32), ("stream", _ct.c_void_p)]


# tlc_dtype codes by NumPy / PyTorch dtype name (bfloat16 and the float8
# types: ml_dtypes for NumPy).
_DTYPES = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3,
           "int64": 4, "int32": 5, "int16": 6, "int8": 7, "uint8": 8,
           "bool": 9, "float8_e4m3fn": 10, "float8_e5m2": 11}


class Packed4:
    """A uint8 array or tensor [..., K / 2] of 4-bit values packed two per
    byte (element 2c in the low nibble of byte c), passed as the u4 (or,
    with signed=True, i4) tensor [..., K] it holds."""

    def __init__(self, data, signed=False):
        self.data, self.signed = data, signed


def packed4(data, signed=False):
    return Packed4(data, signed)


_lib = None


def load(path=None):
    """Loads the shared library built from the stubs (and, on the CPU, the
    kernels' object): `path`, else $TLC_LIBRARY_<STEM>, else the library
    file named below (_LIBRARY_FILE) next to this module. The first call of
    a kernel loads it."""
    global _lib
    if path is None:
        path = _os.environ.get(_LIBRARY_VAR) or _os.path.join(
            _os.path.dirname(_os.path.abspath(__file__)), _LIBRARY_FILE)
    lib = _ct.CDLL(path)
    for name, params in _PROTOTYPES.items():
        fn = getattr(lib, "tlc_" + name)
        fn.argtypes = [_ct.POINTER(_Tensor) if p is None else p
                       for p in params] + [_ct.POINTER(_Options),
                                           _ct.c_char_p, _ct.c_size_t]
        fn.restype = _ct.c_int
    _lib = lib
    return lib


def _library():
    return _lib if _lib is not None else load()


def _describe(x, kernel, name, writes):
    """The tlc_tensor of a NumPy array or PyTorch tensor, and its device
    ("cpu", "cuda")."""
    code = None
    if isinstance(x, Packed4):
        code = 13 if x.signed else 12
        x = x.data
    if hasattr(x, "data_ptr") and hasattr(x, "stride"):  # PyTorch
        dtype = str(x.dtype).replace("torch.", "")
        device = x.device.type
        ptr, shape, strides = x.data_ptr(), tuple(x.shape), tuple(x.stride())
    elif hasattr(x, "__array_interface__"):  # NumPy and alike
        ai = x.__array_interface__
        dtype, itemsize = x.dtype.name, x.dtype.itemsize
        device = "cpu"
        ptr, readonly = ai["data"]
        shape = tuple(ai["shape"])
        if ai.get("strides") is None:
            strides, step = [], 1
            for size in reversed(shape):
                strides.insert(0, step)
                step *= max(size, 1)
        else:
            if any(s % itemsize for s in ai["strides"]):
                raise ValueError("%s: %s has strides %s that are not "
                                 "multiples of its element size" %
                                 (kernel, name, ai["strides"]))
            strides = [s // itemsize for s in ai["strides"]]
        if writes and readonly:
            raise ValueError("%s: %s is written by the kernel but is "
                             "read-only" % (kernel, name))
    else:
        raise TypeError("%s: %s must be a NumPy array or a PyTorch tensor, "
                        "got %s" % (kernel, name, type(x).__name__))
    if code is None:
        code = _DTYPES.get(dtype)
        if code is None:
            raise TypeError("%s: %s has dtype %s, which tlc has no code for"
                            % (kernel, name, dtype))
    elif dtype != "uint8":
        raise TypeError("%s: packed4(%s) needs uint8 data, got %s" %
                        (kernel, name, dtype))
    if len(shape) > 8:
        raise ValueError("%s: %s has rank %d; tlc tensors have at most 8"
                         % (kernel, name, len(shape)))
    if device != _DEVICE:
        raise ValueError("%s: %s is in %s memory but the kernels run on %s "
                         "(%s memory)" % (kernel, name, device, TARGET,
                                          _DEVICE))
    t = _Tensor()
    t.data = ptr or None
    t.dtype = code
    t.rank = len(shape)
    for d, (size, stride) in enumerate(zip(shape, strides)):
        last = d == len(shape) - 1
        # A packed row holds twice as many elements as bytes.
        t.shape[d] = size * 2 if code >= 12 and last else size
        t.strides[d] = stride * 2 if code >= 12 and not last else stride
    return t, x


def _launch(kernel, tensors, scalars, order, num_threads, stream):
    """Calls tlc_<kernel>: `order` lists ("t", i) / ("s", i) per C
    parameter."""
    if stream is None and _DEVICE == "cuda":
        torch = _sys.modules.get("torch")
        if torch is not None and any(
                hasattr(keep, "data_ptr") for _, keep in tensors.values()):
            stream = torch.cuda.current_stream().cuda_stream
    if stream is not None and not isinstance(stream, int):
        stream = getattr(stream, "cuda_stream", stream)
    options = _Options(num_threads, stream or None)
    error = _ct.create_string_buffer(1024)
    args = [_ct.byref(tensors[i][0]) if kind == "t" else scalars[i]
            for kind, i in order]
    fn = getattr(_library(), "tlc_" + kernel)
    rc = fn(*args, _ct.byref(options), error, _ct.sizeof(error))
    if rc != 0:
        raise TlcError(rc, error.value.decode("utf-8", "replace"))
)PY";

} // namespace

std::string
tlc::emitPythonModule(llvm::StringRef stem, llvm::StringRef sourceFile,
                      llvm::StringRef target, llvm::StringRef library,
                      llvm::ArrayRef<const KernelSignature *> entries) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string stemUpper = stem.upper();
  for (char &c : stemUpper)
    if (!llvm::isAlnum(c))
      c = '_';
  os << "# Generated by tlc from " << sourceFile << " (target " << target
     << "). Do not edit.\n";
  os << "\"\"\"Python bindings of the tlc kernels in " << sourceFile
     << " (target " << target << ").\n\n"
     << "Build the library from the stubs (and, on the CPU, the kernels' "
        "object),\nfor example `c++ -shared -fPIC -O2 -I<tlc include> "
     << stem << ".tlc.cpp " << (target == "cpu" ? stem + ".o " : "") << "-o lib"
     << stem
     << ".so`,\nthen call the kernels with NumPy arrays or PyTorch tensors. "
        "See docs/python.md.\n\"\"\"\n";
  os << kRuntime;
  os << "\nTARGET = \"" << target << "\"\n";
  os << "_DEVICE = \"" << (target == "cpu" ? "cpu" : "cuda") << "\"\n";
  os << "_LIBRARY_VAR = \"TLC_LIBRARY_" << stemUpper << "\"\n";
  os << "_LIBRARY_FILE = \"" << library << "\"\n";
  os << "KERNELS = (";
  for (const KernelSignature *k : entries)
    os << "\"" << k->name << "\", ";
  os << ")\n";
  // The C parameters of every entry point (None: a tensor).
  os << "_PROTOTYPES = {\n";
  for (const KernelSignature *k : entries) {
    os << "    \"" << k->name << "\": [";
    for (const SignatureArg &a : k->args)
      os << (a.isTensor() ? std::string("None") : ctypesOf(a.type.dtype))
         << ", ";
    os << "],\n";
  }
  os << "}\n";

  for (const KernelSignature *k : entries) {
    std::vector<std::string> names;
    std::string summary;
    for (const SignatureArg &a : k->args) {
      names.push_back(pythonName(a.name));
      if (!summary.empty())
        summary += ", ";
      summary += a.name;
      if (a.access == ArgAccess::Out)
        summary += " (out)";
      else if (a.access == ArgAccess::InOut)
        summary += " (inout)";
      summary += ": " + a.type.str();
    }
    os << "\n\ndef " << pythonName(k->name) << "(";
    for (const std::string &n : names)
      os << n << ", ";
    os << "*, num_threads=0, stream=None):\n";
    os << "    \"\"\"" << k->name << "(" << summary << ")";
    if (!k->params.empty()) {
      os << "\n\n    Compiled with ";
      for (size_t p = 0; p < k->params.size(); ++p)
        os << (p ? ", " : "") << k->params[p].first << "="
           << k->params[p].second;
      os << ".";
    }
    os << "\n    num_threads: CPU worker threads (0: all); stream: the CUDA "
          "stream\n    (default: PyTorch's current stream when a tensor "
          "is PyTorch's).\n    Raises TlcError with the stub's message when "
          "the launch fails.\n    \"\"\"\n";
    os << "    _tlc_tensors, _tlc_scalars = {}, {}\n";
    for (size_t i = 0; i < k->args.size(); ++i) {
      const SignatureArg &a = k->args[i];
      if (a.isTensor())
        os << "    _tlc_tensors[" << i << "] = _describe(" << names[i] << ", \""
           << k->name << "\", \"" << a.name << "\", "
           << (a.access == ArgAccess::In ? "False" : "True") << ")\n";
      else
        os << "    _tlc_scalars[" << i << "] = " << names[i] << "\n";
    }
    os << "    _launch(\"" << k->name << "\", _tlc_tensors, _tlc_scalars, [";
    for (size_t i = 0; i < k->args.size(); ++i)
      os << "(\"" << (k->args[i].isTensor() ? "t" : "s") << "\", " << i
         << "), ";
    os << "], num_threads, stream)\n";
  }
  return text;
}
