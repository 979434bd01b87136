# cmake/install.cmake - `cmake --install`: bin/fluidc, the runtime and kernel libraries, their headers, the CMake package.
# Layout under the prefix (fluidc finds it from its own executable, compiler/codegen/cpu_target.cc):
#   bin/fluidc
#   lib/libfluidc_runtime.a, lib/libfluidc_kernels.a (lib/libfluidc_cuda_{runtime,kernels}.a when built with CUDA)
#   include/fluidc/runtime/*.h, include/fluidc/kernels/**.h  (generated code includes "runtime/model.h")
#   lib/cmake/Fluidc/FluidcConfig.cmake, FluidcConfigVersion.cmake, FluidcFunctions.cmake
include(CMakePackageConfigHelpers)
set(FLUIDC_INSTALL_INCLUDEDIR include/fluidc)
set(FLUIDC_INSTALL_LIBDIR lib)
set(FLUIDC_INSTALL_CMAKEDIR lib/cmake/Fluidc)

install(TARGETS fluidc RUNTIME DESTINATION bin)
install(TARGETS fluidc_runtime fluidc_kernels ARCHIVE DESTINATION ${FLUIDC_INSTALL_LIBDIR})
if(TARGET fluidc_runtime_jit)  # what `fluidc run` links (compiler/driver/CMakeLists.txt)
  install(TARGETS fluidc_runtime_jit ARCHIVE DESTINATION ${FLUIDC_INSTALL_LIBDIR})
endif()
if(TARGET fluidc_coll)  # what collective programs link (runtime/coll; libmpi comes from the system)
  install(TARGETS fluidc_coll ARCHIVE DESTINATION ${FLUIDC_INSTALL_LIBDIR})
endif()
if(TARGET fluidc_cuda_runtime)  # what `fluidc build --target cuda` links (runtime/cuda, kernels/cuda; docs/cuda.md)
  install(TARGETS fluidc_cuda_runtime fluidc_cuda_kernels ARCHIVE DESTINATION ${FLUIDC_INSTALL_LIBDIR})
endif()
if(TARGET fluidc_coll_nccl)  # what CUDA collective programs link (runtime/coll's NCCL part; NCCL and MPI from the system)
  install(TARGETS fluidc_coll_nccl ARCHIVE DESTINATION ${FLUIDC_INSTALL_LIBDIR})
endif()
if(TARGET fluidc_dist)  # what distributed programs link (runtime/dist; gRPC comes from the system)
  install(TARGETS fluidc_dist fluidc_send_recv_proto ARCHIVE DESTINATION ${FLUIDC_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/ DESTINATION ${FLUIDC_INSTALL_INCLUDEDIR}/runtime
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/ DESTINATION ${FLUIDC_INSTALL_INCLUDEDIR}/kernels
        FILES_MATCHING PATTERN "*.h")

# The imported targets are written by hand rather than install(EXPORT): the runtime's private build
# dependencies (header-only fmt) stay out of what users must find, and every path stays relative.
configure_file(${CMAKE_CURRENT_LIST_DIR}/FluidcConfig.cmake.in ${PROJECT_BINARY_DIR}/cmake/FluidcConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/FluidcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/FluidcConfig.cmake ${PROJECT_BINARY_DIR}/cmake/FluidcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/FluidcFunctions.cmake
        DESTINATION ${FLUIDC_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/docs/cmake.md ${PROJECT_SOURCE_DIR}/docs/cli.md
        DESTINATION share/doc/fluidc)
# The library output's guide (docs/library.md), where this tree has it.
if(EXISTS ${PROJECT_SOURCE_DIR}/docs/library.md)
  install(FILES ${PROJECT_SOURCE_DIR}/docs/library.md DESTINATION share/doc/fluidc)
endif()
