// compiler/codegen/runtime_dirs.cc - finding the runtime: $FLUIDC_HOME, the install fluidc sits in, or its build tree.
#include "compiler/codegen/runtime_dirs.h"

#include <cstdlib>
#include <filesystem>

#include "compiler/version.h"

namespace fluidc {
namespace {

// PREFIX holds an installed runtime: include/fluidc/runtime/ and lib/libfluidc_runtime.a.
bool installed_prefix(const std::filesystem::path& prefix) {
  std::error_code ec;
  return std::filesystem::exists(prefix / "include/fluidc/runtime/model.h", ec) &&
         std::filesystem::exists(prefix / "lib/libfluidc_runtime.a", ec);
}

// An installed fluidc (PREFIX/bin/fluidc) uses the runtime installed beside it, wherever the prefix
// was moved or unpacked; "" for the build tree's fluidc, which uses the paths baked into version.h.
std::string own_prefix() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::filesystem::path prefix = exe.parent_path().parent_path();
  return installed_prefix(prefix) ? prefix.string() : "";
}

}  // namespace

RuntimeDirs runtime_dirs() {
  RuntimeDirs d;
  if (const char* home = std::getenv("FLUIDC_HOME"); home && *home) {
    d.include_dir = std::string(home) + "/include";
    d.lib_dir = std::string(home) + "/lib";
    // An installed prefix keeps the headers under include/fluidc/ (cmake/install.cmake).
    if (installed_prefix(home)) d.include_dir += "/fluidc";
  } else if (const std::string prefix = own_prefix(); !prefix.empty()) {
    d.include_dir = prefix + "/include/fluidc";
    d.lib_dir = prefix + "/lib";
  } else {
    d.include_dir = kDefaultIncludeDir;
    d.lib_dir = kDefaultLibDir;
  }
  return d;
}

}  // namespace fluidc
