# lit configuration of the tlc test suite.
import os
import platform
import shutil
import sys

import lit.formats

config.name = "tlc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tl", ".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tlc_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.tlc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# A PATH with tlc and the LLVM tools but no CUDA toolkit, for the tests of
# what tlc says when the toolkit is missing.
config.substitutions.append(
    ("%path_without_cuda",
     os.pathsep.join([config.tlc_tools_dir, config.llvm_tools_dir, "/usr/bin", "/bin"])))

# %cxx compiles a driver against a generated stub: the runtime headers are
# in include/; examples/ holds the .tl sources.
config.substitutions.append(("%tlc_include", os.path.join(config.tlc_src_root, "include")))
config.substitutions.append(("%examples", os.path.join(config.tlc_src_root, "examples")))
config.substitutions.append(("%tlc_src_root", config.tlc_src_root))

# The formatter of test/format.test (scripts/install-deps.sh installs it).
if shutil.which("clang-format-22"):
    config.available_features.add("clang-format")
# A sanitized build (TLC_SANITIZE, scripts/test-sanitized.sh): the drivers
# the tests compile, with the stub runtime they include, get the same
# sanitizers. Every report aborts, so that `not tlc ...` cannot pass over a
# report the way it passes over an exit status of 1. allow_user_poisoning=0:
# libMLIR.so is not instrumented but shares LLVM's BumpPtrAllocator slabs
# with the instrumented code (a false use-after-poison otherwise).
cxx_sanitize = ""
if config.tlc_sanitize:
    config.available_features.add("sanitized")
    cxx_sanitize = " -fsanitize=%s -fno-omit-frame-pointer" % config.tlc_sanitize
    if "undefined" in config.tlc_sanitize:
        cxx_sanitize += " -fno-sanitize-recover=undefined"
    if "undefined" in config.tlc_sanitize and config.host_cxx_id == "Clang":
        # Not clang's function-type check: the stand-in driver libraries of
        # the stub tests (test/Stub/Inputs/fake-lib*.cpp) define the C entry
        # points with int results where tlc_cuda.h and tlc_hip.h say
        # CUresult and hipError_t (enums over int); the real libcuda and
        # libamdhip64 are C, never instrumented, so the check can only fire
        # on the stand-ins.
        cxx_sanitize += " -fno-sanitize=function"
    # lsan.supp: leaks of the stand-in driver libraries, not of tlc.
    for name, defaults in (
            ("ASAN_OPTIONS", "allow_user_poisoning=0:abort_on_error=1"),
            ("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:abort_on_error=1"),
            ("LSAN_OPTIONS", "suppressions=" +
             os.path.join(config.tlc_src_root, "test", "lsan.supp"))):
        extra = os.environ.get(name)
        config.environment[name] = defaults + (":" + extra if extra else "")
# %python: the interpreter running lit (for tests that generate inputs).
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%cxx", config.host_cxx + " -std=c++17 -O2 -pthread" + cxx_sanitize))

if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
        if " avx2" in flags and " fma" in flags:
            config.available_features.add("avx2")
    except OSError:
        pass
if platform.machine() in ("aarch64", "arm64"):
    config.available_features.add("aarch64")

# The CUDA toolkit (ptxas, libdevice) of the build machine, for checks of the
# NVPTX path; no GPU is needed. tlc finds it there too (CUDA_HOME is not
# passed to the tests); %ptxas assembles PTX that tlc wrote.
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%ptxas", "/usr/local/cuda/bin/ptxas"))

# SPIRV-Tools' validator, for the SPIR-V the vulkan target writes.
if shutil.which("spirv-val"):
    config.available_features.add("spirv-val")
# Mesa's lavapipe (a Vulkan device on the CPU) with the Vulkan loader: the
# e2e/vulkan tests run the Vulkan stubs on it (scripts/install-deps.sh
# installs mesa-vulkan-drivers and libvulkan1).
import glob
if glob.glob("/usr/lib/*/libvulkan.so.1") and glob.glob(
        "/usr/share/vulkan/icd.d/lvp_icd*.json"):
    config.available_features.add("lavapipe")

# The Khronos validation layer (vulkan-validationlayers): e2e/vulkan/
# validation.test runs Vulkan stubs under it.
if "lavapipe" in config.available_features and glob.glob(
        "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"):
    config.available_features.add("vulkan-validation")

# A newer lavapipe with VK_KHR_cooperative_matrix (Debian 12's has none) on
# trixie's runtime, which scripts/install-lavapipe-coopmat.sh (run by
# install-deps.sh) unpacks into .deps/: %vk-coopmat-run PROGRAM runs a
# program built here on it; %vk-coopmat-sysroot is that runtime (its
# Vulkan headers have the extension, vulkaninfo and glslangValidator).
vk_coopmat = os.path.join(config.tlc_src_root, ".deps", "lavapipe-coopmat")
if os.path.exists(os.path.join(vk_coopmat, "run.sh")):
    config.available_features.add("lavapipe-coopmat")
    config.substitutions.append(("%vk-coopmat-run", os.path.join(vk_coopmat, "run.sh")))
    config.substitutions.append(
        ("%vk-coopmat-sysroot", os.path.join(vk_coopmat, "sysroot")))

# Headless Chromium (scripts/install-deps.sh installs it) opens the page of
# --dump-dir (test/Driver/dump-dir-chromium.test).
if shutil.which("chromium"):
    config.available_features.add("chromium")

# clang-22 (scripts/install-deps.sh installs it) parses the Metal target's
# output on Linux: the MSL against test/Target/Metal/Inputs/metal-shim, the
# Objective-C++ stubs against Inputs/fake-sdk. %clangxx is that compiler.
if shutil.which("clang++-22"):
    config.available_features.add("clang")
    config.substitutions.append(("%clangxx", shutil.which("clang++-22")))
