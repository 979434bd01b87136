// kernels/cuda/pool_norm.cu - device code of pool2d and batch_norm (and their gradients).
#include <cfloat>
#include <cstdint>

#include "kernels/cuda/device.h"
#include "kernels/cuda/device_loops.cuh"

namespace fluidc::kernels::cuda::dev {
namespace {

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

// Output t's window: its plane's offset in X, rows [hb, he) and columns [wb, we) clipped to X, and the
// divisor of an average (the clipped window when exclusive or adaptive, else the unclipped one).
struct PoolWindow {
  int64_t base, hb, he, wb, we, divisor;
};

__device__ inline PoolWindow pool_window(const Pool2d& p, int64_t t) {
  const int64_t per_plane = p.out[0] * p.out[1];
  const int64_t plane = t / per_plane, oh = (t % per_plane) / p.out[1], ow = t % p.out[1];
  PoolWindow w;
  int64_t hf, wf;
  window(p, 0, oh, w.hb, w.he, hf);
  window(p, 1, ow, w.wb, w.we, wf);
  w.base = plane * p.in[0] * p.in[1];
  w.divisor = (p.exclusive || p.adaptive) ? (w.he - w.hb) * (w.we - w.wb) : hf * wf;
  return w;
}

__global__ void pool2d_k(const float* x, float* y, Pool2d p) {
  FLUIDC_GRID_LOOP(t, p.planes * p.out[0] * p.out[1]) {
    const PoolWindow w = pool_window(p, t);
    float acc = p.max ? -FLT_MAX : 0.f;
    for (int64_t h = w.hb; h < w.he; ++h)
      for (int64_t c = w.wb; c < w.we; ++c) {
        const float v = x[w.base + h * p.in[1] + c];
        acc = p.max ? (v > acc ? v : acc) : acc + v;
      }
    y[t] = p.max ? acc : acc / static_cast<float>(w.divisor);
  }
}

// The first element of the window equal to the max, or -1 (then the window was empty).
__device__ inline int64_t first_max(const float* x, const Pool2d& p, const PoolWindow& w, float m) {
  for (int64_t h = w.hb; h < w.he; ++h)
    for (int64_t c = w.wb; c < w.we; ++c)
      if (x[w.base + h * p.in[1] + c] == m) return w.base + h * p.in[1] + c;
  return -1;
}

__global__ void pool2d_grad_k(const float* x, const float* y, const float* dy, float* dx, Pool2d p) {
  FLUIDC_GRID_LOOP(t, p.planes * p.out[0] * p.out[1]) {
    const PoolWindow w = pool_window(p, t);
    if (p.max) {
      // Not a return from the loop: a thread may have further outputs (grid-stride).
      if (const int64_t at = first_max(x, p, w, y[t]); at >= 0) atomicAdd(dx + at, dy[t]);
    } else {
      const float share = dy[t] / static_cast<float>(w.divisor);
      for (int64_t h = w.hb; h < w.he; ++h)
        for (int64_t c = w.wb; c < w.we; ++c) atomicAdd(dx + w.base + h * p.in[1] + c, share);
    }
  }
}

// Flat index of element i (of the n*s in channel c).
__device__ inline int64_t at(const BatchNorm& b, int64_t c, int64_t i) { return ((i / b.s) * b.c + c) * b.s + i % b.s; }

__global__ void bn_stats_k(const float* x, const float* scale, const float* bias, const float* mean, const float* var,
                           const float* momentum_dev, float* mean_out, float* var_out, float* saved_mean,
                           float* saved_var, float* mul_add, BatchNorm b) {
  __shared__ double shared[kBlockThreads];
  const int64_t c = blockIdx.x, count = b.n * b.s;
  double mu, v;
  if (b.global) {
    mu = mean[c], v = var[c];
  } else {
    double sum = 0;
    for (int64_t i = threadIdx.x; i < count; i += kBlockThreads) sum += x[at(b, c, i)];
    mu = block_sum(sum, shared) / static_cast<double>(count);
    double q = 0;
    for (int64_t i = threadIdx.x; i < count; i += kBlockThreads) {
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
  FLUIDC_GRID_LOOP(i, b.n * b.c * b.s) {
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
  __shared__ double shared[kBlockThreads];
  const int64_t c = blockIdx.x, count = b.n * b.s;
  double m, iv;
  stats_of(b, mean, var_or_inv, c, m, iv);
  double sd = 0, sdx = 0;
  for (int64_t i = threadIdx.x; i < count; i += kBlockThreads) {
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
  FLUIDC_GRID_LOOP(i, b.n * b.c * b.s) {
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
    bn_stats_k<<<static_cast<unsigned>(b.c), kBlockThreads, 0, st>>>(x, scale, bias, mean, var, momentum_dev,
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
  bn_grad_sums_k<<<static_cast<unsigned>(b.c), kBlockThreads, 0, st>>>(x, mean, var_or_inv, dy, dscale, dbias,
                                                                          sums, b);
  if (!dx) return;
  const Grid g = grid_for(b.n * b.c * b.s);
  bn_grad_dx_k<<<g.blocks, g.threads, 0, st>>>(x, scale, mean, var_or_inv, dy, dx, sums, b);
}

}  // namespace fluidc::kernels::cuda::dev
