// kernels/cuda/host_fallback.h - a CUDA kernel handing an attribute combination it does not cover to the CPU kernel.
//
// Op types without a CUDA kernel run on the host by the emitter's choice (runtime/cuda/host_ops.h); some
// kernels cover only part of their op's attributes (a channel-last convolution, asymmetric padding) and
// hand the rest to the CPU kernel the same way, at run time: the inputs copied down, the CPU kernel on the
// host mirrors, the outputs copied up. The step then counts as one with host work (never captured).
#pragma once

#include <initializer_list>

#include "runtime/cuda/host_ops.h"

namespace fluidc::kernels::cuda {

/// Copies `ins` to their host mirrors, runs `cpu()`, copies `outs` (the non-null ones) back up.
template <class F>
void run_on_host(std::initializer_list<const cu::DTensor*> ins, std::initializer_list<cu::DTensor*> outs, F&& cpu) {
  for (const cu::DTensor* t : ins)
    if (t) cu::download_one(const_cast<cu::DTensor&>(*t));  // the host mirror is the tensor's to refresh
  cu::host_wait();
  cpu();
  for (cu::DTensor* t : outs)
    if (t) cu::upload_one(*t);
}

}  // namespace fluidc::kernels::cuda
