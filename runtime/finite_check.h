// runtime/finite_check.h - NaN/Inf detection: the always-on guard of losses and checkpoints, and --check-nan per op.
#pragma once

#include <string>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// True when every element of a float tensor is finite; tensors of other
/// dtypes, and uninitialised ones, are finite by definition.
bool all_finite(const Tensor& t);

/// Throws Error "<what> holds NaN or Inf ..." when `t` is not all finite.
void check_finite(const Tensor& t, const std::string& what);

/// Index of the first NaN or Inf of a float tensor; -1 when there is none
/// (and for other dtypes and uninitialised tensors).
int64_t first_non_finite(const Tensor& t);

struct OpSite;
/// --check-nan: generated code calls this for each output `t` (program
/// variable `name`) of the op at `site`, right after the op ran. Throws
/// Error naming the variable, the element and its value, with
/// g_current_op set to `site` so the driver reports the op. Out of line
/// and cold: the call sites stay small, behind a branch never taken
/// without the flag.
[[gnu::cold]] void check_op_output(const OpSite& site, const Tensor& t, const char* name);
/// The form generated code writes after each op: check_op_output when
/// `enabled` (the model's --check-nan flag), else nothing. A call per output
/// instead of a branch at every call site: 10,000 `if (check_nan_)` blocks
/// were ~28% of clang's time on a 10,000-op program (docs/performance.md);
/// a call that returns at once costs a few nanoseconds per op.
[[gnu::noinline]] void check_op_output_if(bool enabled, const OpSite& site, const Tensor& t, const char* name);

}  // namespace fluidc::rt
