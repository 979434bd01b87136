// compiler/driver/build.h - `fluidc build` and `fluidc emit`: program in, binary or sources out.
#pragma once

#include <string>
#include <vector>

#include "compiler/driver/train.h"

namespace fluidc {

struct BuildOptions {
  std::string main_path;
  std::string startup_path;   ///< optional
  std::string params_path;    ///< optional: combined file or per-variable directory, embedded
  std::string output;         ///< executable (build) or directory (emit)
  std::string save_temps;     ///< keep generated sources here
  std::string loss;           ///< overrides the loss found in the program
  int opt_level = 2;
  bool fuse = true;           ///< --no-fuse: one kernel call per op (for comparing and debugging)
  std::string cpp_namespace;  ///< --namespace: of the generated class (default: from file name and checksum)
  bool emit_main = true;      ///< --no-main (emit only): sources to link into other code
  bool verbose = false;
  /// Build a trainer from a forward or inference program (autodiff and
  /// optimizer passes run first; see TrainOptions).
  bool train = false;
  TrainOptions train_options;
  std::string startup_out;    ///< `fluidc opt`: where the rewritten startup program goes
  std::vector<std::string> fetch;  ///< extra variables the binary writes out (e.g. gradients)
};

/// `fluidc opt`: runs the passes and writes the rewritten program to
/// options.output (text when it ends in .pbtxt) and the startup program to
/// options.startup_out.
void optimize_program(const BuildOptions& options);

/// Compiles the program into a standalone executable at options.output.
void build_executable(const BuildOptions& options);

/// Writes model.cc (and params.S + params.bin when params are given) and a
/// CMakeLists.txt that builds them into options.output (a directory).
void emit_sources(const BuildOptions& options);

}  // namespace fluidc
