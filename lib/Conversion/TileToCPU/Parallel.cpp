//===- Parallel.cpp - Vectorize tile.parallel along its innermost dim -----===//
//
// A tile.parallel body is emitted once per chunk of `lanes` consecutive
// innermost indices. Each value of the body is classified as
//   - uniform: the same for every lane (kept scalar),
//   - linear: an index equal to `base + lane` (kept as its scalar base), or
//   - varying: anything else (a vector value).
// A load or store whose last index is linear and whose other indices are
// uniform becomes one contiguous vector access; other varying accesses are
// unrolled lane by lane. Bodies with nested regions (if/for) or `var`
// assignments are emitted lane by lane as scalars, so every body lowers
// correctly.
//
//===----------------------------------------------------------------------===//
#include "CPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tlc;

namespace {
struct LaneValue {
  enum Kind { Uniform, Linear, Varying } kind;
  Value value; // scalar (uniform), scalar base (linear) or vector (varying)
};

class BodyVectorizer {
public:
  BodyVectorizer(OpBuilder &b, Location loc, int64_t width)
      : b(b), loc(loc), width(width) {}

  static bool canVectorize(Block &body) {
    for (Operation &op : body.without_terminator()) {
      if (op.getNumRegions() != 0)
        return false;
      // A rank-0 memref written in the body is a `var`: private state of
      // one iteration, which lanes cannot share.
      if (auto store = dyn_cast<memref::StoreOp>(op))
        if (store.getMemRefType().getRank() == 0)
          return false;
      if (isa<memref::LoadOp, memref::StoreOp>(op))
        continue;
      if (!op.hasTrait<OpTrait::Elementwise>() && op.getNumOperands() != 0)
        return false;
    }
    return true;
  }

  void emit(Block &body, ValueRange outer, Value innerBase) {
    for (auto [arg, v] : llvm::zip(body.getArguments(), outer))
      values[arg] = {LaneValue::Uniform, v};
    values[body.getArguments().back()] = {LaneValue::Linear, innerBase};
    for (Operation &op : body.without_terminator())
      emitOp(op);
  }

private:
  OpBuilder &b;
  Location loc;
  int64_t width;
  llvm::DenseMap<Value, LaneValue> values;

  LaneValue lookup(Value v) {
    auto it = values.find(v);
    if (it == values.end())
      return {LaneValue::Uniform, v}; // defined outside the body
    return it->second;
  }

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value asVector(const LaneValue &lv) {
    switch (lv.kind) {
    case LaneValue::Varying:
      return lv.value;
    case LaneValue::Uniform:
      return cpu::broadcastTo(b, loc, lv.value, width);
    case LaneValue::Linear: {
      auto vt = VectorType::get({width}, b.getIndexType());
      Value base = vector::BroadcastOp::create(b, loc, vt, lv.value);
      Value step = vector::StepOp::create(b, loc, vt);
      return arith::AddIOp::create(b, loc, base, step);
    }
    }
    return {};
  }

  Value laneOf(const LaneValue &lv, int64_t lane) {
    switch (lv.kind) {
    case LaneValue::Uniform:
      return lv.value;
    case LaneValue::Linear:
      return lane == 0 ? lv.value
                       : arith::AddIOp::create(b, loc, lv.value, idx(lane));
    case LaneValue::Varying:
      return vector::ExtractOp::create(b, loc, lv.value, lane);
    }
    return {};
  }

  /// True when the access is contiguous: last index linear, others uniform.
  bool isContiguous(ArrayRef<LaneValue> indices) {
    if (indices.empty() || indices.back().kind != LaneValue::Linear)
      return false;
    return llvm::all_of(indices.drop_back(), [](const LaneValue &l) {
      return l.kind == LaneValue::Uniform;
    });
  }

  SmallVector<Value> scalars(ArrayRef<LaneValue> indices, int64_t lane) {
    SmallVector<Value> out;
    for (const LaneValue &l : indices)
      out.push_back(laneOf(l, lane));
    return out;
  }

  void emitOp(Operation &op) {
    SmallVector<LaneValue> operands;
    bool allUniform = true;
    for (Value v : op.getOperands()) {
      operands.push_back(lookup(v));
      allUniform &= operands.back().kind == LaneValue::Uniform;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return emitLoad(load, ArrayRef(operands).drop_front(), allUniform);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return emitStore(store, operands[0], ArrayRef(operands).drop_front(2));
    if (allUniform) {
      IRMapping mapping;
      for (auto [v, l] : llvm::zip(op.getOperands(), operands))
        mapping.map(v, l.value);
      Operation *clone = b.clone(op, mapping);
      for (auto [r, c] : llvm::zip(op.getResults(), clone->getResults()))
        values[r] = {LaneValue::Uniform, c};
      return;
    }
    // index + uniform keeps the linear form.
    if (isa<arith::AddIOp, arith::SubIOp>(op) &&
        operands[0].kind == LaneValue::Linear &&
        operands[1].kind == LaneValue::Uniform) {
      Value base = isa<arith::AddIOp>(op)
                       ? arith::AddIOp::create(b, loc, operands[0].value,
                                               operands[1].value)
                             .getResult()
                       : arith::SubIOp::create(b, loc, operands[0].value,
                                               operands[1].value)
                             .getResult();
      values[op.getResult(0)] = {LaneValue::Linear, base};
      return;
    }
    if (isa<arith::AddIOp>(op) && operands[1].kind == LaneValue::Linear &&
        operands[0].kind == LaneValue::Uniform) {
      values[op.getResult(0)] = {
          LaneValue::Linear,
          arith::AddIOp::create(b, loc, operands[0].value, operands[1].value)};
      return;
    }
    // An elementwise op on vectors: same op, vector operands and results.
    IRMapping mapping;
    for (auto [v, l] : llvm::zip(op.getOperands(), operands))
      mapping.map(v, asVector(l));
    Operation *clone = b.clone(op, mapping);
    for (auto [r, c] : llvm::zip(op.getResults(), clone->getResults())) {
      c.setType(VectorType::get({width}, r.getType()));
      values[r] = {LaneValue::Varying, c};
    }
  }

  void emitLoad(memref::LoadOp load, ArrayRef<LaneValue> indices,
                bool allUniform) {
    Type elem = load.getType();
    Value mem = load.getMemRef();
    if (allUniform) {
      values[load] = {LaneValue::Uniform,
                      memref::LoadOp::create(b, loc, mem, scalars(indices, 0))};
      return;
    }
    auto vt = VectorType::get({width}, elem);
    if (isContiguous(indices)) {
      values[load] = {
          LaneValue::Varying,
          vector::LoadOp::create(b, loc, vt, mem, scalars(indices, 0))};
      return;
    }
    SmallVector<Value> lanes;
    for (int64_t k = 0; k < width; ++k)
      lanes.push_back(memref::LoadOp::create(b, loc, mem, scalars(indices, k)));
    values[load] = {LaneValue::Varying,
                    vector::FromElementsOp::create(b, loc, vt, lanes)};
  }

  void emitStore(memref::StoreOp store, const LaneValue &value,
                 ArrayRef<LaneValue> indices) {
    Value mem = store.getMemRef();
    if (isContiguous(indices)) {
      vector::StoreOp::create(b, loc, asVector(value), mem,
                              scalars(indices, 0));
      return;
    }
    bool uniformTarget = llvm::all_of(indices, [](const LaneValue &l) {
      return l.kind == LaneValue::Uniform;
    });
    // All lanes write one element: the last lane's write is the one that
    // stays, as in a sequential loop.
    int64_t first = uniformTarget ? width - 1 : 0;
    for (int64_t k = first; k < width; ++k)
      memref::StoreOp::create(b, loc, laneOf(value, k), mem,
                              scalars(indices, k));
  }
};

/// The body once per lane, as scalar code.
void emitScalarLanes(OpBuilder &b, Location loc, Block &body, ValueRange outer,
                     Value base, int64_t width) {
  auto emitLane = [&](Value inner) {
    IRMapping mapping;
    for (auto [arg, v] : llvm::zip(body.getArguments(), outer))
      mapping.map(arg, v);
    mapping.map(body.getArguments().back(), inner);
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
  };
  if (width == 1) {
    emitLane(base);
    return;
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, width);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, upper, one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  emitLane(arith::AddIOp::create(b, loc, base, loop.getInductionVar()));
}
} // namespace

void cpu::lowerParallel(tile::ParallelOp op, unsigned vectorBits) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  ArrayRef<int64_t> shape = op.getShape();
  // Lanes follow the widest element type the body touches.
  unsigned bits = 32;
  body.walk([&](Operation *inner) {
    for (Type t : inner->getResultTypes())
      if (t.isIntOrFloat())
        bits = std::max(bits, t.getIntOrFloatBitWidth());
  });
  int64_t lanes = std::max<int64_t>(1, vectorBits / bits);
  bool vectorizable = BodyVectorizer::canVectorize(body);
  buildLoopNest(b, loc, shape.drop_back(), [&](ValueRange outer) {
    forEachChunk(b, loc, shape.back(), lanes, [&](Value base, int64_t w) {
      if (vectorizable && w > 1)
        BodyVectorizer(b, loc, w).emit(body, outer, base);
      else
        emitScalarLanes(b, loc, body, outer, base, w);
    });
  });
  op.erase();
}
