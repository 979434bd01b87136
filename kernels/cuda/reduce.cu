// kernels/cuda/reduce.cu - fp32 reductions, softmax and softmax cross entropy on the device (fixed summation order).
#include "kernels/cuda/device.h"

namespace fluidc::kernels::cuda::dev {
namespace {

constexpr int kThreads = 256;

// Offset of index i within dims/strides of rank r.
__device__ inline int64_t offset_of(int64_t i, int r, const int64_t* dims, const int64_t* str) {
  int64_t off = 0;
  for (int d = r - 1; d >= 0; --d) {
    off += (i % dims[d]) * str[d];
    i /= dims[d];
  }
  return off;
}

// One block per output element; each thread sums a strided share in double,
// then a tree over the block (the same order every run).
__global__ void reduce_k(const float* in, float* out, ReduceSpec r, float factor) {
  __shared__ double part[kThreads];
  for (int64_t o = blockIdx.x; o < r.outputs; o += gridDim.x) {
    const int64_t base = offset_of(o, r.krank, r.kdims, r.kstr);
    double s = 0;
    for (int64_t j = threadIdx.x; j < r.count; j += blockDim.x) s += in[base + offset_of(j, r.rrank, r.rdims, r.rstr)];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w >>= 1) {
      if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[o] = static_cast<float>(part[0] * factor);
    __syncthreads();
  }
}

__global__ void softmax_k(const float* x, float* y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < outer * inner;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t base = (t / inner) * n * inner + t % inner;
    float mx = x[base];
    for (int64_t j = 1; j < n; ++j) mx = fmaxf(mx, x[base + j * inner]);
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const float e = expf(fmaxf(x[base + j * inner] - mx, -64.f));
      y[base + j * inner] = e;
      sum += e;
    }
    const float inv = 1.f / static_cast<float>(sum);
    for (int64_t j = 0; j < n; ++j) y[base + j * inner] *= inv;
  }
}

__global__ void softmax_grad_k(const float* y, const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < outer * inner;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t base = (t / inner) * n * inner + t % inner;
    double dot = 0;
    for (int64_t j = 0; j < n; ++j) dot += static_cast<double>(y[base + j * inner]) * dy[base + j * inner];
    for (int64_t j = 0; j < n; ++j) {
      const int64_t k = base + j * inner;
      dx[k] = y[k] * (dy[k] - static_cast<float>(dot));
    }
  }
}

// Paddle clamps log(0) = -inf to -1e20 ("TolerableValue").
__device__ inline float tolerable_log(float p) {
  const float l = logf(p);
  return isinf(l) ? (l < 0 ? -1e20f : 1e20f) : l;
}

__device__ inline int64_t label_at(const void* label, bool l64, int64_t i) {
  return l64 ? static_cast<const int64_t*>(label)[i] : static_cast<const int32_t*>(label)[i];
}

__global__ void xent_hard_k(const float* sm, const void* label, bool l64, float* loss, int64_t outer, int64_t n,
                            int64_t inner, int ignore, int* bad) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < outer * inner;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = label_at(label, l64, t);
    if (c == ignore) {
      loss[t] = 0.f;
    } else if (c < 0 || c >= n) {
      if (bad) *bad = 1;
      loss[t] = nanf("");
    } else {
      loss[t] = -tolerable_log(sm[(t / inner) * n * inner + c * inner + t % inner]);
    }
  }
}

__global__ void xent_soft_k(const float* sm, const float* label, float* loss, int64_t outer, int64_t n,
                            int64_t inner) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < outer * inner;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t base = (t / inner) * n * inner + t % inner;
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += static_cast<double>(label[base + j * inner]) * tolerable_log(sm[base + j * inner]);
    loss[t] = static_cast<float>(-s);
  }
}

__global__ void xent_hard_grad_k(const float* sm, const void* label, bool l64, const float* dloss, float* dx,
                                 int64_t outer, int64_t n, int64_t inner, int ignore, bool probs) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < outer * n * inner;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = k / (n * inner), j = (k / inner) % n, in = k % inner, t = o * inner + in;
    const int64_t c = label_at(label, l64, t);
    const float gr = dloss[t];
    if (c == ignore) dx[k] = 0.f;
    else if (probs) dx[k] = j == c ? (-1.f / sm[k]) * gr : 0.f;
    else dx[k] = j == c ? sm[k] * gr - gr : sm[k] * gr;
  }
}

__global__ void xent_soft_grad_k(const float* sm, const float* label, const float* dloss, float* dx, int64_t outer,
                                 int64_t n, int64_t inner, bool probs) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < outer * n * inner;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t t = (k / (n * inner)) * inner + k % inner;
    dx[k] = probs ? dloss[t] * (-label[k] / sm[k]) : dloss[t] * (sm[k] - label[k]);
  }
}

__global__ void xent2_k(const float* x, const void* label, bool l64, float* y, float* match, int64_t rows,
                        int64_t d, int ignore) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = label_at(label, l64, i);
    if (c == ignore || c < 0 || c >= d) {
      y[i] = c == ignore ? 0.f : nanf("");  // out of range: NaN, which the trainer stops on
      match[i] = 0.f;
    } else {
      const float m = x[i * d + c];
      y[i] = -tolerable_log(m);
      match[i] = m;
    }
  }
}

__global__ void xent2_grad_k(const float* match, const void* label, bool l64, const float* dy, float* dx,
                             int64_t rows, int64_t d, int ignore) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < rows * d;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = k / d, j = k % d;
    const int64_t c = label_at(label, l64, i);
    dx[k] = c != ignore && j == c ? -dy[i] / match[i] : 0.f;
  }
}

}  // namespace

void xent2(const float* x, const void* label, bool l64, float* y, float* match, int64_t rows, int64_t d, int ignore,
           cudaStream_t st) {
  const Grid g = grid_for(rows);
  xent2_k<<<g.blocks, g.threads, 0, st>>>(x, label, l64, y, match, rows, d, ignore);
}

void xent2_grad(const float* match, const void* label, bool l64, const float* dy, float* dx, int64_t rows, int64_t d,
                int ignore, cudaStream_t st) {
  const Grid g = grid_for(rows * d);
  xent2_grad_k<<<g.blocks, g.threads, 0, st>>>(match, label, l64, dy, dx, rows, d, ignore);
}

void reduce_sum(const float* in, float* out, const ReduceSpec& r, float factor, cudaStream_t st) {
  const int64_t blocks = r.outputs < 65536 ? (r.outputs > 0 ? r.outputs : 1) : 65536;
  reduce_k<<<static_cast<unsigned>(blocks), kThreads, 0, st>>>(in, out, r, factor);
}

void softmax(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, cudaStream_t st) {
  const Grid g = grid_for(outer * inner);
  softmax_k<<<g.blocks, g.threads, 0, st>>>(x, y, outer, n, inner);
}

void softmax_grad(const float* y, const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner,
                  cudaStream_t st) {
  const Grid g = grid_for(outer * inner);
  softmax_grad_k<<<g.blocks, g.threads, 0, st>>>(y, dy, dx, outer, n, inner);
}

void xent_hard(const float* sm, const void* label, bool l64, float* loss, int64_t outer, int64_t n, int64_t inner,
               int ignore, int* bad, cudaStream_t st) {
  const Grid g = grid_for(outer * inner);
  xent_hard_k<<<g.blocks, g.threads, 0, st>>>(sm, label, l64, loss, outer, n, inner, ignore, bad);
}

void xent_soft(const float* sm, const float* label, float* loss, int64_t outer, int64_t n, int64_t inner,
               cudaStream_t st) {
  const Grid g = grid_for(outer * inner);
  xent_soft_k<<<g.blocks, g.threads, 0, st>>>(sm, label, loss, outer, n, inner);
}

void xent_hard_grad(const float* sm, const void* label, bool l64, const float* dloss, float* dx, int64_t outer,
                    int64_t n, int64_t inner, int ignore, bool probs, cudaStream_t st) {
  const Grid g = grid_for(outer * n * inner);
  xent_hard_grad_k<<<g.blocks, g.threads, 0, st>>>(sm, label, l64, dloss, dx, outer, n, inner, ignore, probs);
}

void xent_soft_grad(const float* sm, const float* label, const float* dloss, float* dx, int64_t outer, int64_t n,
                    int64_t inner, bool probs, cudaStream_t st) {
  const Grid g = grid_for(outer * n * inner);
  xent_soft_grad_k<<<g.blocks, g.threads, 0, st>>>(sm, label, dloss, dx, outer, n, inner, probs);
}

}  // namespace fluidc::kernels::cuda::dev
