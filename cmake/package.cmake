# cmake/package.cmake - CPack: `cpack -G DEB` in the build tree makes fluidc_<version>_amd64.deb of the install tree.
set(CPACK_PACKAGE_NAME fluidc)
set(CPACK_PACKAGE_VENDOR "fluidc")
set(CPACK_PACKAGE_CONTACT "fluidc maintainers <fluidc@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ahead-of-time compiler for PaddlePaddle Fluid programs")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # fluidc_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/fluidc/fluidc")
# Run-time needs of the installed fluidc: its shared libraries (libprotobuf, libfmt, libstdc++; computed by
# dpkg-shlibdeps from bin/fluidc), plus what compiles the generated code: the embedded Clang's headers and
# the linker, or, for a fluidc built without it, clang++ ($CXX=g++ works too), and the C++ standard library.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(FLUIDC_HAVE_EMBEDDED_CLANG)
  # With the embedded Clang (libclang-cpp14 and libllvm14 come from shlibdeps) no compiler package is needed:
  # its built-in headers (libclang-common-14-dev), the system linker and archiver (binutils), and what a C++
  # program compiles and links against (libc6-dev, libgcc-12-dev, libstdc++-12-dev). clang++ or g++ remain
  # usable with --cxx.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libclang-common-14-dev, binutils, libc6-dev, libgcc-12-dev, libstdc++-12-dev")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), ninja-build, clang (>= 1:14) | g++ (>= 4:12)")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "clang (>= 1:14) | g++ (>= 4:12), libstdc++-12-dev | libstdc++-dev")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), ninja-build")
endif()
set(CPACK_GENERATOR DEB)
include(CPack)
