// compiler/driver/build.h - `fluidc build` and `fluidc emit`: program in, binary or sources out.
#pragma once

#include <string>

namespace fluidc {

struct BuildOptions {
  std::string main_path;
  std::string startup_path;   ///< optional
  std::string params_path;    ///< optional: combined file or per-variable directory, embedded
  std::string output;         ///< executable (build) or directory (emit)
  std::string save_temps;     ///< keep generated sources here
  std::string loss;           ///< overrides the loss found in the program
  int opt_level = 2;
  bool verbose = false;
};

/// Compiles the program into a standalone executable at options.output.
void build_executable(const BuildOptions& options);

/// Writes model.cc (and params.S + params.bin when params are given) and a
/// CMakeLists.txt that builds them into options.output (a directory).
void emit_sources(const BuildOptions& options);

}  // namespace fluidc
