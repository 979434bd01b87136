# FluidcFunctions.cmake - add_fluid_program(): compile a Paddle program with fluidc at build time (docs/cmake.md).
#
#   add_fluid_program(NAME PROGRAM file [STARTUP file] [PARAMS file|dir] [TRAIN [flags...]]
#                     [OPTIONS flags...] [TARGET cpu|cuda] [LIBRARY [CLASS ns::Name]])
#
# Without LIBRARY, NAME is an ordinary executable target: `fluidc emit` writes the program's C++ at build
# time into ${CMAKE_CURRENT_BINARY_DIR}/NAME.fluidc/ and CMake compiles it with the project's compiler,
# linked against Fluidc::kernels, so `ninja NAME`, install(TARGETS NAME), $<TARGET_FILE:NAME> and
# target_* commands all work. With LIBRARY, `fluidc build --emit lib` writes libNAME.a and NAME.h there and
# NAME is an imported static library (header directory and -lpthread attached) to target_link_libraries().
# Either way the step re-runs when a program file or fluidc itself changes, and only then.
include_guard(GLOBAL)

# fluidc's --help text, read once per configure: which optional flags (--emit lib, --target) it has.
function(_fluidc_help out)
  get_property(have GLOBAL PROPERTY _FLUIDC_HELP SET)
  if(NOT have)
    get_target_property(exe Fluidc::fluidc IMPORTED_LOCATION)
    set(help "")
    if(exe)
      execute_process(COMMAND "${exe}" --help OUTPUT_VARIABLE help ERROR_VARIABLE help)
    endif()
    set_property(GLOBAL PROPERTY _FLUIDC_HELP "${help}")
  endif()
  get_property(help GLOBAL PROPERTY _FLUIDC_HELP)
  set(${out} "${help}" PARENT_SCOPE)
endfunction()

# The `fluidc emit` step (ARGN: its arguments) and the executable NAME over what it writes into DIR:
# MODEL_SRC and, when PARAMS_SRC is not empty, that file, which pulls params.bin in with .incbin (which
# no dependency scanner sees, hence OBJECT_DEPENDS).
function(_fluidc_emitted_executable name dir shown what model_src params_src deps)
  set(sources "${dir}/${model_src}")
  set(outputs "${dir}/${model_src}")
  if(params_src)
    list(APPEND sources "${dir}/${params_src}")
    list(APPEND outputs "${dir}/${params_src}" "${dir}/params.bin")
    set_source_files_properties("${dir}/${params_src}" PROPERTIES OBJECT_DEPENDS "${dir}/params.bin")
  endif()
  add_custom_command(OUTPUT ${outputs}
    COMMAND Fluidc::fluidc emit ${ARGN} -o "${dir}"
    DEPENDS ${deps} Fluidc::fluidc "$<TARGET_FILE:Fluidc::fluidc>"
    COMMENT "fluidc: emitting ${what} into ${shown}"
    VERBATIM)
  add_executable(${name} ${sources})
endfunction()

# TARGET cuda: `fluidc emit --target cuda` writes model.cu (host code over the installed CUDA kernels)
# and, with PARAMS, params.cc, whose .incbin pulls params.bin in (docs/cuda.md).
function(_fluidc_cuda_program name dir shown program params deps)
  set(args ${ARGN})
  find_package(CUDAToolkit REQUIRED)
  set(params_src "")
  if(params)
    set(params_src params.cc)
  endif()
  _fluidc_emitted_executable(${name} "${dir}" "${shown}" "${program} for CUDA" model.cu "${params_src}" "${deps}"
                             ${args})
  find_library(FLUIDC_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)  # the convolutions
  target_link_libraries(${name} PRIVATE Fluidc::cuda_kernels Fluidc::cuda_runtime Fluidc::kernels CUDA::cublas
                                        ${FLUIDC_CUDNN_LIBRARY} CUDA::cudart)
  # C++20 for the runtime headers, as a flag: CMake 3.25 knows no CUDA20 dialect for every nvcc.
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>
                                         $<$<COMPILE_LANGUAGE:CXX>:-Wa,-I${dir}>)
  target_compile_features(${name} PRIVATE cxx_std_20)
  get_target_property(archs ${name} CUDA_ARCHITECTURES)
  if(NOT archs AND NOT CMAKE_CUDA_ARCHITECTURES)
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "80;90")  # as `fluidc build --target cuda`
  endif()
  set_target_properties(${name} PROPERTIES FLUIDC_OUTPUT_DIR "${dir}")
endfunction()

function(add_fluid_program name)
  cmake_parse_arguments(PARSE_ARGV 1 F "LIBRARY" "PROGRAM;STARTUP;PARAMS;TARGET;CLASS" "TRAIN;OPTIONS")
  if(F_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_fluid_program(${name}): unknown arguments: ${F_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT F_PROGRAM)
    message(FATAL_ERROR "add_fluid_program(${name}): PROGRAM file is required")
  endif()
  if(NOT TARGET Fluidc::fluidc)
    message(FATAL_ERROR "add_fluid_program(${name}): no Fluidc::fluidc target; call find_package(Fluidc) first")
  endif()
  if(F_CLASS AND NOT F_LIBRARY)
    message(FATAL_ERROR "add_fluid_program(${name}): CLASS applies only with LIBRARY")
  endif()

  # Every input as an absolute path (relative ones are relative to the calling CMakeLists.txt).
  set(deps "")
  set(args "")
  foreach(kind IN ITEMS PROGRAM STARTUP PARAMS)
    if(NOT F_${kind})
      continue()
    endif()
    get_filename_component(path "${F_${kind}}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_source_file_property(generated "${path}" GENERATED)
    if(NOT EXISTS "${path}" AND NOT generated)  # a program another build step writes is fine
      message(FATAL_ERROR "add_fluid_program(${name}): ${kind} ${path} does not exist")
    endif()
    if(IS_DIRECTORY "${path}")
      # A parameter directory (one file per variable): depend on each file in it.
      file(GLOB files CONFIGURE_DEPENDS "${path}/*")
      list(APPEND deps ${files})
    else()
      list(APPEND deps "${path}")
    endif()
    if(kind STREQUAL "PROGRAM")
      set(program "${path}")
      list(APPEND args "${path}")
    else()
      string(TOLOWER "--${kind}" flag)
      list(APPEND args ${flag} "${path}")
    endif()
  endforeach()
  if(F_TRAIN OR "TRAIN" IN_LIST F_KEYWORDS_MISSING_VALUES)
    list(APPEND args --train ${F_TRAIN})
  endif()
  list(APPEND args ${F_OPTIONS})

  if(F_TARGET AND NOT F_TARGET STREQUAL "cpu")
    if(NOT F_TARGET STREQUAL "cuda")
      message(FATAL_ERROR "add_fluid_program(${name}): TARGET must be cpu or cuda, not '${F_TARGET}'")
    endif()
    # Needs a fluidc with --target and an install that carries the CUDA runtime; refused clearly otherwise.
    _fluidc_help(help)
    if(NOT help MATCHES "--target")
      message(FATAL_ERROR "add_fluid_program(${name}): TARGET cuda: this fluidc has no CUDA target "
                          "(no `--target` flag); only TARGET cpu is available")
    endif()
    if(NOT EXISTS "${FLUIDC_LIB_DIR}/libfluidc_cuda_kernels.a")
      message(FATAL_ERROR "add_fluid_program(${name}): TARGET cuda: this fluidc was installed without its CUDA "
                          "runtime (${FLUIDC_LIB_DIR}/libfluidc_cuda_kernels.a); only TARGET cpu is available "
                          "(docs/cuda.md)")
    endif()
    if(F_LIBRARY)
      message(FATAL_ERROR "add_fluid_program(${name}): TARGET cuda with LIBRARY: the CUDA target builds "
                          "executables only so far (docs/cuda.md)")
    endif()
    get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST langs)
      message(FATAL_ERROR "add_fluid_program(${name}): TARGET cuda compiles the program's model.cu with nvcc; "
                          "enable CUDA in your project: project(... LANGUAGES CXX CUDA)")
    endif()
    list(APPEND args --target ${F_TARGET})
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.fluidc")
  file(MAKE_DIRECTORY "${dir}")
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${dir}")

  if(F_LIBRARY)
    _fluidc_help(help)
    if(NOT help MATCHES "--emit lib")
      message(FATAL_ERROR "add_fluid_program(${name}): LIBRARY needs `fluidc build --emit lib`, "
                          "which this fluidc (${Fluidc_VERSION}) does not have")
    endif()
    # The library contract of `fluidc build --emit lib`: DIR/libNAME.a (generated code, runtime and
    # kernels in one archive) and DIR/NAME.h beside it.
    set(lib "${dir}/lib${name}.a")
    set(header "${dir}/${name}.h")
    if(F_CLASS)
      list(APPEND args --class ${F_CLASS})
    endif()
    add_custom_command(OUTPUT "${lib}" "${header}"
      COMMAND Fluidc::fluidc build ${args} --emit lib -o "${lib}"
      DEPENDS ${deps} Fluidc::fluidc "$<TARGET_FILE:Fluidc::fluidc>"
      COMMENT "fluidc: compiling ${program} into ${shown}/lib${name}.a"
      VERBATIM)
    add_custom_target(${name}_fluidc DEPENDS "${lib}" "${header}")
    add_library(${name} STATIC IMPORTED GLOBAL)
    find_package(Threads REQUIRED)
    set_target_properties(${name} PROPERTIES
      IMPORTED_LOCATION "${lib}"
      IMPORTED_LINK_INTERFACE_LANGUAGES CXX
      INTERFACE_INCLUDE_DIRECTORIES "${dir}"
      INTERFACE_LINK_LIBRARIES Threads::Threads
      FLUIDC_OUTPUT_DIR "${dir}")
    # An imported target builds nothing itself: whatever links it first runs the fluidc step.
    add_dependencies(${name} ${name}_fluidc)
    return()
  endif()

  if(F_TARGET STREQUAL "cuda")
    _fluidc_cuda_program(${name} "${dir}" "${shown}" "${program}" "${F_PARAMS}" "${deps}" ${args})
    return()
  endif()

  set(params_src "")
  if(F_PARAMS)
    get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "ASM" IN_LIST langs)
      message(FATAL_ERROR "add_fluid_program(${name}): PARAMS embeds the weights through an assembler file; "
                          "enable ASM in your project: project(... LANGUAGES CXX ASM)")
    endif()
    set(params_src params.S)
  endif()
  _fluidc_emitted_executable(${name} "${dir}" "${shown}" "${program}" model.cc "${params_src}" "${deps}" ${args})
  target_link_libraries(${name} PRIVATE Fluidc::kernels)
  target_compile_features(${name} PRIVATE cxx_std_20)
  # As `fluidc build` compiles: generated code never reads errno (so math calls may vectorise), no FMA
  # contraction (a fused loop's ISA copies round alike), a fused loop the vectoriser declines is no
  # warning, and a build type with no flags still optimises.
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fno-math-errno -ffp-contract=off>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang>>:-Wno-pass-failed>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:>>:-O2>
    $<$<COMPILE_LANGUAGE:ASM>:-Wa,-I${dir}>)
  # libstdc++ and libgcc linked in, as `fluidc build` does: the binary needs only libc and libm.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang|GNU")
    target_link_options(${name} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
  set_target_properties(${name} PROPERTIES FLUIDC_OUTPUT_DIR "${dir}")
endfunction()
