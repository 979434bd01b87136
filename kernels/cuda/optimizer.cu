// kernels/cuda/optimizer.cu - fp32 sgd, momentum and adam updates on the device, in the CPU kernels' arithmetic order.
#include "kernels/cuda/device.h"
#include "kernels/cuda/device_loops.cuh"

namespace fluidc::kernels::cuda::dev {
namespace {

__global__ void sgd_k(const float* p, const float* lr, const float* g, float* po, int64_t n) {
  const float l = *lr;
  FLUIDC_GRID_LOOP(i, n) po[i] = p[i] - l * g[i];
}

__global__ void momentum_k(const float* p, const float* g, const float* v, const float* lr, float* po, float* vo,
                           int64_t n, float mu, bool nesterov, bool l2, float coeff) {
  const float l = *lr;
  FLUIDC_GRID_LOOP(i, n) {
    const float pi = p[i];
    const float gi = l2 ? pi * coeff + g[i] : g[i];
    const float vi = v[i] * mu + gi;
    po[i] = nesterov ? pi - (gi + vi * mu) * l : pi - l * vi;
    vo[i] = vi;
  }
}

__global__ void adam_k(const float* p, const float* g, const float* lr, const float* m1, const float* m2,
                       const float* b1p, const float* b2p, const float* beta1_dev, const float* beta2_dev,
                       const float* eps_dev, float* po, float* m1o, float* m2o, int64_t n, float beta1, float beta2,
                       float epsilon) {
  const float b1 = beta1_dev ? *beta1_dev : beta1, b2 = beta2_dev ? *beta2_dev : beta2;
  const float e0 = eps_dev ? *eps_dev : epsilon;
  // Bias correction folded into the step size and epsilon, as Paddle (and the CPU kernel) does.
  const float lr_t = *lr * (sqrtf(1.f - *b2p) / (1.f - *b1p));
  const float eps = e0 * sqrtf(1.f - *b2p);
  FLUIDC_GRID_LOOP(i, n) {
    const float gi = g[i];
    const float a = b1 * m1[i] + (1.f - b1) * gi;
    const float b = b2 * m2[i] + (1.f - b2) * gi * gi;
    const float pi = p[i];
    m1o[i] = a;
    m2o[i] = b;
    po[i] = pi + (-lr_t) * (a / (sqrtf(b) + eps));
  }
}

__global__ void adam_pows_k(const float* b1p, const float* b2p, float* b1o, float* b2o, const float* beta1_dev,
                            const float* beta2_dev, float beta1, float beta2) {
  const float b1 = beta1_dev ? *beta1_dev : beta1, b2 = beta2_dev ? *beta2_dev : beta2;
  const float x = *b1p * b1, y = *b2p * b2;
  if (b1o) *b1o = x;
  if (b2o) *b2o = y;
}

}  // namespace

void sgd(const float* p, const float* lr, const float* g, float* po, int64_t n, cudaStream_t st) {
  const Grid gr = grid_for(n);
  sgd_k<<<gr.blocks, gr.threads, 0, st>>>(p, lr, g, po, n);
}

void momentum(const float* p, const float* g, const float* v, const float* lr, float* po, float* vo, int64_t n,
              float mu, bool nesterov, bool l2, float coeff, cudaStream_t st) {
  const Grid gr = grid_for(n);
  momentum_k<<<gr.blocks, gr.threads, 0, st>>>(p, g, v, lr, po, vo, n, mu, nesterov, l2, coeff);
}

void adam(const float* p, const float* g, const float* lr, const float* m1, const float* m2, const float* b1p,
          const float* b2p, const float* beta1_dev, const float* beta2_dev, const float* eps_dev, float* po,
          float* m1o, float* m2o, int64_t n, float beta1, float beta2, float eps, cudaStream_t st) {
  const Grid gr = grid_for(n);
  adam_k<<<gr.blocks, gr.threads, 0, st>>>(p, g, lr, m1, m2, b1p, b2p, beta1_dev, beta2_dev, eps_dev, po, m1o, m2o, n,
                                           beta1, beta2, eps);
}

void adam_pows(const float* b1p, const float* b2p, float* b1o, float* b2o, const float* beta1_dev,
               const float* beta2_dev, float beta1, float beta2, cudaStream_t st) {
  adam_pows_k<<<1, 1, 0, st>>>(b1p, b2p, b1o, b2o, beta1_dev, beta2_dev, beta1, beta2);
}

}  // namespace fluidc::kernels::cuda::dev
