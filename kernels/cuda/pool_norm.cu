// kernels/cuda/pool_norm.cu - device code of pool2d and batch_norm (and their gradients).
#include <cfloat>
#include <cstdint>

#include "kernels/cuda/device.h"

namespace fluidc::kernels::cuda::dev {
namespace {

#define FOR_EACH(i, n)                                                                  \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

constexpr int kChannelThreads = 256;

// Window [b, e) of output index o along dim d, and the unclipped extent (as PoolGeom::window).
__device__ inline void window(const Pool2d& p, int d, int64_t o, int64_t& b, int64_t& e, int64_t& full) {
  if (p.adaptive) {
    b = o * p.in[d] / p.out[d];
    e = ((o + 1) * p.in[d] + p.out[d] - 1) / p.out[d];
    full = e - b;
    return;
  }
  b = o * p.s[d] - p.pad[d];
  e = b + p.k[d] < p.in[d] + p.pad[d] ? b + p.k[d] : p.in[d] + p.pad[d];
  full = e - b;
  b = b > 0 ? b : 0;
  e = e < p.in[d] ? e : p.in[d];
}

__global__ void pool2d_k(const float* x, float* y, Pool2d p) {
  const int64_t per_plane = p.out[0] * p.out[1];
  FOR_EACH(t, p.planes * per_plane) {
    const int64_t plane = t / per_plane, oh = (t % per_plane) / p.out[1], ow = t % p.out[1];
    int64_t hb, he, hf, wb, we, wf;
    window(p, 0, oh, hb, he, hf);
    window(p, 1, ow, wb, we, wf);
    const float* xp = x + plane * p.in[0] * p.in[1];
    float acc = p.max ? -FLT_MAX : 0.f;
    for (int64_t h = hb; h < he; ++h)
      for (int64_t w = wb; w < we; ++w) {
        const float v = xp[h * p.in[1] + w];
        acc = p.max ? (v > acc ? v : acc) : acc + v;
      }
    if (!p.max) {
      const int64_t div = (p.exclusive || p.adaptive) ? (he - hb) * (we - wb) : hf * wf;
      acc = acc / static_cast<float>(div);
    }
    y[t] = acc;
  }
}

__global__ void pool2d_grad_k(const float* x, const float* y, const float* dy, float* dx, Pool2d p) {
  const int64_t per_plane = p.out[0] * p.out[1];
  FOR_EACH(t, p.planes * per_plane) {
    const int64_t plane = t / per_plane, oh = (t % per_plane) / p.out[1], ow = t % p.out[1];
    int64_t hb, he, hf, wb, we, wf;
    window(p, 0, oh, hb, he, hf);
    window(p, 1, ow, wb, we, wf);
    const int64_t base = plane * p.in[0] * p.in[1];
    const float g = dy[t];
    if (p.max) {
      const float m = y[t];
      for (int64_t h = hb; h < he; ++h)
        for (int64_t w = wb; w < we; ++w)
          if (x[base + h * p.in[1] + w] == m) {
            atomicAdd(dx + base + h * p.in[1] + w, g);
            return;
          }
    } else {
      const int64_t div = (p.exclusive || p.adaptive) ? (he - hb) * (we - wb) : hf * wf;
      const float share = g / static_cast<float>(div);
      for (int64_t h = hb; h < he; ++h)
        for (int64_t w = wb; w < we; ++w) atomicAdd(dx + base + h * p.in[1] + w, share);
    }
  }
}

__device__ double block_sum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int half = kChannelThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
}

// Flat index of element i (of the n*s in channel c).
__device__ inline int64_t at(const BatchNorm& b, int64_t c, int64_t i) { return ((i / b.s) * b.c + c) * b.s + i % b.s; }

__global__ void bn_stats_k(const float* x, const float* scale, const float* bias, const float* mean, const float* var,
                           const float* momentum_dev, float* mean_out, float* var_out, float* saved_mean,
                           float* saved_var, float* mul_add, BatchNorm b) {
  __shared__ double shared[kChannelThreads];
  const int64_t c = blockIdx.x, count = b.n * b.s;
  double mu, v;
  if (b.global) {
    mu = mean[c], v = var[c];
  } else {
    double sum = 0;
    for (int64_t i = threadIdx.x; i < count; i += kChannelThreads) sum += x[at(b, c, i)];
    mu = block_sum(sum, shared) / static_cast<double>(count);
    double q = 0;
    for (int64_t i = threadIdx.x; i < count; i += kChannelThreads) {
      const double d = x[at(b, c, i)] - mu;
      q += d * d;
    }
    v = block_sum(q, shared) / static_cast<double>(count);
  }
  if (threadIdx.x != 0) return;
  const double inv = 1.0 / sqrt(v + static_cast<double>(b.eps));
  const double mul = scale[c] * inv;
  mul_add[c] = static_cast<float>(mul);
  mul_add[b.c + c] = static_cast<float>(bias[c] - mu * mul);
  if (b.global) {
    if (mean_out && mean_out != mean) mean_out[c] = mean[c];
    if (var_out && var_out != var) var_out[c] = var[c];
    if (saved_mean) saved_mean[c] = 0.f;
    if (saved_var) saved_var[c] = 0.f;
    return;
  }
  if (saved_mean) saved_mean[c] = static_cast<float>(mu);
  if (saved_var) saved_var[c] = static_cast<float>(inv);
  const double m = momentum_dev ? static_cast<double>(*momentum_dev) : static_cast<double>(b.momentum);
  const float running_mean = mean[c], running_var = var[c];  // read before written: the outputs may alias them
  if (mean_out) mean_out[c] = static_cast<float>(m * running_mean + (1 - m) * mu);
  if (var_out) var_out[c] = static_cast<float>(m * running_var + (1 - m) * v);
}

__global__ void bn_apply_k(const float* x, const float* mul_add, float* y, BatchNorm b) {
  FOR_EACH(i, b.n * b.c * b.s) {
    const int64_t c = (i / b.s) % b.c;
    y[i] = x[i] * mul_add[c] + mul_add[b.c + c];
  }
}

// Per channel: the mean and inverse std the gradient uses.
__device__ inline void stats_of(const BatchNorm& b, const float* mean, const float* var_or_inv, int64_t c, double& m,
                                double& iv) {
  m = mean[c];
  iv = b.global ? 1.0 / sqrt(static_cast<double>(var_or_inv[c]) + b.eps) : static_cast<double>(var_or_inv[c]);
}

__global__ void bn_grad_sums_k(const float* x, const float* mean, const float* var_or_inv, const float* dy,
                               float* dscale, float* dbias, double* sums, BatchNorm b) {
  __shared__ double shared[kChannelThreads];
  const int64_t c = blockIdx.x, count = b.n * b.s;
  double m, iv;
  stats_of(b, mean, var_or_inv, c, m, iv);
  double sd = 0, sdx = 0;
  for (int64_t i = threadIdx.x; i < count; i += kChannelThreads) {
    const int64_t k = at(b, c, i);
    const double d = dy[k];
    sd += d;
    sdx += d * ((static_cast<double>(x[k]) - m) * iv);
  }
  sd = block_sum(sd, shared);
  sdx = block_sum(sdx, shared);
  if (threadIdx.x != 0) return;
  sums[c] = sdx, sums[b.c + c] = sd;
  if (dscale) dscale[c] = static_cast<float>(sdx);
  if (dbias) dbias[c] = static_cast<float>(sd);
}

__global__ void bn_grad_dx_k(const float* x, const float* scale, const float* mean, const float* var_or_inv,
                             const float* dy, float* dx, const double* sums, BatchNorm b) {
  const double count = static_cast<double>(b.n * b.s);
  FOR_EACH(i, b.n * b.c * b.s) {
    const int64_t c = (i / b.s) % b.c;
    double m, iv;
    stats_of(b, mean, var_or_inv, c, m, iv);
    const double sc = scale[c];
    if (b.global) {
      dx[i] = static_cast<float>(static_cast<double>(dy[i] * scale[c]) * iv);
    } else {
      const double xhat = (static_cast<double>(x[i]) - m) * iv;
      dx[i] = static_cast<float>(iv * (static_cast<double>(dy[i]) * sc - sc * sums[b.c + c] / count -
                                       xhat * (sc * sums[c] / count)));
    }
  }
}

}  // namespace

void pool2d(const float* x, float* y, const Pool2d& p, cudaStream_t st) {
  const Grid g = grid_for(p.planes * p.out[0] * p.out[1]);
  pool2d_k<<<g.blocks, g.threads, 0, st>>>(x, y, p);
}

void pool2d_grad(const float* x, const float* y, const float* dy, float* dx, const Pool2d& p, cudaStream_t st) {
  const int64_t n_in = p.planes * p.in[0] * p.in[1];
  if (n_in) cudaMemsetAsync(dx, 0, static_cast<size_t>(n_in) * sizeof(float), st);
  const Grid g = grid_for(p.planes * p.out[0] * p.out[1]);
  pool2d_grad_k<<<g.blocks, g.threads, 0, st>>>(x, y, dy, dx, p);
}

void batch_norm_stats(const float* x, const float* scale, const float* bias, const float* mean, const float* var,
                      const float* momentum_dev, float* mean_out, float* var_out, float* saved_mean,
                      float* saved_var, float* mul_add, const BatchNorm& b, cudaStream_t st) {
  if (b.c > 0)
    bn_stats_k<<<static_cast<unsigned>(b.c), kChannelThreads, 0, st>>>(x, scale, bias, mean, var, momentum_dev,
                                                                      mean_out, var_out, saved_mean, saved_var,
                                                                      mul_add, b);
}

void batch_norm_apply(const float* x, const float* mul_add, float* y, const BatchNorm& b, cudaStream_t st) {
  const Grid g = grid_for(b.n * b.c * b.s);
  bn_apply_k<<<g.blocks, g.threads, 0, st>>>(x, mul_add, y, b);
}

void batch_norm_grad(const float* x, const float* scale, const float* mean, const float* var_or_inv, const float* dy,
                     float* dx, float* dscale, float* dbias, double* sums, const BatchNorm& b, cudaStream_t st) {
  if (b.c <= 0) return;
  bn_grad_sums_k<<<static_cast<unsigned>(b.c), kChannelThreads, 0, st>>>(x, mean, var_or_inv, dy, dscale, dbias,
                                                                          sums, b);
  if (!dx) return;
  const Grid g = grid_for(b.n * b.c * b.s);
  bn_grad_dx_k<<<g.blocks, g.threads, 0, st>>>(x, scale, mean, var_or_inv, dy, dx, sums, b);
}

}  // namespace fluidc::kernels::cuda::dev
