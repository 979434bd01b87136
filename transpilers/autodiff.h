// transpilers/autodiff.h - appends the backward pass of a loss to a forward program, in Paddle's conventions.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/program.h"

namespace fluidc {

struct AutodiffOptions {
  std::string loss;                  ///< the variable to differentiate (block 0)
  std::set<std::string> no_grad;     ///< variables that get no gradient, besides stop_gradient ones
};

/// (parameter, its gradient variable) for every parameter the loss reaches.
using ParamGrads = std::vector<std::pair<std::string, std::string>>;

/// Appends to block 0 of `prog` what Paddle's append_backward would: the
/// op writing the loss marked op_role Forward|Loss, a fill_constant seeding
/// `<loss>@GRAD` with 1 (op_role Backward|Loss), then,
/// for each forward op on a path from a parameter to the loss, last first,
/// its gradient op (the op table's rule: the generic `<type>_grad` op with
/// slots mapped by name, or the op's own grad maker), with `<var>@GRAD`
/// names, `@RENAME@block0@<n>` plus a `sum` op where a variable's gradient
/// has several producers, op_role Backward and op_role_var. Variables with
/// stop_gradient, integer variables and `no_grad` get no gradient; ops that
/// do not lead to the loss are left out. Declares every gradient variable.
/// Problems (unknown loss, an op without a gradient rule on the path, a
/// program that already has a backward pass) go to `diags`.
ParamGrads append_backward(pb::ProgramDesc& prog, const std::string& origin, const AutodiffOptions& options,
                           Diagnostics& diags);

}  // namespace fluidc
