// compiler/analysis/dense_rows.h - Paddle's SELECTED_ROWS gradients held as the dense tensors they stand for.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// An embedding with is_sparse writes its weight gradient as SELECTED_ROWS
/// (the rows its ids touched), which `sum` merges and the optimizers apply.
/// Where every op reading or writing such a variable holds it densely
/// (ops::SlotDef::rows_as_dense: the same values, absent rows zero, the same
/// result), the variable becomes a LOD_TENSOR of its declared dims: fluidc
/// computes the sparse gradient densely, which costs memory proportional to
/// the table but changes no number. Any other use is left for the verifier
/// to report. Runs before verification. Returns the names changed.
std::vector<std::string> densify_selected_rows(Program& program);

}  // namespace fluidc
