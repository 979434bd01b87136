// compiler/driver/embedded_clang_none.cc - a fluidc built without the Clang libraries (FLUIDC_EMBEDDED_CLANG=OFF or not found).
#include "compiler/driver/embedded_clang.h"

namespace fluidc {

bool embedded_clang_built() { return false; }
std::string embedded_clang_unusable() { return "this fluidc was built without it (FLUIDC_EMBEDDED_CLANG=OFF)"; }
std::string embedded_clang_version() { return ""; }
int run_embedded_clang(const std::vector<std::string>&, bool) { return 127; }
int run_embedded_assembler(const std::vector<const char*>&) { return 127; }
int run_embedded_jit(const std::vector<std::vector<std::string>>&, const std::vector<std::string>&,
                     const std::vector<std::string>&) {
  return 127;
}

}  // namespace fluidc
