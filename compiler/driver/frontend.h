// compiler/driver/frontend.h - load, verify and infer: what every subcommand does before the passes.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/analysis/program_info.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc {

/// A program that passed verification, with its inferred types.
struct CheckedProgram {
  Program program;
  std::map<std::string, TensorType> types;
  Diagnostics diags;  ///< warnings only (errors throw)
};

/// Loads `path`, verifies it and infers shapes. Throws UserError listing
/// every error found (all of them, not just the first).
CheckedProgram load_checked(const std::string& path);
/// The same for a program already in memory (e.g. the output of a pass).
CheckedProgram check_program(Program program);

/// Checks that every tensor an op of block 0 reads is fed, persistable or
/// written by an earlier op: otherwise the binary would read garbage.
void check_dataflow(const Program& prog, const ProgramInfo& info, Diagnostics& diags);

}  // namespace fluidc
