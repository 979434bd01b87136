// runtime/tensor_array.h - LOD_TENSOR_ARRAY variables: a growable list of tensors.
#pragma once

#include <vector>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// What Paddle calls a LoDTensorArray: written and read by index inside
/// loops. Elements keep their storage when the array is reused.
using TensorArray = std::vector<Tensor>;

}  // namespace fluidc::rt
