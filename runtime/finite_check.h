// runtime/finite_check.h - NaN/Inf detection: the always-on guard of losses and checkpoints.
#pragma once

#include <string>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// True when every element of a float tensor is finite; tensors of other
/// dtypes, and uninitialised ones, are finite by definition.
bool all_finite(const Tensor& t);

/// Throws Error "<what> holds NaN or Inf ..." when `t` is not all finite.
void check_finite(const Tensor& t, const std::string& what);

}  // namespace fluidc::rt
