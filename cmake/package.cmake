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
# dpkg-shlibdeps from bin/fluidc), plus the C++ compiler it runs on the generated code, clang++ by
# default ($CXX=g++ works too), and the C++ standard library headers that code includes.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "clang (>= 1:14) | g++ (>= 4:12), libstdc++-12-dev | libstdc++-dev")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), ninja-build")
set(CPACK_GENERATOR DEB)
include(CPack)
