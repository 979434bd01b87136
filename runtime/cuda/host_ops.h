// runtime/cuda/host_ops.h - running an op that has no CUDA kernel on the host, between copies of its tensors.
//
// The CUDA target compiles every op the CPU target does: an op type without
// a device kernel (kernels/cuda/op_list.h) runs its CPU kernel on the host
// mirrors. During a step the device holds every value, so the generated code
// copies the op's inputs down (to_host, which waits for them), calls the CPU
// kernel and copies its outputs up (to_device). A step that did so is never
// captured into a CUDA graph: the host work would not be in it. Control flow
// reads its conditions the same way (kernels/cuda/condition.h).
// This header needs no CUDA headers: the generated model.cu includes it.
#pragma once

#include "runtime/cuda/cuda_model.h"
#include "runtime/tensor_array.h"

namespace fluidc::cu {

/// Starts copying the device value into the host mirror (none: the mirror stays).
void download_one(DTensor& t);
/// Tensor arrays live on the host only.
inline void download_one(rt::TensorArray&) {}
/// Waits for the copies and marks the step as one with host work (never captured).
void host_wait();
/// Copies the host mirror to the device (an output of a host op).
void upload_one(DTensor& t);
inline void upload_one(rt::TensorArray&) {}

/// Whether a device value is float32 (or absent: the kernel reports that).
bool float32_or_unset(const DTensor& t);
inline bool float32_or_unset(const rt::TensorArray&) { return false; }
/// Whether a float32-only CUDA kernel can take these inputs (op_list.h's
/// float32_only); otherwise the op runs on the host.
template <class... T>
bool all_float32(const T&... ts) {
  return (float32_or_unset(ts) && ...);
}

/// The inputs of a host op, on the host once this returns.
template <class... T>
void to_host(T&... ts) {
  (download_one(ts), ...);
  host_wait();
}

/// The outputs of a host op, back on the device (stream-ordered).
template <class... T>
void to_device(T&... ts) {
  (upload_one(ts), ...);
}

}  // namespace fluidc::cu
