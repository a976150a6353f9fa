//===- tlc-opt.cpp - MLIR optimizer driver with the tile dialect --------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Target/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tlc::tile::registerTilePasses();
  tlc::registerConversionPasses();
  tlc::registerTargetPasses();
  tlc::registerGPUTargets();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry); // e.g. func's inliner interface
  // gpu-module-to-binary translates GPU modules to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<tlc::tile::TileDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tlc optimizer driver\n", registry));
}
