// kernels/cuda/transformer.cu - device code of gelu, layer_norm and the embedding lookup (and their gradients).
#include <cstdint>

#include "kernels/cuda/device.h"
#include "kernels/cuda/device_loops.cuh"

namespace fluidc::kernels::cuda::dev {
namespace {

constexpr double kTanhScale = 0.79788456080286535588, kInvSqrt2 = 0.70710678118654752440;

__global__ void gelu_k(const float* x, float* out, int64_t n, bool approximate) {
  FLUIDC_GRID_LOOP(i, n) {
    const float v = x[i];
    out[i] = approximate ? 0.5f * v * (1.f + tanhf(static_cast<float>(kTanhScale) * (v + 0.044715f * v * v * v)))
                         : 0.5f * v * (1.f + erff(v * static_cast<float>(kInvSqrt2)));
  }
}

__global__ void gelu_grad_k(const float* x, const float* dout, float* dx, int64_t n, bool approximate) {
  FLUIDC_GRID_LOOP(i, n) {
    const float v = x[i], d = dout[i];
    if (approximate) {
      const float k = static_cast<float>(kTanhScale), c = 0.044715f;
      const float t = tanhf(k * (v + c * v * v * v));
      dx[i] = d * (0.5f * (1.f + t) + 0.5f * v * (1.f - t * t) * k * (1.f + 3.f * c * v * v));
    } else {
      const float cdf = 0.5f * (1.f + erff(v * static_cast<float>(kInvSqrt2)));
      const float pdf = 0.39894228040143267794f * expf(-0.5f * v * v);
      dx[i] = d * (cdf + v * pdf);
    }
  }
}

// One block per row: two passes for the moments (as the CPU kernel), then y in float.
__global__ void layer_norm_k(const float* x, const float* scale, const float* bias, float* y, float* mean_out,
                             float* var_out, int64_t cols, float eps) {
  __shared__ double shared[kBlockThreads];
  const int64_t r = blockIdx.x;
  const float* xr = x + r * cols;
  double s = 0;
  for (int64_t j = threadIdx.x; j < cols; j += kBlockThreads) s += xr[j];
  const double mu = block_sum(s, shared) / static_cast<double>(cols);
  double q = 0;
  for (int64_t j = threadIdx.x; j < cols; j += kBlockThreads) {
    const double dlt = xr[j] - mu;
    q += dlt * dlt;
  }
  const double var = block_sum(q, shared) / static_cast<double>(cols);
  if (threadIdx.x == 0) {
    if (mean_out) mean_out[r] = static_cast<float>(mu);
    if (var_out) var_out[r] = static_cast<float>(var);
  }
  const float m = static_cast<float>(mu), inv = static_cast<float>(1.0 / sqrt(var + eps));
  float* yr = y + r * cols;
  for (int64_t j = threadIdx.x; j < cols; j += kBlockThreads) {
    float v = (xr[j] - m) * inv;
    if (scale) v *= scale[j];
    if (bias) v += bias[j];
    yr[j] = v;
  }
}

__global__ void layer_norm_dx_k(const float* x, const float* scale, const float* mean, const float* var,
                                const float* dy, float* dx, int64_t cols, float eps) {
  __shared__ double shared[kBlockThreads];
  const int64_t r = blockIdx.x;
  const float* xr = x + r * cols;
  const float* gr = dy + r * cols;
  const double m = mean[r], iv = 1.0 / sqrt(static_cast<double>(var[r]) + eps);
  double s = 0, sx = 0;
  for (int64_t j = threadIdx.x; j < cols; j += kBlockThreads) {
    const double g = scale ? static_cast<double>(gr[j]) * scale[j] : static_cast<double>(gr[j]);
    s += g;
    sx += g * (xr[j] - m) * iv;
  }
  s = block_sum(s, shared);
  sx = block_sum(sx, shared);
  const double count = static_cast<double>(cols);
  for (int64_t j = threadIdx.x; j < cols; j += kBlockThreads) {
    const double g = scale ? static_cast<double>(gr[j]) * scale[j] : static_cast<double>(gr[j]);
    const double xhat = (xr[j] - m) * iv;
    dx[r * cols + j] = static_cast<float>(iv * (g - s / count - xhat * sx / count));
  }
}

__global__ void layer_norm_params_k(const float* x, const float* mean, const float* var, const float* dy,
                                    float* dscale, float* dbias, int64_t rows, int64_t cols, float eps) {
  FLUIDC_GRID_LOOP(j, cols) {
    double ds = 0, db = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double g = dy[r * cols + j];
      ds += g * ((x[r * cols + j] - static_cast<double>(mean[r])) / sqrt(static_cast<double>(var[r]) + eps));
      db += g;
    }
    if (dscale) dscale[j] = static_cast<float>(ds);
    if (dbias) dbias[j] = static_cast<float>(db);
  }
}

__device__ inline int64_t id_at(const void* ids, bool ids64, int64_t i) {
  return ids64 ? static_cast<const int64_t*>(ids)[i] : static_cast<const int32_t*>(ids)[i];
}

__global__ void embedding_k(const void* ids, bool ids64, const float* w, float* out, int64_t n, int64_t rows,
                            int64_t d, int64_t pad) {
  FLUIDC_GRID_LOOP(t, n * d) {
    const int64_t id = id_at(ids, ids64, t / d);
    out[t] = id == pad ? 0.f : (id < 0 || id >= rows ? nanf("") : w[id * d + t % d]);
  }
}

__global__ void embedding_grad_k(const void* ids, bool ids64, const float* dout, float* dw, int64_t n, int64_t rows,
                                 int64_t d, int64_t pad, bool grad_pad) {
  FLUIDC_GRID_LOOP(t, n * d) {
    const int64_t id = id_at(ids, ids64, t / d);
    if (id < 0 || id >= rows || (id == pad && !grad_pad)) continue;
    atomicAdd(dw + id * d + t % d, dout[t]);
  }
}

}  // namespace

void gelu(const float* x, float* out, int64_t n, bool approximate, cudaStream_t st) {
  const Grid g = grid_for(n);
  gelu_k<<<g.blocks, g.threads, 0, st>>>(x, out, n, approximate);
}

void gelu_grad(const float* x, const float* dout, float* dx, int64_t n, bool approximate, cudaStream_t st) {
  const Grid g = grid_for(n);
  gelu_grad_k<<<g.blocks, g.threads, 0, st>>>(x, dout, dx, n, approximate);
}

void layer_norm(const float* x, const float* scale, const float* bias, float* y, float* mean, float* var, int64_t rows,
                int64_t cols, float eps, cudaStream_t st) {
  if (rows > 0) layer_norm_k<<<static_cast<unsigned>(rows), kBlockThreads, 0, st>>>(x, scale, bias, y, mean, var, cols, eps);
}

void layer_norm_grad(const float* x, const float* scale, const float* mean, const float* var, const float* dy,
                     float* dx, float* dscale, float* dbias, int64_t rows, int64_t cols, float eps, cudaStream_t st) {
  if (dx && rows > 0)
    layer_norm_dx_k<<<static_cast<unsigned>(rows), kBlockThreads, 0, st>>>(x, scale, mean, var, dy, dx, cols, eps);
  if (dscale || dbias) {
    const Grid g = grid_for(cols);
    layer_norm_params_k<<<g.blocks, g.threads, 0, st>>>(x, mean, var, dy, dscale, dbias, rows, cols, eps);
  }
}

void embedding(const void* ids, bool ids64, const float* w, float* out, int64_t n, int64_t rows, int64_t d,
               int64_t pad, cudaStream_t st) {
  const Grid g = grid_for(n * d);
  embedding_k<<<g.blocks, g.threads, 0, st>>>(ids, ids64, w, out, n, rows, d, pad);
}

void embedding_grad(const void* ids, bool ids64, const float* dout, float* dw, int64_t n, int64_t rows, int64_t d,
                    int64_t pad, bool grad_pad, cudaStream_t st) {
  if (rows * d > 0) cudaMemsetAsync(dw, 0, static_cast<size_t>(rows * d) * sizeof(float), st);
  const Grid g = grid_for(n * d);
  embedding_grad_k<<<g.blocks, g.threads, 0, st>>>(ids, ids64, dout, dw, n, rows, d, pad, grad_pad);
}

}  // namespace fluidc::kernels::cuda::dev
