// kernels/cpu/rows_f32.cc - softmax, softmax_grad and layer_norm_grad along fp32 rows: straight loops the compiler vectorises, per ISA.
//
// The generic normalisation gradient (norm.cc) visits one element at a time
// through a callback with its optional operands tested inside: scalar code,
// 10% of the BERT-tiny training step (softmax_grad's generic loop, 5%,
// sums one element at a time). Here each row is a few straight loops. No
// FMA contraction, so every copy rounds alike.
#include "kernels/cpu/rows_f32.h"

#include <array>

#include "kernels/cpu/isa_clones.h"
#include "kernels/loop_hints.h"
#include "kernels/pointwise.h"

#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels::detail {
namespace {

constexpr int kLanes = 8;

/// The K sums over j in [0, n) of terms(j) (an array of K doubles), each in
/// kLanes interleaved partial sums added up at the end: the same order on
/// every instruction set, and loops the compiler vectorises.
template <int K, class Terms>
[[gnu::always_inline]] inline std::array<double, K> lane_sums(int64_t n, Terms terms) {
  double part[K][kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const std::array<double, K> t = terms(j + l);
      for (int k = 0; k < K; ++k) part[k][l] += t[k];
    }
  for (int l = 0; j < n; ++j, ++l) {
    const std::array<double, K> t = terms(j);
    for (int k = 0; k < K; ++k) part[k][l] += t[k];
  }
  std::array<double, K> out{};
  for (int k = 0; k < K; ++k)
    for (int l = 0; l < kLanes; ++l) out[k] += part[k][l];
  return out;
}

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
    const auto [s, sx] = lane_sums<2>(cols, [&](int64_t j) { return std::array<double, 2>{g(j), g(j) * xhat(j)}; });
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

// y = e^(max(x - mx, -64)). A clone of its own: inlined after the max
// loops, clang 14 leaves this loop scalar ("value that could not be
// identified as reduction is used outside the loop").
[[gnu::always_inline]] inline void exp_shifted_f32_body(int64_t n, const float* x, float* y, float mx) {
  FLUIDC_ELEMENTWISE_LOOP
  for (int64_t c = 0; c < n; ++c) {
    const float shifted = x[c] - mx;
    y[c] = pw::exp_f32(shifted < kSoftmaxClip ? kSoftmaxClip : shifted);
  }
}
FLUIDC_ISA_CLONES(void, exp_shifted_f32, (int64_t n, const float* x, float* y, float mx), (n, x, y, mx))

[[gnu::always_inline]] inline void softmax_rows_f32_body(int64_t rows, int64_t n, const float* x, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    // The max in lanes (exact in any order), then one pass of exp_f32 (a
    // vectorisable exp, not libm's call per element: 5% of the BERT-tiny
    // step), then the sum in lanes.
    float lane_max[kLanes];
    for (int l = 0; l < kLanes; ++l) lane_max[l] = xr[0];
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int l = 0; l < kLanes; ++l) lane_max[l] = xr[j + l] > lane_max[l] ? xr[j + l] : lane_max[l];
    for (int l = 0; j < n; ++j, ++l) lane_max[l] = xr[j] > lane_max[l] ? xr[j] : lane_max[l];
    float mx = lane_max[0];
    for (int l = 1; l < kLanes; ++l) mx = lane_max[l] > mx ? lane_max[l] : mx;
    exp_shifted_f32(n, xr, yr, mx);
    const float inv = 1.0f / static_cast<float>(
        lane_sums<1>(n, [&](int64_t c) { return std::array<double, 1>{static_cast<double>(yr[c])}; })[0]);
    FLUIDC_ELEMENTWISE_LOOP
    for (int64_t c = 0; c < n; ++c) yr[c] *= inv;
  }
}

[[gnu::always_inline]] inline void softmax_grad_rows_f32_body(int64_t rows, int64_t n, const float* out,
                                                              const float* dy, float* dx) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* o = out + r * n;
    const float* d = dy + r * n;
    const float s = static_cast<float>(lane_sums<1>(n, [&](int64_t j) {
      return std::array<double, 1>{static_cast<double>(o[j]) * static_cast<double>(d[j])};
    })[0]);
    float* g = dx + r * n;
    FLUIDC_ELEMENTWISE_LOOP
    for (int64_t c = 0; c < n; ++c) g[c] = (d[c] - s) * o[c];
  }
}

[[gnu::always_inline]] inline void batch_norm_grad_planes_f32_body(int64_t N, int64_t C, int64_t S, const float* x,
                                                                   const float* dy, const float* scale,
                                                                   const double* mean, const double* inv, float* dx,
                                                                   double* dscale, double* dbias) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      const float* xp = x + (n * C + c) * S;
      const float* gp = dy + (n * C + c) * S;
      const double m = mean[c], iv = inv[c];
      const auto [sd, sdx] = lane_sums<2>(S, [&](int64_t j) {
        const double d = gp[j];
        return std::array<double, 2>{d, d * ((static_cast<double>(xp[j]) - m) * iv)};
      });
      dbias[c] += sd;
      dscale[c] += sdx;
    }
  if (!dx) return;
  const double count = static_cast<double>(N * S);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      const float* xp = x + (n * C + c) * S;
      const float* gp = dy + (n * C + c) * S;
      float* out = dx + (n * C + c) * S;
      const double m = mean[c], iv = inv[c], sc = scale[c];
      const double mean_g = sc * dbias[c] / count, mean_gx = sc * dscale[c] / count;
      for (int64_t j = 0; j < S; ++j) {
        const double xhat = (static_cast<double>(xp[j]) - m) * iv;
        out[j] = static_cast<float>(iv * (static_cast<double>(gp[j]) * sc - mean_g - xhat * mean_gx));
      }
    }
}

[[gnu::always_inline]] inline void bias_grad_f32_body(int64_t pre, int64_t mid, int64_t post, const float* g,
                                                      double* acc) {
  for (int64_t p = 0; p < pre; ++p) {
    const float* rows = g + p * mid * post;
    if (post == 1) {
      for (int64_t m = 0; m < mid; ++m) acc[m] += static_cast<double>(rows[m]);
      continue;
    }
    for (int64_t m = 0; m < mid; ++m) {
      const float* run = rows + m * post;
      acc[m] += lane_sums<1>(post, [&](int64_t q) { return std::array<double, 1>{static_cast<double>(run[q])}; })[0];
    }
  }
}

}  // namespace

FLUIDC_ISA_CLONES(void, bias_grad_f32, (int64_t pre, int64_t mid, int64_t post, const float* g, double* acc),
                  (pre, mid, post, g, acc))

FLUIDC_ISA_CLONES(void, batch_norm_grad_planes_f32,
                  (int64_t N, int64_t C, int64_t S, const float* x, const float* dy, const float* scale,
                   const double* mean, const double* inv, float* dx, double* dscale, double* dbias),
                  (N, C, S, x, dy, scale, mean, inv, dx, dscale, dbias))

FLUIDC_ISA_CLONES(void, softmax_rows_f32, (int64_t rows, int64_t n, const float* x, float* y), (rows, n, x, y))

FLUIDC_ISA_CLONES(void, softmax_grad_rows_f32, (int64_t rows, int64_t n, const float* out, const float* dy, float* dx),
                  (rows, n, out, dy, dx))

FLUIDC_ISA_CLONES(void, layer_norm_grad_rows_f32,
                  (int64_t rows, int64_t cols, const float* x, const float* dy, const float* scale,
                   const double* mean, const double* inv, float* dx, double* dscale, double* dbias),
                  (rows, cols, x, dy, scale, mean, inv, dx, dscale, dbias))

}  // namespace fluidc::kernels::detail
