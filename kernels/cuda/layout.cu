// kernels/cuda/layout.cu - device code of the layout ops (slice, transpose2): strided copies of any dtype.
#include <cstdint>

#include "kernels/cuda/device.h"

namespace fluidc::kernels::cuda::dev {
namespace {

__device__ inline int64_t offset_of(const Strided& s, int64_t i) {
  int64_t o = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    o += (i % s.dims[d]) * s.a[d];
    i /= s.dims[d];
  }
  return o;
}

template <class E>
__global__ void strided_copy_k(const E* in, E* out, int64_t n, Strided s, bool scatter) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (scatter) out[offset_of(s, i)] = in[i];
    else out[i] = in[offset_of(s, i)];
  }
}

template <class E>
void launch(const void* in, void* out, int64_t n, const Strided& s, bool scatter, cudaStream_t st) {
  const Grid g = grid_for(n);
  strided_copy_k<E><<<g.blocks, g.threads, 0, st>>>(static_cast<const E*>(in), static_cast<E*>(out), n, s, scatter);
}

}  // namespace

void strided_copy(const void* in, void* out, int elem_bytes, int64_t n, const Strided& s, bool scatter,
                  cudaStream_t st) {
  if (n <= 0) return;
  switch (elem_bytes) {
    case 1: return launch<uint8_t>(in, out, n, s, scatter, st);
    case 2: return launch<uint16_t>(in, out, n, s, scatter, st);
    case 4: return launch<uint32_t>(in, out, n, s, scatter, st);
    default: return launch<uint64_t>(in, out, n, s, scatter, st);
  }
}

}  // namespace fluidc::kernels::cuda::dev
