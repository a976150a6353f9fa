//===- KernelSignature.cpp - The kernel signature as an MLIR attribute ----===//
//
// tile.signature = {name, threads, params, args, dims, grid}: plain
// dictionaries, arrays, strings and integers, so the attribute prints,
// parses and survives every pass that keeps discardable attributes.
//
//===----------------------------------------------------------------------===//
#include "tlc/Stub/KernelSignature.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tlc;

namespace {

/// Builds a dictionary attribute entry by entry.
struct Dict {
  explicit Dict(MLIRContext *ctx) : b(ctx) {}
  Builder b;
  SmallVector<NamedAttribute> entries;
  Dict &set(StringRef key, Attribute value) {
    entries.push_back(b.getNamedAttr(key, value));
    return *this;
  }
  Dict &setInt(StringRef key, int64_t v) {
    return set(key, b.getI64IntegerAttr(v));
  }
  Dict &setStr(StringRef key, StringRef v) {
    return set(key, b.getStringAttr(v));
  }
  DictionaryAttr get() { return b.getDictionaryAttr(entries); }
};

/// A constant as the attribute of its kind: i64, f64, bool or a dtype name.
Attribute constToAttr(MLIRContext *ctx, const ConstValue &c) {
  Builder b(ctx);
  switch (c.kind) {
  case ConstValue::Int:
    return b.getI64IntegerAttr(c.i);
  case ConstValue::Float:
    return b.getF64FloatAttr(c.f);
  case ConstValue::Bool:
    return b.getBoolAttr(c.b);
  case ConstValue::DTypeVal:
    return b.getStringAttr(dtypeName(c.dtype));
  }
  return {};
}

const char *const kExprKinds[] = {"const", "dim",    "arg",
                                  "unary", "binary", "select",
                                  "call",  "cast",   "unsupported"};
const char *const kHostKinds[] = {"int", "float", "bool"};
const char *const kAccess[] = {"in", "out", "inout"};

Attribute typeToAttr(MLIRContext *ctx, const tlc::Type &t) {
  Builder b(ctx);
  Dict d(ctx);
  d.setStr("kind", t.kind == TypeKind::Tensor ? "tensor" : "scalar");
  d.setStr("dtype", dtypeName(t.dtype));
  SmallVector<Attribute> dims;
  for (const Dim &dim : t.shape)
    dims.push_back(dim.isStatic() ? Attribute(b.getI64IntegerAttr(dim.size))
                                  : Attribute(b.getStringAttr(dim.symbol)));
  d.set("shape", b.getArrayAttr(dims));
  return d.get();
}

/// Only the fields the node's kind uses.
ArrayAttr exprsToAttr(MLIRContext *ctx, llvm::ArrayRef<GridExpr> list);

Attribute exprToAttr(MLIRContext *ctx, const GridExpr &e) {
  Builder b(ctx);
  Dict d(ctx);
  d.setStr("kind", kExprKinds[e.kind]);
  d.setStr("type", kHostKinds[static_cast<int>(e.type)]);
  switch (e.kind) {
  case GridExpr::Const:
    d.set("value", constToAttr(ctx, e.value));
    break;
  case GridExpr::SymDim:
  case GridExpr::Call:
  case GridExpr::Unsupported:
    d.setStr("name", e.name);
    break;
  case GridExpr::ScalarArg:
    d.setInt("arg", e.arg);
    break;
  case GridExpr::Unary:
    d.setStr("op", e.op);
    break;
  case GridExpr::Binary:
    d.setStr("op", e.op);
    d.setStr("operand_type", kHostKinds[static_cast<int>(e.operandKind)]);
    break;
  case GridExpr::Cast:
    d.setStr("cast_to", dtypeName(e.castTo));
    break;
  case GridExpr::Select:
    break;
  }
  if (!e.operands.empty())
    d.set("operands", exprsToAttr(ctx, e.operands));
  return d.get();
}

ArrayAttr exprsToAttr(MLIRContext *ctx, llvm::ArrayRef<GridExpr> list) {
  SmallVector<Attribute> attrs;
  for (const GridExpr &e : list)
    attrs.push_back(exprToAttr(ctx, e));
  return ArrayAttr::get(ctx, attrs);
}

// Reading: each getter fails (nullopt) on a missing or mistyped entry.
std::optional<int64_t> getInt(DictionaryAttr d, StringRef key) {
  if (auto a = d ? d.getAs<IntegerAttr>(key) : IntegerAttr())
    return a.getInt();
  return std::nullopt;
}
std::optional<std::string> getStr(DictionaryAttr d, StringRef key) {
  if (auto a = d ? d.getAs<StringAttr>(key) : StringAttr())
    return a.str();
  return std::nullopt;
}
ArrayAttr getArray(DictionaryAttr d, StringRef key) {
  return d ? d.getAs<ArrayAttr>(key) : ArrayAttr();
}

std::optional<DType> getDType(DictionaryAttr d, StringRef key) {
  if (auto s = getStr(d, key))
    return parseDType(*s);
  return std::nullopt;
}

std::optional<ConstValue> constFromAttr(Attribute a) {
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a)) {
    if (i.getType().isInteger(1))
      return ConstValue::ofBool(i.getValue().getBoolValue());
    return ConstValue::ofInt(i.getInt());
  }
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return ConstValue::ofFloat(f.getValueAsDouble());
  if (auto s = llvm::dyn_cast_or_null<StringAttr>(a))
    if (std::optional<DType> t = parseDType(s.strref())) {
      ConstValue c;
      c.kind = ConstValue::DTypeVal;
      c.dtype = *t;
      return c;
    }
  return std::nullopt;
}

} // namespace

const char *const tlc::kGridUnaryOps[3] = {"-", "!", "~"};
const char *const tlc::kGridBinaryOps[18] = {"+",  "-", "*",  "/",  "%",  "<",
                                             "<=", ">", ">=", "==", "!=", "&&",
                                             "||", "&", "|",  "^",  "<<", ">>"};

namespace {

/// The index of `name` in `names`, or -1.
template <size_t N> int indexOf(const char *const (&names)[N], StringRef name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i])
      return i;
  return -1;
}

std::optional<tlc::Type> typeFromAttr(DictionaryAttr d) {
  auto kind = getStr(d, "kind");
  auto dtype = getDType(d, "dtype");
  ArrayAttr shape = getArray(d, "shape");
  if (!kind || !dtype || !shape)
    return std::nullopt;
  std::vector<Dim> dims;
  for (Attribute a : shape) {
    Dim dim;
    if (auto i = llvm::dyn_cast<IntegerAttr>(a))
      dim.size = i.getInt();
    else if (auto s = llvm::dyn_cast<StringAttr>(a))
      dim.symbol = s.str();
    else
      return std::nullopt;
    dims.push_back(dim);
  }
  if (*kind == "tensor")
    return tlc::Type::tile(*dtype, tlc::MemScope::Global, dims);
  return tlc::Type::scalar(*dtype);
}

bool exprsFromAttr(ArrayAttr list, std::vector<GridExpr> &out);

std::optional<GridExpr> exprFromAttr(DictionaryAttr d) {
  auto kindName = getStr(d, "kind"), typeName = getStr(d, "type");
  if (!kindName || !typeName)
    return std::nullopt;
  int kind = indexOf(kExprKinds, *kindName),
      type = indexOf(kHostKinds, *typeName);
  if (kind < 0 || type < 0)
    return std::nullopt;
  GridExpr e;
  e.kind = static_cast<GridExpr::Kind>(kind);
  e.type = static_cast<HostKind>(type);
  switch (e.kind) {
  case GridExpr::Const: {
    auto value = constFromAttr(d.get("value"));
    if (!value)
      return std::nullopt;
    e.value = *value;
    break;
  }
  case GridExpr::SymDim:
  case GridExpr::Call:
  case GridExpr::Unsupported: {
    auto name = getStr(d, "name");
    if (!name)
      return std::nullopt;
    e.name = *name;
    break;
  }
  case GridExpr::ScalarArg: {
    auto arg = getInt(d, "arg");
    if (!arg || *arg < 0)
      return std::nullopt;
    e.arg = *arg;
    break;
  }
  case GridExpr::Binary: {
    auto operandType = getStr(d, "operand_type");
    int k = operandType ? indexOf(kHostKinds, *operandType) : -1;
    if (k < 0)
      return std::nullopt;
    e.operandKind = static_cast<HostKind>(k);
    [[fallthrough]];
  }
  case GridExpr::Unary: {
    // The operator is printed into the stub's C++: only known spellings.
    auto op = getStr(d, "op");
    if (!op || (e.kind == GridExpr::Unary ? indexOf(kGridUnaryOps, *op)
                                          : indexOf(kGridBinaryOps, *op)) < 0)
      return std::nullopt;
    e.op = *op;
    break;
  }
  case GridExpr::Cast: {
    auto castTo = getDType(d, "cast_to");
    if (!castTo)
      return std::nullopt;
    e.castTo = *castTo;
    break;
  }
  case GridExpr::Select:
    break;
  }
  if (ArrayAttr operands = getArray(d, "operands"))
    if (!exprsFromAttr(operands, e.operands))
      return std::nullopt;
  return e;
}

/// Appends the expressions of `list` to `out`; false if one is malformed.
bool exprsFromAttr(ArrayAttr list, std::vector<GridExpr> &out) {
  for (Attribute a : list) {
    auto e = exprFromAttr(llvm::dyn_cast<DictionaryAttr>(a));
    if (!e)
      return false;
    out.push_back(std::move(*e));
  }
  return true;
}

} // namespace

DictionaryAttr KernelSignature::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  Dict d(ctx);
  d.setStr("name", name).setInt("threads", threads);
  if (cluster > 1)
    d.setInt("cluster", cluster);
  SmallVector<Attribute> paramAttrs, argAttrs, dimAttrs;
  for (const auto &[n, v] : params)
    paramAttrs.push_back(
        b.getArrayAttr({b.getStringAttr(n), b.getStringAttr(v)}));
  for (const SignatureArg &a : args) {
    SmallVector<Attribute> dimNames;
    for (const std::string &n : a.dimNames)
      dimNames.push_back(b.getStringAttr(n));
    argAttrs.push_back(
        Dict(ctx)
            .setStr("name", a.name)
            .set("type", typeToAttr(ctx, a.type))
            .setStr("access", kAccess[static_cast<int>(a.access)])
            .set("dim_names", b.getArrayAttr(dimNames))
            .get());
  }
  for (const SignatureDim &s : symDims) {
    SmallVector<Attribute> uses;
    for (const DimPosition &u : s.uses)
      uses.push_back(b.getDenseI64ArrayAttr({u.arg, u.dim}));
    Dict e(ctx);
    e.setStr("name", s.name).set("uses", b.getArrayAttr(uses));
    if (s.staticValue)
      e.setInt("static", *s.staticValue);
    dimAttrs.push_back(e.get());
  }
  SmallVector<Attribute> derivedAttrs;
  for (const DerivedDim &e : derivedDims)
    derivedAttrs.push_back(Dict(ctx)
                               .setInt("arg", e.arg)
                               .setInt("dim", e.dim)
                               .set("value", exprToAttr(ctx, e.value))
                               .setStr("text", e.text)
                               .get());
  d.set("derived", b.getArrayAttr(derivedAttrs));
  SmallVector<Attribute> viewAttrs;
  for (const ViewedTensor &v : views) {
    viewAttrs.push_back(Dict(ctx)
                            .setInt("arg", v.arg)
                            .set("shape", exprsToAttr(ctx, v.shape))
                            .setStr("text", v.text)
                            .get());
  }
  if (!viewAttrs.empty())
    d.set("views", b.getArrayAttr(viewAttrs));
  d.set("params", b.getArrayAttr(paramAttrs));
  d.set("args", b.getArrayAttr(argAttrs));
  d.set("dims", b.getArrayAttr(dimAttrs));
  d.set("grid", exprsToAttr(ctx, grid));
  return d.get();
}

std::optional<KernelSignature> KernelSignature::fromAttr(DictionaryAttr attr) {
  KernelSignature s;
  auto name = getStr(attr, "name");
  auto threads = getInt(attr, "threads");
  ArrayAttr params = getArray(attr, "params"), args = getArray(attr, "args"),
            dims = getArray(attr, "dims"), grid = getArray(attr, "grid");
  if (!name || !threads || !params || !args || !dims || !grid ||
      grid.size() > 3)
    return std::nullopt;
  s.name = *name;
  s.threads = *threads;
  if (auto cluster = getInt(attr, "cluster"))
    s.cluster = *cluster;
  for (Attribute p : params) {
    auto pair = llvm::dyn_cast<ArrayAttr>(p);
    if (!pair || pair.size() != 2 || !llvm::isa<StringAttr>(pair[0]) ||
        !llvm::isa<StringAttr>(pair[1]))
      return std::nullopt;
    s.params.push_back({llvm::cast<StringAttr>(pair[0]).str(),
                        llvm::cast<StringAttr>(pair[1]).str()});
  }
  for (Attribute a : args) {
    auto d = llvm::dyn_cast<DictionaryAttr>(a);
    SignatureArg arg;
    auto argName = getStr(d, "name");
    auto type =
        typeFromAttr(d ? d.getAs<DictionaryAttr>("type") : DictionaryAttr());
    auto accessName = getStr(d, "access");
    int access = accessName ? indexOf(kAccess, *accessName) : -1;
    ArrayAttr dimNames = getArray(d, "dim_names");
    if (!argName || !type || access < 0 || !dimNames)
      return std::nullopt;
    arg.name = *argName;
    arg.type = *type;
    arg.access = static_cast<ArgAccess>(access);
    for (Attribute n : dimNames) {
      auto str = llvm::dyn_cast<StringAttr>(n);
      if (!str)
        return std::nullopt;
      arg.dimNames.push_back(str.str());
    }
    s.args.push_back(std::move(arg));
  }
  for (Attribute a : dims) {
    auto d = llvm::dyn_cast<DictionaryAttr>(a);
    SignatureDim dim;
    auto dimName = getStr(d, "name");
    ArrayAttr uses = getArray(d, "uses");
    if (!dimName || !uses || uses.empty())
      return std::nullopt;
    dim.name = *dimName;
    for (Attribute u : uses) {
      auto pair = llvm::dyn_cast<DenseI64ArrayAttr>(u);
      if (!pair || pair.size() != 2 || pair[0] < 0 ||
          pair[0] >= (int64_t)s.args.size() || pair[1] < 0 ||
          pair[1] >= (int64_t)s.args[pair[0]].type.shape.size())
        return std::nullopt;
      dim.uses.push_back(DimPosition{unsigned(pair[0]), unsigned(pair[1])});
    }
    dim.staticValue = getInt(d, "static");
    s.symDims.push_back(std::move(dim));
  }
  if (!exprsFromAttr(grid, s.grid))
    return std::nullopt;
  ArrayAttr derived = getArray(attr, "derived");
  if (!derived)
    return std::nullopt;
  for (Attribute a : derived) {
    auto d = llvm::dyn_cast<DictionaryAttr>(a);
    auto arg = getInt(d, "arg"), dim = getInt(d, "dim");
    auto text = getStr(d, "text");
    auto value =
        d ? exprFromAttr(d.getAs<DictionaryAttr>("value")) : std::nullopt;
    if (!arg || !dim || !text || !value || *arg < 0 ||
        *arg >= (int64_t)s.args.size() || *dim < 0 ||
        *dim >= (int64_t)s.args[*arg].type.shape.size())
      return std::nullopt;
    s.derivedDims.push_back(
        DerivedDim{unsigned(*arg), unsigned(*dim), std::move(*value), *text});
  }
  if (auto views = attr.getAs<ArrayAttr>("views")) {
    for (Attribute a : views) {
      auto d = llvm::dyn_cast<DictionaryAttr>(a);
      auto arg = getInt(d, "arg");
      auto text = getStr(d, "text");
      auto shape = d ? d.getAs<ArrayAttr>("shape") : ArrayAttr();
      if (!arg || !text || !shape || *arg < 0 ||
          *arg >= (int64_t)s.args.size() || !s.args[*arg].isTensor())
        return std::nullopt;
      ViewedTensor v{unsigned(*arg), {}, *text};
      if (!exprsFromAttr(shape, v.shape))
        return std::nullopt;
      s.views.push_back(std::move(v));
    }
  }
  return s;
}

std::optional<std::vector<KernelSignature>>
tlc::collectSignatures(ModuleOp module) {
  std::vector<KernelSignature> signatures;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(tile::attr::kKernel))
      continue;
    auto attr = func->getAttrOfType<DictionaryAttr>(tile::attr::kSignature);
    std::optional<KernelSignature> s =
        attr ? KernelSignature::fromAttr(attr) : std::nullopt;
    if (!s) {
      func.emitError() << "kernel has no well-formed "
                       << tile::attr::kSignature;
      return std::nullopt;
    }
    signatures.push_back(std::move(*s));
  }
  return signatures;
}

DictionaryAttr OperationSignature::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  SmallVector<Attribute> scratchAttrs, launchAttrs;
  for (const ScratchTensor &t : scratch) {
    scratchAttrs.push_back(Dict(ctx)
                               .setStr("name", t.name)
                               .setStr("dtype", dtypeName(t.dtype))
                               .set("shape", exprsToAttr(ctx, t.shape))
                               .get());
  }
  static const char *const kinds[] = {"tensor", "scratch", "scalar"};
  for (const KernelLaunch &l : launches) {
    SmallVector<Attribute> argAttrs;
    for (const LaunchArgument &a : l.args) {
      Dict d(ctx);
      d.setStr("kind", kinds[a.kind]);
      if (a.kind == LaunchArgument::Scalar)
        d.set("value", exprToAttr(ctx, a.value))
            .setStr("dtype", dtypeName(a.scalarType));
      else
        d.setInt("index", a.index);
      argAttrs.push_back(d.get());
    }
    Dict launch(ctx);
    launch.setStr("kernel", l.kernel).set("args", b.getArrayAttr(argAttrs));
    if (l.when)
      launch.set("when", exprToAttr(ctx, *l.when));
    launchAttrs.push_back(launch.get());
  }
  return Dict(ctx)
      .set("signature", signature.toAttr(ctx))
      .set("scratch", b.getArrayAttr(scratchAttrs))
      .set("launches", b.getArrayAttr(launchAttrs))
      .get();
}

std::optional<OperationSignature>
OperationSignature::fromAttr(DictionaryAttr attr) {
  OperationSignature o;
  auto signature =
      attr ? attr.getAs<DictionaryAttr>("signature") : DictionaryAttr();
  std::optional<KernelSignature> s =
      signature ? KernelSignature::fromAttr(signature) : std::nullopt;
  ArrayAttr scratch = getArray(attr, "scratch"),
            launches = getArray(attr, "launches");
  if (!s || !scratch || !launches)
    return std::nullopt;
  o.signature = std::move(*s);
  for (Attribute a : scratch) {
    auto d = llvm::dyn_cast<DictionaryAttr>(a);
    auto name = getStr(d, "name");
    auto dtype = getDType(d, "dtype");
    ArrayAttr shape = getArray(d, "shape");
    if (!name || !dtype || !shape || shape.empty())
      return std::nullopt;
    ScratchTensor t;
    t.name = *name;
    t.dtype = *dtype;
    if (!exprsFromAttr(shape, t.shape))
      return std::nullopt;
    o.scratch.push_back(std::move(t));
  }
  static const char *const kinds[] = {"tensor", "scratch", "scalar"};
  for (Attribute a : launches) {
    auto d = llvm::dyn_cast<DictionaryAttr>(a);
    auto kernel = getStr(d, "kernel");
    ArrayAttr args = getArray(d, "args");
    if (!kernel || !args)
      return std::nullopt;
    KernelLaunch l;
    l.kernel = *kernel;
    if (auto when = d.getAs<DictionaryAttr>("when")) {
      auto cond = exprFromAttr(when);
      if (!cond)
        return std::nullopt;
      l.when = std::move(*cond);
    }
    for (Attribute x : args) {
      auto ad = llvm::dyn_cast<DictionaryAttr>(x);
      auto kindName = getStr(ad, "kind");
      int kind = kindName ? indexOf(kinds, *kindName) : -1;
      if (kind < 0)
        return std::nullopt;
      LaunchArgument arg;
      arg.kind = static_cast<LaunchArgument::Kind>(kind);
      if (arg.kind == LaunchArgument::Scalar) {
        auto value = exprFromAttr(ad.getAs<DictionaryAttr>("value"));
        auto dtype = getDType(ad, "dtype");
        if (!value || !dtype)
          return std::nullopt;
        arg.value = std::move(*value);
        arg.scalarType = *dtype;
      } else {
        auto index = getInt(ad, "index");
        size_t bound = arg.kind == LaunchArgument::Tensor
                           ? o.signature.args.size()
                           : o.scratch.size();
        if (!index || *index < 0 || size_t(*index) >= bound)
          return std::nullopt;
        arg.index = unsigned(*index);
      }
      l.args.push_back(std::move(arg));
    }
    o.launches.push_back(std::move(l));
  }
  return o;
}

std::optional<std::vector<OperationSignature>>
tlc::collectOperations(ModuleOp module) {
  std::vector<OperationSignature> operations;
  auto attr = module->getAttrOfType<ArrayAttr>(tile::attr::kOperations);
  if (!attr)
    return operations;
  for (Attribute a : attr) {
    std::optional<OperationSignature> o =
        OperationSignature::fromAttr(llvm::dyn_cast<DictionaryAttr>(a));
    if (!o) {
      module.emitError() << "malformed " << tile::attr::kOperations;
      return std::nullopt;
    }
    operations.push_back(std::move(*o));
  }
  return operations;
}
