// compiler/codegen/cuda_support.h - whether an op has a CUDA kernel: what the CUDA target and `fluidc ops` ask.
#pragma once

#include "compiler/ops/op_def.h"

namespace fluidc {

/// The op's CUDA code: its own emitter (OpDef::emit_cuda) or a kernel in kernels/cuda/op_list.h. Ops
/// without one run their CPU kernel on the host in a CUDA binary (runtime/cuda/host_ops.h).
bool has_cuda_kernel(const ops::OpDef& def);

}  // namespace fluidc
