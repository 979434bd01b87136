// kernels/cuda/condition.h - control flow's condition on the CUDA target: read back from the device each test.
#pragma once

#include "runtime/cuda/cuda_model.h"

namespace fluidc::kernels {

/// `while` and a scalar `conditional_block` on the CUDA target: the body may
/// have computed the condition on the device, so it is copied to the host
/// mirror (runtime/cuda/host_ops.h) before the CPU rule reads it. Overloads
/// the CPU kernel's condition_holds(const Tensor&, ...) for DTensors.
bool condition_holds(const cu::DTensor& cond, const char* op);

}  // namespace fluidc::kernels
