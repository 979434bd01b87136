// compiler/driver/clang_driver.h - the clang++ driver as fluidc runs it in-process; `fluidc build` and `fluidc run` share it.
// Included only by the files built with the Clang libraries (compiler/driver/CMakeLists.txt).
#pragma once

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>

#include <memory>
#include <string>
#include <vector>

namespace fluidc {

/// Where Debian's clang++ lives, as the driver would see it when run as
/// `clang++` from $PATH: the executable (its resource directory, with the
/// built-in headers and compiler-rt, is ../lib/clang/VERSION) and the
/// directory it was found in (/usr/bin: the driver finds GCC's libstdc++
/// through /usr/bin/../lib/gcc). The same two paths give the same cc1
/// arguments, so the same objects, even where no clang++ is installed.
inline constexpr const char* kClangExecutable = FLUIDC_CLANG_EXECUTABLE;
inline constexpr const char* kClangInstalledDir = "/usr/bin";

/// That clang's resource directory.
std::string clang_resource_dir();

/// The driver in C++ mode (as `clang++`), its diagnostics printed to stderr.
struct ClangDriver {
  ClangDriver();
  /// The jobs the driver makes for `args` (the arguments after `clang++`); null on a driver error.
  std::unique_ptr<clang::driver::Compilation> compilation(const std::vector<std::string>& args);

  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options;
  clang::DiagnosticsEngine diagnostics;
  clang::driver::Driver driver;
};

}  // namespace fluidc
