//===- Copy.cpp - tile.copy as row loops of vector moves on the CPU -------===//
//
// A copy walks the rows of the tile (all dimensions but the innermost) and
// moves each row in vector chunks, converting the element type on the way.
// When one side is a window of a global tensor, the copy is versioned: a
// window inside the tensor takes plain vector loads/stores; a ragged one
// checks every row (rows outside read as zeros and are not written) and
// masks the columns, with vector masks when it starts at a column >= 0, one
// element at a time when it starts before the tensor's first column. A
// gather reads each row's position from its index tiles and always checks
// rows.
//
//===----------------------------------------------------------------------===//
#include "CPULowering.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::cpu;

namespace {
class CopyLowering {
public:
  CopyLowering(tile::CopyOp op, unsigned vectorBits)
      : b(op), loc(op.getLoc()), src(op.getSource()), dst(op.getDest()),
        srcWindow(!op.getSourceIndices().empty()),
        dstWindow(!op.getDestIndices().empty()),
        srcUnsigned(op.getSourceUnsigned()), dstUnsigned(op.getDestUnsigned()),
        shape(op.getTileShape()) {
    origin.assign(
        srcWindow ? op.getSourceIndices().begin() : op.getDestIndices().begin(),
        srcWindow ? op.getSourceIndices().end() : op.getDestIndices().end());
    window = op.getWindow();
    global =
        window && !tile::getScope(llvm::cast<MemRefType>(window.getType()));
    tileDims = op.getWindowTileDims();
    gathers = op.getGatherPerDim();
    gathered = !op.getGathers().empty();
    srcElem = llvm::cast<MemRefType>(src.getType()).getElementType();
    dstElem = llvm::cast<MemRefType>(dst.getType()).getElementType();
    Type windowElem = srcWindow ? srcElem : dstElem;
    // LLVM legalizes masked 16-bit float vectors through float conversions
    // (compiler-rt calls) on CPUs without native bf16: move those ragged
    // edges element by element instead.
    scalarEdges = global && (windowElem.isF16() || windowElem.isBF16());
    unsigned bits = std::max(srcElem.getIntOrFloatBitWidth(),
                             dstElem.getIntOrFloatBitWidth());
    lanes = std::max<int64_t>(1, vectorBits / std::max(8u, bits));
  }

  void lower() {
    if (!global) {
      emitRows(/*masked=*/false);
      return;
    }
    OpBuilder::InsertionGuard guard(b);
    if (!gathered) {
      auto ifOp = scf::IfOp::create(b, loc, windowInside(), /*withElse=*/true);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      emitRows(/*masked=*/false);
      b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    }
    if (scalarEdges) {
      emitRows(/*masked=*/true);
      return;
    }
    // Vector masks cover the end of a row only: a window that starts
    // before the first column goes element by element.
    Value fromFirstColumn = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, origin.back(), index(0));
    auto columns =
        scf::IfOp::create(b, loc, fromFirstColumn, /*withElse=*/true);
    b.setInsertionPoint(columns.thenBlock()->getTerminator());
    emitRows(/*masked=*/true);
    b.setInsertionPoint(columns.elseBlock()->getTerminator());
    scalarEdges = true;
    emitRows(/*masked=*/true);
  }

private:
  OpBuilder b;
  Location loc;
  Value src, dst, window;
  bool srcWindow, dstWindow, srcUnsigned, dstUnsigned,
      global = false, scalarEdges = false, gathered = false;
  ArrayRef<int64_t> shape;
  SmallVector<Value> origin;
  /// Per window dimension: the tile dimension covering it (-1: a point)
  /// and its index tile (gathers only).
  SmallVector<int64_t> tileDims;
  SmallVector<Value> gathers;
  int64_t lanes = 1;
  Type srcElem, dstElem;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// True when the whole window lies inside the tensor (origins may be
  /// negative: windows that start before it).
  Value windowInside() {
    Value inside;
    for (int64_t k = 0; k < (int64_t)origin.size(); ++k) {
      int64_t extent = tileDims[k] < 0 ? 1 : shape[tileDims[k]];
      Value end = arith::AddIOp::create(b, loc, origin[k], index(extent));
      Value ok =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, end,
                                memref::DimOp::create(b, loc, window, k));
      Value start = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          origin[k], index(0));
      ok = arith::AndIOp::create(b, loc, ok, start);
      inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
    }
    return inside;
  }

  /// The row loops; `masked` checks rows and columns against the tensor.
  void emitRows(bool masked) {
    buildLoopNest(b, loc, shape.drop_back(), [&](ValueRange ivs) {
      // Indices of the row on the tile side and on the window side.
      SmallVector<Value> tileRow(ivs), winRow;
      for (int64_t k = 0; window && k + 1 < (int64_t)origin.size(); ++k) {
        int64_t t = tileDims[k];
        if (t < 0) {
          winRow.push_back(origin[k]);
          continue;
        }
        Value step = ivs[t];
        if (gathers[k]) // signed: a negative index is outside
          step = arith::IndexCastOp::create(
              b, loc, b.getIndexType(),
              memref::LoadOp::create(b, loc, gathers[k], ValueRange{ivs[t]}));
        winRow.push_back(arith::AddIOp::create(b, loc, origin[k], step));
      }
      Value rowInside;
      if (masked)
        for (size_t k = 0; k < winRow.size(); ++k) {
          // Unsigned: a row before the tensor is outside too.
          Value ok = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, winRow[k],
              memref::DimOp::create(b, loc, window, k));
          rowInside =
              rowInside ? arith::AndIOp::create(b, loc, rowInside, ok) : ok;
        }
      if (!rowInside) {
        emitRow(tileRow, winRow, masked);
        return;
      }
      // Rows outside the tensor read as zeros and are not written.
      auto ifOp = scf::IfOp::create(b, loc, rowInside, /*withElse=*/srcWindow);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      emitRow(tileRow, winRow, masked);
      if (srcWindow) {
        b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
        emitZeroRow(tileRow);
      }
    });
  }

  /// Indices of one chunk: the row's plus the column.
  static SmallVector<Value> at(ArrayRef<Value> row, Value col) {
    SmallVector<Value> idx(row);
    idx.push_back(col);
    return idx;
  }

  void emitRow(ArrayRef<Value> tileRow, ArrayRef<Value> winRow, bool masked) {
    forEachChunk(b, loc, shape.back(), lanes, [&](Value off, int64_t w) {
      Value winCol =
          window ? arith::AddIOp::create(b, loc, origin.back(), off) : Value();
      SmallVector<Value> tileIdx = at(tileRow, off);
      SmallVector<Value> winIdx = window ? at(winRow, winCol) : tileIdx;
      if (masked && scalarEdges) {
        emitScalarChunk(tileIdx, winIdx, w);
        return;
      }
      auto vec = [](Type elem, int64_t n) {
        return VectorType::get({n}, elem);
      };
      Value v;
      if (srcWindow && masked) {
        Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(srcElem));
        v = vector::TransferReadOp::create(b, loc, vec(srcElem, w), src, winIdx,
                                           pad, ArrayRef<bool>{false});
      } else {
        v = vector::LoadOp::create(b, loc, vec(srcElem, w), src,
                                   srcWindow ? winIdx : tileIdx);
      }
      v = tile::castElements(b, loc, v, dstElem, srcUnsigned, dstUnsigned);
      if (dstWindow && masked)
        vector::TransferWriteOp::create(b, loc, v, dst, winIdx,
                                        ArrayRef<bool>{false});
      else
        vector::StoreOp::create(b, loc, v, dst, dstWindow ? winIdx : tileIdx);
    });
  }

  /// One element at a time, each checked against the innermost dimension.
  void emitScalarChunk(ArrayRef<Value> tileIdx, ArrayRef<Value> winIdx,
                       int64_t w) {
    Value dim = memref::DimOp::create(b, loc, window, winIdx.size() - 1);
    for (int64_t lane = 0; lane < w; ++lane) {
      SmallVector<Value> ti(tileIdx), wi(winIdx);
      ti.back() = arith::AddIOp::create(b, loc, ti.back(), index(lane));
      wi.back() = arith::AddIOp::create(b, loc, wi.back(), index(lane));
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       wi.back(), dim);
      auto ifOp = scf::IfOp::create(b, loc, in, /*withElse=*/srcWindow);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      Value v = memref::LoadOp::create(b, loc, src, srcWindow ? wi : ti);
      memref::StoreOp::create(
          b, loc,
          tile::castElements(b, loc, v, dstElem, srcUnsigned, dstUnsigned), dst,
          dstWindow ? wi : ti);
      if (srcWindow) {
        b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
        memref::StoreOp::create(
            b, loc, arith::ConstantOp::create(b, loc, b.getZeroAttr(dstElem)),
            dst, ti);
      }
    }
  }

  void emitZeroRow(ArrayRef<Value> tileRow) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(dstElem));
    forEachChunk(b, loc, shape.back(), lanes, [&](Value off, int64_t w) {
      vector::StoreOp::create(b, loc, broadcastTo(b, loc, zero, w), dst,
                              at(tileRow, off));
    });
  }
};
} // namespace

void cpu::lowerCopy(tile::CopyOp op, unsigned vectorBits) {
  CopyLowering(op, vectorBits).lower();
  op.erase();
}
