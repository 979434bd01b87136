// runtime/cuda/device_feeds.cu - the row gather kernel behind DeviceFeed: out row r = src row index[r].
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "runtime/cuda/device_feeds.h"

namespace fluidc::cu {
namespace {

// W: the widest word that divides a row (rows start at multiples of the row size from 256-byte aligned bases).
template <class W>
__global__ void gather_rows_k(const W* src, const int64_t* index, int64_t count, int64_t row_words, W* out) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < count * row_words;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = t / row_words;
    out[t] = src[index[r] * row_words + t % row_words];
  }
}

template <class W>
void launch(const void* src, const int64_t* index, int64_t count, size_t row_bytes, void* out, cudaStream_t st) {
  const int64_t row_words = static_cast<int64_t>(row_bytes / sizeof(W)), n = count * row_words;
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<int64_t>((n + threads - 1) / threads, 8192));
  gather_rows_k<W><<<blocks, threads, 0, st>>>(static_cast<const W*>(src), index, count, row_words,
                                                static_cast<W*>(out));
}

}  // namespace

void gather_rows_on_device(const void* src, const int64_t* index, int64_t count, size_t row_bytes, void* out,
                           CUstream_st* st) {
  if (row_bytes % sizeof(uint4) == 0) launch<uint4>(src, index, count, row_bytes, out, st);
  else if (row_bytes % sizeof(uint32_t) == 0) launch<uint32_t>(src, index, count, row_bytes, out, st);
  else launch<unsigned char>(src, index, count, row_bytes, out, st);
}

}  // namespace fluidc::cu
