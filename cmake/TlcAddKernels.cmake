# TlcAddKernels.cmake - compile tile-language kernels as a build step.
#
#   tlc_add_kernels(<lib>
#                   SOURCES <file.tl>...
#                   TARGET <target>        (cpu, cuda, rocm, vulkan, metal)
#                   [ARCH <arch>]
#                   [DEFINES <NAME=VALUE>...]
#                   [IMPORT_DIRS <dir>...]
#                   [TUNING <db.json>...]
#                   [OPTIONS <tlc option>...]
#                   [PYTHON])
#
# Runs tlc once per .tl file (add_custom_command) and makes <lib>, a static
# library of the compiled kernels and their launch stubs. Linking <lib> gives
# the include directory of the generated headers (NAME.h per kernel,
# STEM.tlc.h per file) and, through tlc::runtime, the runtime headers and
# Threads. tlc writes a depfile, so editing a file that a .tl imports reruns
# tlc for exactly the .tl files that import it. TUNING names tuning databases
# (written by `tlc tune`, docs/tuning.md): the kernels they tune get one
# variant per tuned parameter set and a stub that picks one per call; editing
# a database reruns tlc for every file of the library. PYTHON (cpu, cuda,
# rocm) also writes STEM.py per file (tlc -emit=python, docs/python.md) and
# builds <lib>_python, a shared library of the same kernels next to them
# that the modules load. See docs/cmake.md.
#
# Comes with find_package(tlc) and is included by tlc's own CMakeLists.txt;
# either way the targets tlc::tlc and tlc::runtime exist.

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "tlc_add_kernels needs CMake 3.20 or newer (DEPFILE)")
endif()
include_guard(GLOBAL)
# Functions keep the policies of where they are defined: CMP0116 NEW (CMake
# rewrites tlc's depfiles for Ninja), whatever the caller's
# cmake_minimum_required says. include() scopes this setting.
cmake_policy(VERSION 3.20...3.31)

# What each code-generation target needs from the build. A new target is a
# name in `supported` and one more branch here: the file name ending of what
# tlc writes for a .tl file and the libraries the stubs need besides
# tlc::runtime (for example CUDA::cuda_driver, after
# find_package(CUDAToolkit)).
function(_tlc_target_info target supported_var suffix_var libs_var)
  set(supported cpu cuda rocm vulkan metal)
  set(${supported_var} "${supported}" PARENT_SCOPE)
  if(target STREQUAL "cpu")
    set(${suffix_var} ".o" PARENT_SCOPE)
    set(${libs_var} "" PARENT_SCOPE)
  elseif(target STREQUAL "cuda")
    # The fatbin is embedded in the stubs, which load libcuda with dlopen.
    set(${suffix_var} ".fatbin" PARENT_SCOPE)
    set(${libs_var} "${CMAKE_DL_LIBS}" PARENT_SCOPE)
  elseif(target STREQUAL "rocm")
    # The code object is embedded in the stubs, which load libamdhip64 with
    # dlopen.
    set(${suffix_var} ".hsaco" PARENT_SCOPE)
    set(${libs_var} "${CMAKE_DL_LIBS}" PARENT_SCOPE)
  elseif(target STREQUAL "vulkan")
    # The SPIR-V is embedded in the stubs, which load libvulkan with dlopen
    # (the Vulkan headers must be on the include path: libvulkan-dev).
    set(${suffix_var} ".spv" PARENT_SCOPE)
    set(${libs_var} "${CMAKE_DL_LIBS}" PARENT_SCOPE)
  elseif(target STREQUAL "metal")
    # The MSL is embedded in Objective-C++ stubs (.mm) that use the Metal
    # framework.
    set(${suffix_var} ".metal" PARENT_SCOPE)
    set(${libs_var} "-framework Metal;-framework Foundation" PARENT_SCOPE)
  else()
    set(${suffix_var} "" PARENT_SCOPE)
  endif()
endfunction()

function(tlc_add_kernels lib)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PYTHON"
    "TARGET;ARCH" "SOURCES;DEFINES;IMPORT_DIRS;TUNING;OPTIONS")
  set(where "tlc_add_kernels(${lib})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unexpected arguments: "
      "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "${where}: no SOURCES (.tl files) given")
  endif()
  _tlc_target_info("${ARG_TARGET}" supported suffix target_libs)
  string(REPLACE ";" ", " supported_text "${supported}")
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "${where}: TARGET is required; supported targets: "
      "${supported_text}")
  endif()
  if(NOT suffix)
    message(FATAL_ERROR "${where}: TARGET '${ARG_TARGET}' is not supported "
      "by this version of tlc; supported targets: ${supported_text}")
  endif()
  if(NOT TARGET tlc::tlc OR NOT TARGET tlc::runtime)
    message(FATAL_ERROR "${where}: the targets tlc::tlc and tlc::runtime "
      "are missing; call find_package(tlc CONFIG REQUIRED) first")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CXX" IN_LIST languages)
    message(FATAL_ERROR "${where}: the launch stubs are C++; enable CXX in "
      "project() or with enable_language(CXX)")
  endif()
  # Metal's stubs are Objective-C++ and need the Metal framework: macOS.
  set(stub_ext ".cpp")
  if(ARG_TARGET STREQUAL "metal")
    if(NOT APPLE)
      message(FATAL_ERROR "${where}: TARGET metal builds its stubs on macOS "
        "only (Objective-C++ and the Metal framework); elsewhere run "
        "tlc -target=metal and build the .mm stubs on a Mac (docs/metal.md)")
    endif()
    if(NOT "OBJCXX" IN_LIST languages)
      message(FATAL_ERROR "${where}: Metal's launch stubs are Objective-C++; "
        "enable OBJCXX in project() or with enable_language(OBJCXX)")
    endif()
    set(stub_ext ".mm")
  endif()

  # tlc's command line, the same for every file of the library.
  set(flags "-target=${ARG_TARGET}")
  if(ARG_ARCH)
    list(APPEND flags "-arch=${ARG_ARCH}")
  endif()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags -D "${define}")
  endforeach()
  foreach(dir IN LISTS ARG_IMPORT_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags -I "${dir}")
  endforeach()
  set(tuning_files)
  foreach(db IN LISTS ARG_TUNING)
    get_filename_component(db "${db}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${db}")
      message(FATAL_ERROR "${where}: TUNING database ${db} does not exist "
        "(tlc tune writes one, see docs/tuning.md)")
    endif()
    list(APPEND flags "--tuning=${db}")
    list(APPEND tuning_files "${db}")
  endforeach()
  list(APPEND flags ${ARG_OPTIONS})

  if(ARG_PYTHON AND NOT ARG_TARGET MATCHES "^(cpu|cuda|rocm)$")
    message(FATAL_ERROR "${where}: PYTHON needs TARGET cpu, cuda or rocm "
      "(the bindings pass host or CUDA/HIP device pointers)")
  endif()

  # All files of the library share one output directory: it is the include
  # directory of the generated headers.
  set(out "${CMAKE_CURRENT_BINARY_DIR}/tlc/${lib}")
  file(MAKE_DIRECTORY "${out}")
  set(objects)
  set(stubs)
  set(headers)
  set(stems)
  set(modules)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(stem "${src}" NAME_WLE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "${where}: two SOURCES are named ${stem}.tl; "
        "their outputs would collide (put them in separate libraries)")
    endif()
    list(APPEND stems "${stem}")
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${src}")
    if(shown MATCHES "^\\.\\./")
      set(shown "${src}")
    endif()
    # tlc writes STEM.o (cpu) or the device code embedded in the stubs
    # (STEM.fatbin, .hsaco, .spv, .metal), NAME.h + NAME.cpp (Metal: .mm)
    # per kernel and, for --bundle, STEM.tlc.h + STEM.tlc.cpp (.mm): the
    # names CMake can know before tlc runs.
    set(object "${out}/${stem}${suffix}")
    set(bundle_h "${out}/${stem}.tlc.h")
    set(bundle_cpp "${out}/${stem}.tlc${stub_ext}")
    set(depfile "${out}/${stem}.d")
    add_custom_command(
      OUTPUT "${object}" "${bundle_h}" "${bundle_cpp}"
      COMMAND tlc::tlc "${src}" ${flags} -o "${out}/" --bundle
              --depfile "${depfile}"
      DEPENDS "${src}" tlc::tlc ${tuning_files}
      DEPFILE "${depfile}"
      COMMENT "tlc: compiling ${shown} for ${ARG_TARGET} (${lib})"
      VERBATIM)
    if(suffix STREQUAL ".o")
      list(APPEND objects "${object}") # linked; a fatbin is only embedded
    endif()
    list(APPEND stubs "${bundle_cpp}")
    list(APPEND headers "${bundle_h}")
    if(ARG_PYTHON)
      set(module "${out}/${stem}.py")
      add_custom_command(
        OUTPUT "${module}"
        COMMAND tlc::tlc "${src}" ${flags} -emit=python
                "--python-library=$<TARGET_FILE_NAME:${lib}_python>"
                -o "${module}"
        DEPENDS "${src}" tlc::tlc ${tuning_files}
        COMMENT "tlc: Python bindings of ${shown} (${lib})"
        VERBATIM)
      list(APPEND modules "${module}")
    endif()
  endforeach()

  set_source_files_properties(${objects} PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${lib} STATIC ${stubs} ${headers} ${objects})
  target_include_directories(${lib} PUBLIC "$<BUILD_INTERFACE:${out}>")
  target_link_libraries(${lib} PUBLIC tlc::runtime ${target_libs})
  target_compile_features(${lib} PRIVATE cxx_std_17) # the stubs need C++17
  set_target_properties(${lib} PROPERTIES
    LINKER_LANGUAGE CXX
    POSITION_INDEPENDENT_CODE ON # tlc's objects are PIC too
    TLC_OUTPUT_DIR "${out}"
    TLC_TARGET "${ARG_TARGET}")
  if(ARG_PYTHON)
    # The same kernels as a shared library, next to the modules that load
    # it (the stubs compile once more, as position-independent code).
    add_library(${lib}_python SHARED ${stubs} ${objects} ${modules})
    target_include_directories(${lib}_python PRIVATE "${out}")
    target_link_libraries(${lib}_python PRIVATE tlc::runtime ${target_libs})
    target_compile_features(${lib}_python PRIVATE cxx_std_17)
    set_target_properties(${lib}_python PROPERTIES
      LINKER_LANGUAGE CXX
      LIBRARY_OUTPUT_DIRECTORY "${out}"
      TLC_OUTPUT_DIR "${out}")
  endif()
endfunction()
