// kernels/cpu/rows_f32.cc - softmax_grad and layer_norm_grad along fp32 rows: straight loops the compiler vectorises, per ISA.
//
// The generic normalisation gradient (norm.cc) visits one element at a time
// through a callback with its optional operands tested inside: scalar code,
// 10% of the BERT-tiny training step (softmax_grad's generic loop, 5%,
// sums one element at a time). Here each row is a few straight loops. No
// FMA contraction, so every copy rounds alike.
#include "kernels/cpu/rows_f32.h"

#include "kernels/cpu/isa_clones.h"
#include "kernels/loop_hints.h"

#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels::detail {
namespace {

constexpr int kLanes = 8;

template <bool kScale>
[[gnu::always_inline]] inline void rows_impl(int64_t rows, int64_t cols, const float* x, const float* dy,
                                             const float* scale, const double* mean, const double* inv, float* dx,
                                             double* dscale, double* dbias) {
  const double count = static_cast<double>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* gr = dy + r * cols;
    const double m = mean[r], iv = inv[r];
    auto xhat = [&](int64_t j) { return (static_cast<double>(xr[j]) - m) * iv; };
    auto g = [&](int64_t j) {
      return kScale ? static_cast<double>(gr[j]) * static_cast<double>(scale[j]) : static_cast<double>(gr[j]);
    };
    double sg[kLanes] = {}, sgx[kLanes] = {};
    int64_t j = 0;
    for (; j + kLanes <= cols; j += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        sg[l] += g(j + l);
        sgx[l] += g(j + l) * xhat(j + l);
      }
    for (int l = 0; j < cols; ++j, ++l) {
      sg[l] += g(j);
      sgx[l] += g(j) * xhat(j);
    }
    double s = 0, sx = 0;
    for (int l = 0; l < kLanes; ++l) s += sg[l], sx += sgx[l];
    if (dscale)
      for (int64_t c = 0; c < cols; ++c) dscale[c] += static_cast<double>(gr[c]) * xhat(c);
    if (dbias)
      for (int64_t c = 0; c < cols; ++c) dbias[c] += static_cast<double>(gr[c]);
    if (dx) {
      float* out = dx + r * cols;
      for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<float>(iv * (g(c) - s / count - xhat(c) * sx / count));
    }
  }
}

[[gnu::always_inline]] inline void layer_norm_grad_rows_f32_body(int64_t rows, int64_t cols, const float* x,
                                                                 const float* dy, const float* scale,
                                                                 const double* mean, const double* inv, float* dx,
                                                                 double* dscale, double* dbias) {
  if (scale) rows_impl<true>(rows, cols, x, dy, scale, mean, inv, dx, dscale, dbias);
  else rows_impl<false>(rows, cols, x, dy, scale, mean, inv, dx, dscale, dbias);
}

[[gnu::always_inline]] inline void softmax_grad_rows_f32_body(int64_t rows, int64_t n, const float* out,
                                                              const float* dy, float* dx) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* o = out + r * n;
    const float* d = dy + r * n;
    double part[kLanes] = {};
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int l = 0; l < kLanes; ++l) part[l] += static_cast<double>(o[j + l]) * static_cast<double>(d[j + l]);
    for (int l = 0; j < n; ++j, ++l) part[l] += static_cast<double>(o[j]) * static_cast<double>(d[j]);
    double acc = 0;
    for (int l = 0; l < kLanes; ++l) acc += part[l];
    const float s = static_cast<float>(acc);
    float* g = dx + r * n;
    FLUIDC_ELEMENTWISE_LOOP
    for (int64_t c = 0; c < n; ++c) g[c] = (d[c] - s) * o[c];
  }
}

}  // namespace

FLUIDC_ISA_CLONES(void, softmax_grad_rows_f32, (int64_t rows, int64_t n, const float* out, const float* dy, float* dx),
                  (rows, n, out, dy, dx))

FLUIDC_ISA_CLONES(void, layer_norm_grad_rows_f32,
                  (int64_t rows, int64_t cols, const float* x, const float* dy, const float* scale,
                   const double* mean, const double* inv, float* dx, double* dscale, double* dbias),
                  (rows, cols, x, dy, scale, mean, inv, dx, dscale, dbias))

}  // namespace fluidc::kernels::detail
