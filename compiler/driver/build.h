// compiler/driver/build.h - `fluidc build` and `fluidc emit`: program in, binary or sources out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/driver/pipeline.h"

namespace fluidc {

struct BuildOptions {
  std::string main_path;
  std::string startup_path;   ///< optional
  std::string params_path;    ///< optional: combined file or per-variable directory, embedded
  std::string output;         ///< executable (build) or directory (emit)
  std::string save_temps;     ///< keep generated sources here
  int opt_level = 2;
  bool fuse = true;           ///< --no-fuse: the fuse pass does not run (one kernel call per op)
  bool memory_plan = true;    ///< --no-memory-plan: every tensor owns its storage
  bool memory_report = false; ///< --memory-report: print the memory plan's report
  int64_t max_memory = -1;    ///< --max-memory BYTES: fail when the static arena needs more (-1: no limit)
  std::string cpp_namespace;  ///< --namespace: of the generated class (default: from file name and checksum)
  bool emit_main = true;      ///< --no-main (emit only): sources to link into other code
  bool verbose = false;
  /// Build a trainer from a forward or inference program (the training
  /// passes run first: strip-inference, loss with --label, autodiff, optimizer).
  bool train = false;
  /// --passes: the pipeline passes to run; empty: the subcommand's default
  /// (opt: autodiff,optimizer; build/emit: those with --train, then fuse).
  /// autodiff brings strip-inference, and loss when a label is given.
  std::vector<std::string> passes;
  /// Loss, label, optimizer, --fetch and --print-after; the driver fills
  /// in `passes` (see pipeline.h).
  PipelineOptions pipeline;
  std::string startup_out;    ///< `fluidc opt`: where the rewritten startup program goes
  /// `fluidc build --emit lib`: output is DIR/libNAME.a, with DIR/NAME.h
  /// beside it declaring `lib_class` (default fluidc_models::<NAME in CamelCase>).
  bool emit_lib = false;
  std::string lib_class;      ///< --class NS::Name
  std::string target = "cpu"; ///< --target cpu|cuda (docs/cuda.md)
  /// --cxx PATH: compile generated code with this external compiler (else
  /// $CXX, else the embedded Clang when fluidc has it; compile_exec.h).
  std::string cxx;
};

/// The side-table files `fluidc opt` writes beside its output OUT: the fuse
/// pass's plan goes to OUT + kFusionPlanSuffix (`fluidc dump OUT` shows it).
inline constexpr const char* kFusionPlanSuffix = ".fusion";
/// ... and the memory plan to OUT + kMemoryPlanSuffix.
inline constexpr const char* kMemoryPlanSuffix = ".memory";

/// `fluidc opt`: runs the pipeline and writes the rewritten program to
/// options.output (text when it ends in .pbtxt), the startup program to
/// options.startup_out, and the side tables beside the output. With the
/// distribute pass in parameter-server mode, server I's programs go to
/// server_path(output, I, false/true).
void optimize_program(const BuildOptions& options);

/// Where `fluidc opt -o OUT` writes parameter server `server`'s program:
/// OUT's stem + ".pserver<server>" (+ ".startup") + OUT's extension, so
/// trainer.pbtxt gives trainer.pserver0.pbtxt and trainer.pserver0.startup.pbtxt.
std::string server_path(const std::string& output, size_t server, bool startup);

/// Compiles the program into a standalone executable at options.output.
void build_executable(const BuildOptions& options);

/// `--emit lib`: compiles the program and a typed class over it
/// (compiler/codegen/lib_header.h) into the static archive options.output
/// (libNAME.a), which also carries the runtime's and kernels' objects, and
/// writes NAME.h beside it (docs/library.md).
void build_library(const BuildOptions& options);

/// `fluidc run`: compiles the program in memory with the embedded Clang, runs
/// it in an ORC JIT with `program_args` (the generated binary's options) and
/// returns its exit status; no binary is written.
int run_program(const BuildOptions& options, const std::vector<std::string>& program_args);

/// Writes model.cc (and params.S + params.bin when params are given) and a
/// CMakeLists.txt that builds them into options.output (a directory).
void emit_sources(const BuildOptions& options);

}  // namespace fluidc
