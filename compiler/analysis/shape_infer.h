// compiler/analysis/shape_infer.h - dtype and shape inference over a whole program, with -1 for run-time dims.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/ops/shape_ctx.h"
#include "compiler/support/diagnostics.h"

namespace fluidc {

/// Runs every op's infer_shape over all blocks in order. Inferred types
/// refine declared ones (a declared -1 becomes a known dim); a conflict
/// between a known inferred dim and a known declared dim is an error.
/// Returns the type of every variable, keyed by name.
std::map<std::string, TensorType> infer_shapes(const Program& prog, Diagnostics& diags);

}  // namespace fluidc
