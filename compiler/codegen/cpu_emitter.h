// compiler/codegen/cpu_emitter.h - turns a verified program into one C++ class in one source file.
#pragma once

#include <map>
#include <string>

#include "compiler/support/escape.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/program.h"
#include "compiler/analysis/program_info.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc {

struct FusionPlan;
struct MemoryPlan;

struct EmitOptions {
  /// Shown in the stamp and the ModelInfo; the path as the user gave it.
  std::string main_name;
  std::string startup_name;
  /// The C++ namespace of the generated class (`a` or `a::b`); empty: one
  /// derived from the program's file name and checksum, so two programs
  /// link into one binary. Each part must be a plain identifier.
  std::string cpp_namespace;
  /// When set, the generated code refers to combined params embedded at
  /// build time under EmittedProgram::params_symbol (see the target).
  bool embed_params = false;
  /// The fuse pass's chains of the main program, each written as one loop
  /// (see fusion_plan.h); nullptr: one kernel call per op.
  const FusionPlan* fusion = nullptr;
  /// Emit main() (a standalone binary); off for linking into other code.
  bool emit_main = true;
  /// Inferred types of the main program's variables (CheckedProgram::types):
  /// they win over the declared VarDescs in declarations and bindings.
  /// nullptr: declared types only.
  const std::map<std::string, TensorType>* types = nullptr;
  /// Per op of the main program's block 0, whether it is a load-time op
  /// (compiler/analysis/load_time.h): those go into a method run once per
  /// parameter load. nullptr: every op runs every time.
  const std::vector<bool>* load_time = nullptr;
  /// The memory-plan pass's arenas (memory_plan.h): planned block-0
  /// variables view them; nullptr or empty: every tensor owns its storage.
  const MemoryPlan* memory = nullptr;
};
using CpuEmitOptions = EmitOptions;

struct EmittedProgram {
  std::string source;         ///< the target's source file (model.cc)
  std::string cpp_namespace;  ///< where the class `Model` and `model_info()` are
  std::string params_symbol;  ///< the linker symbol of embedded params (when embed_params)
  /// More translation units (file name, text) holding pieces of very long
  /// blocks, so the compiler can work on them in parallel; empty for most
  /// programs. They compile and link together with `source`.
  std::vector<std::pair<std::string, std::string>> shards;
};

/// Generates the program as a class `<namespace>::Model` deriving from
/// fluidc::rt::Model: its variables as members, one method per block with a
/// direct kernel call per op, `<namespace>::model_info()` for the runtime,
/// and main() unless turned off. Throws UserError for a bad cpp_namespace.
/// The same input gives byte-identical output. `startup` may be nullptr.
EmittedProgram emit_program(const Target& target, const Program& main, const Program* startup,
                            const ProgramInfo& info, const EmitOptions& options);

/// emit_program for the CPU target, returning the source only.
std::string emit_cpu_program(const Program& main, const Program* startup, const ProgramInfo& info,
                             const EmitOptions& options);

}  // namespace fluidc
