// kernels/cuda/device_loops.cuh - what the device kernels share: the grid-stride loop and a block's double sum.
#pragma once

#include <cstdint>

/// Element loop of the elementwise kernels: i over [0, n), strided by the whole grid (grid_for in device.h
/// caps the blocks, so a launch covers any n).
#define FLUIDC_GRID_LOOP(i, n)                                                              \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

namespace fluidc::kernels::cuda::dev {

/// Threads of the kernels that give one block to a row or a channel (layer_norm, batch_norm).
constexpr int kBlockThreads = 256;

/// The sum of `v` over the block (every thread gets it), in a fixed tree order: deterministic.
/// blockDim.x == kBlockThreads; `shared` holds kBlockThreads doubles.
__device__ inline double block_sum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int half = kBlockThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
}

}  // namespace fluidc::kernels::cuda::dev
