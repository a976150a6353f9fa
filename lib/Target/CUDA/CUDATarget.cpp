//===- CUDATarget.cpp - The CUDA target (launch stubs only so far) --------===//
//
// The stub side of the CUDA target: stubs follow the kernel parameter ABI of
// docs/abi.md and embed the device binary. Until GPU code generation exists
// the binary is empty (the stub's launches fail with "kernel binary not
// available") and every other step reports that it is not implemented.
//
//===----------------------------------------------------------------------===//
#include "CUDATarget.h"

#include "tlc/Stub/StubEmitter.h"

#include "llvm/IR/Module.h"

using namespace tlc;

namespace {

const char *const cudaCodegenNotImplemented =
    "code generation for the cuda target is not implemented yet";

class CUDATarget : public Target {
public:
  llvm::StringRef name() const override { return "cuda"; }
  llvm::StringRef defaultArch() const override { return "sm_90a"; }
  llvm::StringRef binaryExtension() const override { return ".cubin"; }
  bool generatesCode() const override { return false; }

  llvm::Error setArch(llvm::StringRef archName) override {
    // sm_NN or sm_NNa / sm_NNf (e.g. sm_80, sm_90a, sm_100a).
    llvm::StringRef digits = archName;
    if (!digits.consume_front("sm_") || digits.empty())
      return badArch(archName);
    if (digits.back() == 'a' || digits.back() == 'f')
      digits = digits.drop_back();
    unsigned version = 0;
    if (digits.getAsInteger(10, version) || version < 50)
      return badArch(archName);
    arch = archName.str();
    return llvm::Error::success();
  }

  void buildLoweringPipeline(mlir::OpPassManager &) const override {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp, llvm::LLVMContext &, unsigned) const override {
    return llvm::createStringError(cudaCodegenNotImplemented);
  }

  llvm::Error emitCode(llvm::Module &, EmitKind,
                       llvm::raw_pwrite_stream &) const override {
    return llvm::createStringError(cudaCodegenNotImplemented);
  }

  void emitStub(const KernelInfo &kernel, llvm::StringRef headerName,
                std::string &header, std::string &source) const override {
    GpuKernelInfo info{kernel, "tlc_" + kernel.name, kernel.threads, 0, {}};
    StubFiles files = emitCudaStub(info, headerName);
    header = std::move(files.header);
    source = std::move(files.source);
  }

private:
  std::string arch;

  static llvm::Error badArch(llvm::StringRef archName) {
    return llvm::createStringError(
        "unknown CUDA architecture '" + archName.str() +
        "'; expected sm_NN, sm_NNa or sm_NNf (e.g. sm_90a)");
  }
};

} // namespace

std::unique_ptr<Target> tlc::createCUDATarget() {
  return std::make_unique<CUDATarget>();
}
