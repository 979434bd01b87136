// compiler/analysis/program_info.h - what a program is: trainer or inference, feeds, fetches, state, loss.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/op_role.h"
#include "compiler/ir/program.h"

namespace fluidc {

/// The roles of a program's variables, derived once from the ProgramDesc
/// and shared by codegen, `fluidc dump` and the build driver.
struct ProgramInfo {
  bool is_trainer = false;              ///< has an op with the kOptimizer trait
  std::vector<std::string> feeds;       ///< in feed-column order
  std::vector<std::string> fetches;     ///< in fetch-column order
  std::vector<std::string> persistables;  ///< tensors that live across runs, sorted by name
  std::vector<std::string> parameters;  ///< persistables an optimizer updates, sorted
  std::string loss;                     ///< trainer: the variable whose gradient seeds backward
  /// Persistables that only integer_storage slots read (SlotDef): their
  /// saved records may hold integers where the program declares float.
  std::set<std::string> integer_storage;
};

/// Analyses block 0 of `main`. `loss_override` (from --loss) wins over the
/// loss found from Paddle's op_role marking. Problems (no feeds for a
/// trainer, a named loss that does not exist) go to `diags`.
ProgramInfo analyze_program(const Program& main, const std::string& loss_override, Diagnostics& diags);

}  // namespace fluidc
