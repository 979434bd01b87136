// compiler/analysis/shape_infer.h - dtype and shape inference over a whole program, with -1 for run-time dims.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/ops/shape_ctx.h"
#include "compiler/support/diagnostics.h"

namespace fluidc {

/// Runs every op's infer_shape over all blocks, a sub-block where the op
/// that runs it stands. Inferred types refine declared ones (a declared -1
/// becomes a known dim); a known inferred dim that conflicts with a known
/// declared one wins, with a located warning (an error when `strict`).
/// A loop body that changes the shape of an enclosing block's variable
/// makes the differing dims -1 and is inferred again with them.
/// Returns the type of every variable, keyed by name.
std::map<std::string, TensorType> infer_shapes(const Program& prog, Diagnostics& diags, bool strict);
/// The same with the process-wide strictness (set_strict_shapes).
std::map<std::string, TensorType> infer_shapes(const Program& prog, Diagnostics& diags);

/// The command line's `--strict-shapes`: one policy for every program the
/// process checks (input, startup and the passes' rewrites alike).
void set_strict_shapes(bool strict);
bool strict_shapes();

}  // namespace fluidc
