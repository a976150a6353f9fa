//===- StubCommon.cpp - Target-neutral parts of launch stub emitters ------===//
//
// Names, API declarations, argument checks, symbolic-dimension binding and
// grid expressions shared by the CPU and CUDA stub emitters.
//
//===----------------------------------------------------------------------===//
#include "StubCommon.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace tlc;
using namespace tlc::stub;
using llvm::StringRef;

/// C and C++ keywords and names the generated code relies on.
bool tlc::stub::isReservedName(StringRef name) {
  static const llvm::StringSet<> reserved = {
      // C++ keywords (C++20) and alternative tokens.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template",
      "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq", "final", "override", "import",
      "module",
      // C keywords that C++ lacks.
      "restrict", "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof",
      "_Atomic", "_Generic", "_Noreturn", "_Static_assert", "_Thread_local",
      // Names the stub uses.
      "std", "tlc", "options", "error", "error_len", "size_t", "int8_t",
      "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
      "uint64_t", "uintptr_t", "NULL", "assert", "errno", "main"};
  return reserved.contains(name);
}

std::string NameTable::add(StringRef name) {
  std::string s = name.str();
  if (isReservedName(s))
    s += "_";
  if (StringRef(s).starts_with_insensitive("tlc_") ||
      StringRef(s).starts_with("_"))
    s = "u" + std::string(s[0] == '_' ? "" : "_") + s;
  while (!used.insert(s).second)
    s += "_";
  return s;
}

namespace {

struct DTypeNames {
  const char *cType; // element type in memory (f16, bf16, f8 as their bits)
  const char *code;  // tlc_dtype enumerator
};

/// Indexed by DType, whose order tlc_dtype follows.
const DTypeNames &dtypeNames(DType t) {
  static const DTypeNames table[] = {
      {"double", "TLC_F64"},     {"float", "TLC_F32"},
      {"uint16_t", "TLC_F16"},   {"uint16_t", "TLC_BF16"},
      {"int64_t", "TLC_I64"},    {"int32_t", "TLC_I32"},
      {"int16_t", "TLC_I16"},    {"int8_t", "TLC_I8"},
      {"uint8_t", "TLC_U8"},     {"bool", "TLC_BOOL"},
      {"uint8_t", "TLC_F8E4M3"}, {"uint8_t", "TLC_F8E5M2"},
      {"uint8_t", "TLC_U4"},     {"uint8_t", "TLC_I4"}};
  return table[static_cast<unsigned>(t)];
}

std::string intLiteral(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min())
    return "(-9223372036854775807 - 1)";
  return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
}

std::string doubleLiteral(double v) {
  if (std::isnan(v))
    return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v))
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "(-std::numeric_limits<double>::infinity())";
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return v < 0 ? "(" + s + ")" : s;
}

/// Converts a printed value to the host type of `to`.
std::string convert(std::string s, HostKind from, HostKind to) {
  if (from == to)
    return s;
  if (to == HostKind::Float)
    return "static_cast<double>(" + s + ")";
  if (to == HostKind::Bool)
    return "(" + s + " != 0)";
  return "static_cast<int64_t>(" + s + ")";
}

} // namespace

StringRef tlc::stub::elementCType(DType t) { return dtypeNames(t).cType; }

StringRef tlc::stub::dtypeCode(DType t) { return dtypeNames(t).code; }

StubFiles StubBuilder::emit() {
  StubFiles files;
  {
    llvm::raw_string_ostream header(files.header);
    emitHeader(header, targetName(), abiComment());
  }
  emitSource(files.source);
  return files;
}

StubBuilder::StubBuilder(const KernelSignature &k,
                         const StubPlacement &placement)
    : k(k), placement(placement) {
  // The C++ function lives in tlc::kernels, where only keywords and the
  // namespaces used in its body can clash.
  fnName = k.name;
  if (isReservedName(fnName))
    fnName += "_";
  for (const SignatureArg &a : k.args)
    argNames.push_back(names.add(a.name));
  for (const SignatureDim &d : k.symDims)
    dimVars[d.name] = names.add(d.name);
}

bool StubBuilder::hasTensors() const {
  return llvm::any_of(k.args,
                      [](const SignatureArg &a) { return a.isTensor(); });
}

/// The C++ parameters of the kernel, without the launch options.
std::string StubBuilder::cxxParams() const {
  std::string s;
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (i)
      s += ", ";
    if (isTensor(i))
      s += "const tlc::TensorView &" + argNames[i];
    else
      s += elementCType(k.args[i].type.dtype).str() + " " + argNames[i];
  }
  return s;
}

std::string StubBuilder::cParams() const {
  std::string s;
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (isTensor(i))
      s += "const tlc_tensor *" + argNames[i];
    else
      s += elementCType(k.args[i].type.dtype).str() + " " + argNames[i];
    s += ", ";
  }
  return s + "const tlc_launch_options *options /* may be NULL */, "
             "char *error /* may be NULL */, size_t error_len";
}

std::string StubBuilder::argSummary() const {
  std::string s;
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (i)
      s += ", ";
    s += k.args[i].name;
    if (access(i) == ArgAccess::Out)
      s += " (out)";
    else if (access(i) == ArgAccess::InOut)
      s += " (inout)";
    std::string type = k.args[i].type.str();
    // Show dimensions fixed with -D next to their name: f32[M, K=64].
    for (const SignatureDim &d : k.symDims)
      if (d.staticValue)
        for (const DimPosition &u : d.uses)
          if (u.arg == i) {
            std::vector<Dim> shape = k.args[i].type.shape;
            type = dtypeName(k.args[i].type.dtype).str() + "[";
            for (size_t j = 0; j < shape.size(); ++j) {
              type += (j ? ", " : "") + shape[j].str();
              for (const SignatureDim &e : k.symDims)
                if (e.staticValue && e.name == shape[j].symbol)
                  type += "=" + std::to_string(*e.staticValue);
            }
            type += "]";
          }
    s += ": " + type;
  }
  return s.empty() ? "no arguments" : s;
}

/// A C name of the kernel that would clash with a runtime name.
bool StubBuilder::cNameClashes() const {
  return k.name == "tensor" || k.name == "dtype" ||
         k.name == "launch_options" || k.name == "status_to_c";
}

/// Text of the size a static dimension must have, for messages.
std::string StubBuilder::staticDimText(unsigned arg, unsigned dim,
                                       int64_t size) const {
  if (arg < k.args.size() && dim < k.args[arg].dimNames.size() &&
      !k.args[arg].dimNames[dim].empty())
    return k.args[arg].dimNames[dim] + " = " + std::to_string(size);
  return "the kernel expects " + std::to_string(size);
}

void StubBuilder::unsupported(StringRef what) {
  if (gridError.empty())
    gridError = what.str();
}

std::string StubBuilder::printConst(const ConstValue &c, HostKind kind) {
  switch (c.kind) {
  case ConstValue::Int:
    return kind == HostKind::Float ? doubleLiteral(double(c.i))
                                   : intLiteral(c.i);
  case ConstValue::Float:
    return kind == HostKind::Float ? doubleLiteral(c.f)
                                   : intLiteral(int64_t(c.f));
  case ConstValue::Bool:
    return c.b ? "true" : "false";
  case ConstValue::DTypeVal:
    break;
  }
  return "0";
}

/// Prints `e` as a C++ expression over int64_t (integers), double (floats)
/// and bool.
std::string StubBuilder::print(const GridExpr &e) {
  HostKind kind = e.type;
  switch (e.kind) {
  case GridExpr::Const:
    return printConst(e.value, kind);
  case GridExpr::SymDim:
    if (dimVars.count(e.name))
      return dimVars[e.name];
    unsupported("'" + e.name + "' is not known before the launch");
    return "0";
  case GridExpr::ScalarArg:
    if (e.arg < k.args.size() && !isTensor(e.arg)) {
      const Type &type = k.args[e.arg].type;
      // Arithmetic on an int32_t or uint8_t argument would be C++'s int
      // arithmetic (overflow undefined); the grid is computed in int64_t.
      if (kind == HostKind::Int && hostKindOf(type) == HostKind::Int &&
          type.kind == TypeKind::Scalar && bitWidth(type.dtype) < 64)
        return "static_cast<int64_t>(" + argNames[e.arg] + ")";
      return convert(argNames[e.arg], hostKindOf(type), kind);
    }
    unsupported("malformed grid argument");
    return "0";
  case GridExpr::Unary:
    if (e.operands.size() != 1)
      break;
    return "(" + e.op + print(e.operands[0]) + ")";
  case GridExpr::Binary:
    if (e.operands.size() != 2)
      break;
    return printBinary(e);
  case GridExpr::Select:
    if (e.operands.size() != 3)
      break;
    return "(" + print(e.operands[0]) + " ? " +
           convert(print(e.operands[1]), e.operands[1].type, kind) + " : " +
           convert(print(e.operands[2]), e.operands[2].type, kind) + ")";
  case GridExpr::Call:
    return printCall(e);
  case GridExpr::Cast:
    if (e.operands.size() != 1)
      break;
    return printCast(e);
  case GridExpr::Unsupported:
    unsupported(e.name);
    return "0";
  }
  unsupported("malformed grid expression");
  return "0";
}

std::string StubBuilder::printBinary(const GridExpr &e) {
  const GridExpr &lhs = e.operands[0], &rhs = e.operands[1];
  std::string l = print(lhs), r = print(rhs);
  HostKind operand = e.operandKind;
  bool logical = e.op == "&&" || e.op == "||";
  if (!logical && operand != HostKind::Bool) {
    l = convert(l, lhs.type, operand);
    r = convert(r, rhs.type, operand);
  }
  if (e.op == "/" || e.op == "%") {
    if (operand == HostKind::Float)
      return e.op == "/" ? "(" + l + " / " + r + ")"
                         : "std::fmod(" + l + ", " + r + ")";
    bool safe = rhs.kind == GridExpr::Const &&
                rhs.value.kind == ConstValue::Int && rhs.value.i != 0 &&
                rhs.value.i != -1;
    if (!safe)
      return std::string(e.op == "/" ? "tlc::runtime::checkedDiv("
                                     : "tlc::runtime::checkedRem(") +
             l + ", " + r + ", tlc_grid_failed)";
  }
  // Signature.cpp masked the amount to the type's width; the helpers keep
  // int64_t's shifts defined for negative values.
  if (e.op == "<<")
    return "tlc::runtime::shiftLeft(" + l + ", " + r + ")";
  if (e.op == ">>")
    return "tlc::runtime::shiftRight(" + l + ", " + r + ")";
  return "(" + l + " " + e.op + " " + r + ")";
}

std::string StubBuilder::printCast(const GridExpr &e) {
  DType to = e.castTo;
  const GridExpr &a = e.operands[0];
  HostKind from = a.type;
  std::string x = print(a);
  if (to == DType::Bool)
    return from == HostKind::Bool ? x : "(" + x + " != 0)";
  if (isFloat(to)) {
    std::string d = "static_cast<double>(" + x + ")";
    return to == DType::F64
               ? d
               : "static_cast<double>(static_cast<float>(" + x + "))";
  }
  if (to == DType::I64)
    return "static_cast<int64_t>(" + x + ")";
  return "static_cast<int64_t>(static_cast<" + elementCType(to).str() + ">(" +
         x + "))";
}

std::string StubBuilder::printCall(const GridExpr &e) {
  StringRef callee = e.name;
  HostKind kind = e.type;
  if (e.operands.size() == 2 && (callee == "cdiv" || callee == "min" ||
                                 callee == "max" || callee == "pow")) {
    const GridExpr &a = e.operands[0], &b = e.operands[1];
    HostKind operand = callee == "pow" ? HostKind::Float : kind;
    std::string x = convert(print(a), a.type, operand);
    std::string y = convert(print(b), b.type, operand);
    if (callee == "pow")
      return "std::pow(" + x + ", " + y + ")";
    if (callee == "cdiv") {
      if (b.kind == GridExpr::Const && b.value.kind == ConstValue::Int &&
          b.value.i > 0)
        return "tlc::cdiv(" + x + ", " + y + ")";
      return "tlc::runtime::checkedCdiv(" + x + ", " + y + ", tlc_grid_failed)";
    }
    std::string t = kind == HostKind::Float ? "double" : "int64_t";
    return "std::" + callee.str() + "<" + t + ">(" + x + ", " + y + ")";
  }
  if (e.operands.size() == 1) {
    const GridExpr &a = e.operands[0];
    std::string x = print(a);
    if (callee == "abs" && kind == HostKind::Int)
      return "std::abs(static_cast<int64_t>(" + x + "))";
    x = convert(x, a.type, HostKind::Float);
    if (callee == "rsqrt")
      return "(1.0 / std::sqrt(" + x + "))";
    if (callee == "sigmoid")
      return "(1.0 / (1.0 + std::exp(-" + x + ")))";
    if (callee == "abs")
      callee = "fabs";
    static const llvm::StringSet<> math = {"exp",  "exp2",  "log",  "log2",
                                           "sqrt", "tanh",  "erf",  "sin",
                                           "cos",  "floor", "ceil", "fabs"};
    if (math.contains(callee))
      return "std::" + callee.str() + "(" + x + ")";
  }
  unsupported("the grid calls '" + e.name +
              "', which cannot run before the launch");
  return "0";
}

//===--- Header ----------------------------------------------------------===//

void StubBuilder::emitHeader(llvm::raw_ostream &os, StringRef target,
                             StringRef abiComment) const {
  os << "// Generated by tlc: " << entity << " " << k.name << " (target "
     << target << "). Parameters: ";
  if (placement.dispatch && placement.dispatch->fillHeuristic)
    os << "per call, from " << placement.dispatch->variants.size()
       << " variants by grid size (the fill heuristic, see " << k.name
       << ".cpp)";
  else if (placement.dispatch)
    os << "per call, from " << placement.dispatch->variants.size()
       << " variants tuned in " << placement.dispatch->origin << " (see "
       << k.name << ".cpp)";
  else if (k.params.empty())
    os << "none";
  for (size_t i = 0; i < k.params.size() && !placement.dispatch; ++i)
    os << (i ? ", " : "") << k.params[i].first << "=" << k.params[i].second;
  bool anyFixed = false;
  for (const SignatureDim &d : k.symDims)
    if (d.staticValue) {
      os << (anyFixed ? ", " : ". Fixed dimensions: ") << d.name << "="
         << *d.staticValue;
      anyFixed = true;
    }
  os << ". Do not edit.\n";
  os << abiComment;
  if (!placement.variant)
    os << "#pragma once\n";
  os << "#include \"tlc/Runtime/tlc_runtime.h\"\n";
  if (cNameClashes())
    os << "#error \"tlc: the C entry point tlc_" << k.name
       << " of this kernel clashes with a runtime name; rename the "
          "kernel\"\n";
  os << "\n#ifdef __cplusplus\nnamespace tlc::kernels {\n";
  os << "/// " << argSummary() << "\n";
  os << "tlc::Status " << fnName << "(" << cxxParams()
     << (k.args.empty() ? "" : ", ")
     << "const tlc::LaunchOptions &options = {});\n";
  os << "} // namespace tlc::kernels\n\nextern \"C\" {\n#endif\n";
  os << "/// C entry point: returns TLC_OK (0) or a TLC_ERR_* code and, on "
        "error,\n/// writes a NUL-terminated message into `error` when it "
        "is not NULL.\n";
  os << "int tlc_" << k.name << "(" << cParams() << ");\n";
  os << "#ifdef __cplusplus\n}\n#endif\n";
}

//===--- Entry points ----------------------------------------------------===//

void StubBuilder::emitCxxEntry(
    llvm::raw_ostream &os,
    const std::function<void(llvm::raw_ostream &)> &body) const {
  std::string q = quotedName();
  os << "tlc::Status tlc::kernels::" << fnName << "(" << cxxParams()
     << (k.args.empty() ? "" : ", ")
     << "const tlc::LaunchOptions &options) {\n";
  os << "  try {\n";
  body(os);
  os << "  } catch (const std::exception &tlc_e) {\n"
     << "    return tlc::Status{TLC_ERR_RUNTIME, std::string(" << q
     << ") + \": \" + tlc_e.what()};\n"
     << "  } catch (...) {\n"
     << "    return tlc::Status{TLC_ERR_RUNTIME, std::string(" << q
     << ") + \": unknown exception\"};\n  }\n}\n\n";
}

void StubBuilder::emitCEntry(llvm::raw_ostream &os) const {
  const std::string &name = k.name;
  std::string q = quotedName();
  os << "extern \"C\" int tlc_" << name << "(" << cParams() << ") {\n";
  os << "  try {\n";
  for (unsigned i = 0; i < k.args.size(); ++i)
    if (isTensor(i))
      os << "    if (!" << argNames[i] << ")\n"
         << "      return tlc_status_to_c(tlc::runtime::invalidArgument("
         << "\"" << name << ": " << k.args[i].name
         << " is NULL\"), error, error_len);\n";
  os << "    tlc::LaunchOptions tlc_options;\n"
     << "    if (options)\n      tlc_options = *options;\n";
  os << "    return tlc_status_to_c(tlc::kernels::" << fnName << "(";
  for (unsigned i = 0; i < k.args.size(); ++i)
    os << (isTensor(i) ? "*" : "") << argNames[i] << ", ";
  os << "tlc_options), error, error_len);\n";
  os << "  } catch (const std::exception &tlc_e) {\n"
     << "    if (error && error_len)\n"
     << "      std::snprintf(error, error_len, \"%s: %s\", " << q
     << ", tlc_e.what());\n"
     << "  } catch (...) {\n"
     << "    tlc::runtime::copyMessage("
     << "\"" << name << ": unknown exception\", error, error_len);\n"
     << "  }\n  return TLC_ERR_RUNTIME;\n}\n";
}

//===--- Checks and grid -------------------------------------------------===//

void StubBuilder::emitHostValue(llvm::raw_ostream &os, StringRef name,
                                const std::string &value,
                                const std::string &what) {
  bool checked = StringRef(value).contains("tlc_grid_failed");
  os << "    {\n";
  if (checked)
    os << "      bool tlc_grid_failed = false;\n";
  os << "      const int64_t " << name << " = " << value << ";\n";
  if (checked)
    os << "      if (tlc_grid_failed)\n"
       << "        return tlc::runtime::invalidArgument(\"" << k.name << ": "
       << what << " divides by zero for these arguments\");\n";
}

void StubBuilder::emitArgumentChecks(llvm::raw_ostream &os) {
  std::string q = quotedName();
  // Tensors: dtype, rank, sizes, data, strides.
  if (hasTensors())
    os << "    tlc::Status tlc_status;\n";
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (!isTensor(i))
      continue;
    const Type &t = k.args[i].type;
    os << "    tlc_status = tlc::runtime::checkTensor(" << q << ", \""
       << k.args[i].name << "\", " << argNames[i] << ", " << dtypeCode(t.dtype)
       << ", " << t.rank() << ", \"" << t.str()
       << "\");\n    if (!tlc_status.ok())\n      return tlc_status;\n";
  }
  // Symbolic dimensions: bound by their first use (or fixed by -D).
  for (const SignatureDim &d : k.symDims) {
    if (d.uses.empty())
      continue;
    const std::string &var = dimVars[d.name];
    std::string from;
    if (d.staticValue) {
      os << "    [[maybe_unused]] const int64_t " << var << " = "
         << *d.staticValue << ";\n";
      from = "\"" + d.name + " = " + std::to_string(*d.staticValue) +
             " (fixed with -D " + d.name + "=" +
             std::to_string(*d.staticValue) + ")\"";
    } else {
      const DimPosition &u = d.uses.front();
      os << "    [[maybe_unused]] const int64_t " << var << " = "
         << argNames[u.arg] << ".shape[" << u.dim << "];\n";
      from = "\"" + d.name + " = \" + std::to_string(" + var + ") + \" (from " +
             k.args[u.arg].name + ".shape[" + std::to_string(u.dim) + "])\"";
    }
    for (size_t j = d.staticValue ? 0 : 1; j < d.uses.size(); ++j) {
      const DimPosition &u = d.uses[j];
      std::string a = argNames[u.arg] + ".shape[" + std::to_string(u.dim) + "]";
      os << "    if (" << a << " != " << var << ")\n"
         << "      return tlc::runtime::dimMismatch(" << q << ", \""
         << k.args[u.arg].name << "\", " << u.dim << ", " << a << ", " << from
         << ");\n";
    }
  }

  // Fixed dimensions.
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (!isTensor(i))
      continue;
    const Type &t = k.args[i].type;
    for (unsigned d = 0; d < t.rank(); ++d) {
      if (!t.shape[d].isStatic())
        continue;
      std::string a = argNames[i] + ".shape[" + std::to_string(d) + "]";
      os << "    if (" << a << " != " << t.shape[d].size << ")\n"
         << "      return tlc::runtime::dimMismatch(" << q << ", \""
         << k.args[i].name << "\", " << d << ", " << a << ", \""
         << staticDimText(i, d, t.shape[d].size) << "\");\n";
    }
  }
  // Dimensions given by expressions of the others.
  for (const DerivedDim &d : k.derivedDims) {
    std::string a = argNames[d.arg] + ".shape[" + std::to_string(d.dim) + "]";
    emitHostValue(os, "tlc_size", print(d.value),
                  "the size " + d.text + " of " + k.args[d.arg].name +
                      ".shape[" + std::to_string(d.dim) + "]");
    os << "      if (" << a << " != tlc_size)\n"
       << "        return tlc::runtime::dimMismatch(" << q << ", \""
       << k.args[d.arg].name << "\", " << d.dim << ", " << a << ", \"" << d.text
       << " = \" + std::to_string(tlc_size));\n"
       << "    }\n";
  }
  // Tensors the kernel views with another shape.
  for (const ViewedTensor &v : k.views) {
    std::string dims;
    for (const GridExpr &d : v.shape)
      dims += (dims.empty() ? "" : ", ") + print(d);
    emitHostValue(os, "tlc_view[]", "{" + dims + "}",
                  "the view " + v.text + " of " + k.args[v.arg].name);
    os << "      tlc_status = tlc::runtime::checkViewable(" << q << ", \""
       << k.args[v.arg].name << "\", " << argNames[v.arg] << ", tlc_view, "
       << v.shape.size() << ", \"" << v.text << "\");\n"
       << "      if (!tlc_status.ok())\n"
       << "        return tlc_status;\n"
       << "    }\n";
  }
  // Packed tensors as the bytes the kernel addresses.
  for (unsigned i = 0; i < k.args.size(); ++i)
    if (isTensor(i) && isPacked(k.args[i].type.dtype))
      os << "    const tlc::TensorView " << launchName(i)
         << " = tlc::runtime::packedBytes(" << argNames[i] << ");\n";
  // Outputs against every other tensor (each pair of outputs once), once
  // the shapes are known to be right.
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (!isTensor(i) || access(i) == ArgAccess::In)
      continue;
    for (unsigned j = 0; j < k.args.size(); ++j) {
      if (j == i || !isTensor(j) || (access(j) != ArgAccess::In && j > i))
        continue;
      os << "    tlc_status = tlc::runtime::checkNoOverlap(" << q << ", \""
         << k.args[i].name << "\", " << launchName(i) << ", \""
         << k.args[j].name << "\", " << launchName(j)
         << ");\n    if (!tlc_status.ok())\n      return tlc_status;\n";
    }
  }
}

void StubBuilder::emitGrid(llvm::raw_ostream &os) {
  const std::string &name = k.name;
  std::string extents[3] = {"1", "1", "1"};
  for (size_t g = 0; g < k.grid.size() && g < 3; ++g)
    extents[g] = print(k.grid[g]);
  if (!gridError.empty())
    os << "#error \"tlc: kernel " << name << ": " << gridError << "\"\n";
  bool usesFlag = llvm::any_of(extents, [](const std::string &s) {
    return StringRef(s).contains("tlc_grid_failed");
  });
  if (usesFlag)
    os << "    bool tlc_grid_failed = false;\n";
  static const char *const gridVars[3] = {"tlc_gx", "tlc_gy", "tlc_gz"};
  for (int g = 0; g < 3; ++g)
    os << "    const int64_t " << gridVars[g] << " = " << extents[g] << ";\n";
  if (usesFlag)
    os << "    if (tlc_grid_failed)\n"
       << "      return tlc::runtime::invalidArgument(\"" << name
       << ": the grid divides by zero for these arguments\");\n";
  os << "    if (tlc_gx <= 0 || tlc_gy <= 0 || tlc_gz <= 0)\n"
     << "      return tlc::Status{}; // empty grid: nothing to run\n";
  if (k.cluster > 1)
    os << "    if (tlc_gx % " << k.cluster << " != 0)\n"
       << "      return tlc::runtime::invalidArgument(\"" << name
       << ": the grid's x extent \" + std::to_string(tlc_gx) + \" is not a "
          "multiple of the kernel's cluster("
       << k.cluster << ")\");\n";
}

//===--- Tuned kernels ---------------------------------------------------===//

void StubBuilder::emitSourcePrologue(llvm::raw_ostream &os) const {
  os << "// Generated by tlc: launch stub of kernel " << k.name << " (target "
     << targetName() << ")";
  if (placement.variant)
    os << ", a variant of a tuned kernel";
  os << ". Do not edit.\n";
  if (!placement.variant)
    os << "#include \"" << placement.headerName << "\"\n\n";
}

void StubBuilder::emitVariantCall(llvm::raw_ostream &os,
                                  const char *shapeArray) const {
  const DispatchTable &table = *placement.dispatch;
  os << "    if (tlc::runtime::traceDispatch())\n"
     << "      tlc::runtime::printDispatch(" << quotedName() << ", {";
  for (size_t d = 0; d < k.symDims.size(); ++d)
    os << (d ? ", " : "") << "\"" << k.symDims[d].name << "\"";
  os << "}, " << shapeArray << ", tlc_variant, tlc_variant_params_" << k.name
     << "[tlc_variant]);\n";
  os << "    switch (tlc_variant) {\n";
  for (size_t v = 0; v < table.variants.size(); ++v) {
    os << "    case " << v
       << ":\n      return tlc::kernels::" << table.variants[v]->name << "(";
    for (unsigned i = 0; i < k.args.size(); ++i)
      os << argNames[i] << ", ";
    os << "options);\n";
  }
  os << "    }\n    return tlc::Status{TLC_ERR_RUNTIME, " << quotedName()
     << " \": no variant for this shape\"};\n";
}

void StubBuilder::emitVariantLabels(llvm::raw_ostream &os) const {
  const DispatchTable &table = *placement.dispatch;
  os << "const char *const tlc_variant_params_" << k.name << "[] = {\n";
  for (const std::string &label : table.labels)
    os << "    \"" << label << "\",\n";
  os << "};\n";
}

void StubBuilder::emitFillDispatch(llvm::raw_ostream &os) {
  const DispatchTable &table = *placement.dispatch;
  os << "\n// " << k.name
     << ": the variant with the largest tiles whose grid fills the machine\n"
        "// (tlc::runtime::fillingVariant); no tuning database names it.\n";
  os << "namespace {\n";
  emitVariantLabels(os);
  os << "} // namespace\n\n";
  emitCxxEntry(os, [&](llvm::raw_ostream &os) {
    // The dimensions bound and checked as the variants do (they check
    // again), then every variant's grid for them.
    emitArgumentChecks(os);
    size_t numDims = std::max<size_t>(k.symDims.size(), 1);
    os << "    const int64_t tlc_shape[" << numDims << "] = {";
    for (size_t d = 0; d < numDims; ++d)
      os << (d ? ", " : "")
         << (d < k.symDims.size() ? dimVars[k.symDims[d].name] : "0");
    os << "};\n";
    os << "    bool tlc_grid_failed = false;\n";
    os << "    const int64_t tlc_blocks[" << table.variants.size() << "] = {\n";
    for (const KernelSignature *variant : table.variants) {
      std::string blocks;
      for (size_t g = 0; g < variant->grid.size() && g < 3; ++g)
        blocks += (g ? " * " : "") + std::string("int64_t(") +
                  print(variant->grid[g]) + ")";
      os << "        " << (blocks.empty() ? "1" : blocks) << ",\n";
    }
    os << "    };\n";
    os << "    (void)tlc_grid_failed; // the variant reports it\n";
    bool perUnit = false;
    for (size_t v = 0; v < table.variants.size(); ++v)
      perUnit |= fillBlocksPerUnit(v) > 0;
    if (perUnit) {
      // What one unit holds of each variant at once: a variant of large
      // tiles fills the machine with fewer blocks.
      os << "    static const int64_t tlc_per_unit[" << table.variants.size()
         << "] = {";
      for (size_t v = 0; v < table.variants.size(); ++v)
        os << (v ? ", " : "") << fillBlocksPerUnit(v);
      os << "};\n";
    }
    os << "    int tlc_variant = tlc::runtime::fillingVariant(tlc_blocks, "
       << table.variants.size() << ", " << fillUnits()
       << (perUnit ? ", tlc_per_unit" : "") << ");\n";
    emitVariantCall(os, "tlc_shape");
  });
  emitCEntry(os);
}

void StubBuilder::emitDispatchSource(llvm::raw_ostream &os) {
  const DispatchTable &table = *placement.dispatch;
  os << placement.variantSources;
  if (table.fillHeuristic)
    return emitFillDispatch(os);
  os << "\n// " << k.name
     << ": the variant of the bucket nearest to the "
        "call's shape\n// (tlc::runtime::nearestBucket), from "
     << table.origin << ".\n";
  os << "namespace {\n";
  size_t numDims = std::max<size_t>(k.symDims.size(), 1);
  os << "const int64_t tlc_buckets_" << k.name << "[][" << numDims << "] = {\n";
  for (const DispatchTable::Bucket &bucket : table.buckets) {
    os << "    {";
    for (size_t d = 0; d < numDims; ++d) {
      int64_t size = 0; // a dimension the bucket does not name
      if (d < k.symDims.size())
        for (const auto &[name, value] : bucket.shape)
          if (name == k.symDims[d].name)
            size = value;
      os << (d ? ", " : "") << size;
    }
    os << "}, // variant " << bucket.variant << "\n";
  }
  os << "};\nconst int tlc_variant_of_bucket_" << k.name << "[] = {";
  for (size_t b = 0; b < table.buckets.size(); ++b)
    os << (b ? ", " : "") << table.buckets[b].variant;
  os << "};\n";
  emitVariantLabels(os);
  os << "} // namespace\n\n";

  emitCxxEntry(os, [&](llvm::raw_ostream &os) {
    os << "    const int64_t tlc_shape[" << numDims << "] = {";
    for (size_t d = 0; d < numDims; ++d) {
      os << (d ? ", " : "");
      if (d >= k.symDims.size() || k.symDims[d].uses.empty()) {
        os << "0";
        continue;
      }
      // The first use binds it; the variant checks every use.
      DimPosition use = k.symDims[d].uses.front();
      os << argNames[use.arg] << ".shape[" << use.dim << "]";
    }
    os << "};\n";
    os << "    int tlc_bucket = tlc::runtime::nearestBucket(tlc_shape, "
          "&tlc_buckets_"
       << k.name << "[0][0], " << table.buckets.size() << ", " << numDims
       << ");\n";
    os << "    int tlc_variant = tlc_variant_of_bucket_" << k.name
       << "[tlc_bucket];\n";
    emitVariantCall(os, "tlc_shape");
  });
  emitCEntry(os);
}

void EmbeddedBinaryStub::emitSource(std::string &out) {
  llvm::raw_string_ostream os(out);
  emitSourcePrologue(os);
  os << "#include \"" << runtimeHeader() << "\"\n\n";
  os << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n"
        "#include <cstdio>\n#include <cstdlib>\n#include <exception>\n"
        "#include <limits>\n#include <string>\n\n";
  if (placement.dispatch)
    return emitDispatchSource(os);
  if (!placement.binaryEmbedded)
    emitBinary(os);
  emitCxxEntry(os, [&](llvm::raw_ostream &os) { emitBody(os); });
  emitCEntry(os);
}

std::string EmbeddedBinaryStub::binaryVar() const {
  return placement.binaryName.empty() ? "tlc_binary_" + k.name
                                      : placement.binaryName;
}

std::string EmbeddedBinaryStub::binarySizeVar() const {
  return placement.binaryName.empty() ? "tlc_binary_size_" + k.name
                                      : placement.binaryName + "_size";
}
