//===- TileIRFuzzer.cpp - libFuzzer target: source to verified tile IR ----===//
//
// Each input that Sema accepts goes the way of `tlc -emit=tile` as far as
// the target-neutral passes: MLIRGen, the verifier (the tile dialect's op
// verifiers included), the kernel signatures the stubs are built from, then
// inline, symbol DCE, tile-specialize-dims, canonicalize and CSE; the result
// is printed and parsed back as tlc-opt would read it. Where tlc would
// report an internal error (exit status 2), this target aborts, so the
// fuzzer keeps the input.
//
//===----------------------------------------------------------------------===//
#include "FuzzInput.h"

#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/MLIRGen/MLIRGen.h"
#include "tlc/Stub/KernelSignature.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {

[[noreturn]] void internalError(const char *what) {
  llvm::errs() << "tlc-fuzz-tile-ir: internal error: " << what << "\n";
  std::abort();
}

/// tlc's registry: every upstream dialect and extension, and the tile
/// dialect, built once.
const mlir::DialectRegistry &registry() {
  static const mlir::DialectRegistry *instance = [] {
    auto *r = new mlir::DialectRegistry;
    mlir::registerAllDialects(*r);
    mlir::registerAllExtensions(*r);
    r->insert<tlc::tile::TileDialect>();
    return r;
  }();
  return *instance;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tlc::fuzz::CheckedInput input(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (!input.ok())
    return 0;
  // A fresh context per input, so one input cannot change the next; no
  // thread pool (tlc's would only cost time here).
  mlir::MLIRContext context(registry(), mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tlc::generateTileIR(context, input.sema(), input.sourceMgr());
  if (mlir::failed(mlir::verify(*module)))
    internalError("generated tile IR does not verify");
  if (!tlc::collectSignatures(*module))
    internalError("malformed kernel signature");

  mlir::PassManager pm(&context);
  pm.addPass(mlir::createInlinerPass());
  pm.addPass(mlir::createSymbolDCEPass());
  pm.addPass(tlc::tile::createTileSpecializeDims());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (mlir::failed(pm.run(*module)))
    internalError("a target-neutral tile pass failed");

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  mlir::ParserConfig config(&context);
  if (!mlir::parseSourceString<mlir::ModuleOp>(text, config))
    internalError("printed tile IR does not parse back");
  return 0;
}
