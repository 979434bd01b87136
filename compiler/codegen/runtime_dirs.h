// compiler/codegen/runtime_dirs.h - where the runtime headers and libraries that generated code builds against are.
#pragma once

#include <string>

namespace fluidc {

struct RuntimeDirs {
  std::string include_dir;  ///< -I for generated code ("runtime/model.h" under it)
  std::string lib_dir;      ///< -L: libfluidc_runtime.a, libfluidc_kernels.a (and the CUDA ones when built)
};

/// $FLUIDC_HOME (an installed tree, or include/ + lib/); else the prefix this
/// fluidc is installed in (PREFIX/bin/fluidc -> PREFIX/include/fluidc,
/// PREFIX/lib), wherever it was moved; else the build tree fluidc came from.
RuntimeDirs runtime_dirs();

}  // namespace fluidc
