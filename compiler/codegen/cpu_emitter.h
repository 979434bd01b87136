// compiler/codegen/cpu_emitter.h - turns a verified program into one self-contained C++ source file.
#pragma once

#include <string>

#include "compiler/codegen/escape.h"
#include "compiler/ir/program.h"
#include "compiler/ir/program_info.h"

namespace fluidc {

struct FusionPlan;

struct CpuEmitOptions {
  /// Shown in the stamp and the Model; the path as the user gave it.
  std::string main_name;
  std::string startup_name;
  /// When set, the generated file references a symbol holding combined
  /// params embedded at build time (see build driver).
  bool embed_params = false;
  /// The fuse pass's chains of the main program, each written as one loop
  /// (see fusion_plan.h); nullptr: one kernel call per op.
  const FusionPlan* fusion = nullptr;
};

/// Generates model.cc: the program's variables as tensors, one function per
/// block with a direct kernel call per op, and a `Model` plus main() for
/// the runtime driver. The same input gives byte-identical output.
/// `startup` may be nullptr.
std::string emit_cpu_program(const Program& main, const Program* startup, const ProgramInfo& info,
                             const CpuEmitOptions& options);

}  // namespace fluidc
