// kernels/cpu/rnn_impl.h - private to rnn.cc and rnn_grad.cc: sizes, weight and Reserve layout, GEMM helpers.
#pragma once

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/shapes/rnn.h"

namespace fluidc::kernels::detail {

enum class RnnMode { kLstm, kGru, kTanh, kRelu };

/// C[M,N] = op(A) @ op(B) + beta * C, row-major. fp32 goes to the packed
/// GEMM; fp64 (tests, gradient checks) to a plain loop.
inline void rnn_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                     const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0 ? 0.0f : beta * C[i * ldc + j];
    return;
  }
  packed_sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
}

inline void rnn_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
                     const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    double* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = beta == 0 ? 0.0 : beta * c[j];
    for (int64_t k = 0; k < K; ++k) {
      const double a = ta ? A[k * lda + i] : A[i * lda + k];
      if (a == 0) continue;
      if (tb)
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[j * ldb + k];
      else
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[k * ldb + j];
    }
  }
}

/// A per-thread grow-only buffer of n elements (index k: distinct live buffers).
template <class T> T* rnn_buffer(int k, int64_t n) {
  thread_local std::vector<T> bufs[8];
  auto& v = bufs[k];
  if (static_cast<int64_t>(v.size()) < n) v.resize(static_cast<size_t>(n));
  return v.data();
}

/// Each step's recurrent product P[B, GH] = h[B, H] @ W_hh^T. A GEMM would
/// pack W_hh again at every one of the T steps; for fp32 and a small batch
/// W_hh is transposed once (rnn_buffer 1) and each row of P is a
/// vector-matrix product over its contiguous rows (row_times_matrix: nothing
/// packed). The CRNN recogniser's LSTM (batch 1, 80 steps) spent more in
/// that packing than in the products.
template <class T>
class RecurrentProduct {
 public:
  RecurrentProduct(const T* whh, int64_t B, int64_t H, int64_t GH) : whh_(whh), B_(B), H_(H), GH_(GH) {
    if (!by_rows()) return;
    T* wt = rnn_buffer<T>(1, H * GH);
    for (int64_t g = 0; g < GH; ++g)
      for (int64_t k = 0; k < H; ++k) wt[k * GH + g] = whh[g * H + k];
    wt_ = wt;
  }
  void operator()(const T* h, T* out) const {
    if constexpr (std::is_same_v<T, float>) {
      if (by_rows()) {
        for (int64_t b = 0; b < B_; ++b) row_times_matrix(GH_, H_, 1.0f, h + b * H_, wt_, 0.0f, out + b * GH_);
        return;
      }
    }
    rnn_gemm(false, true, B_, GH_, H_, h, H_, whh_, H_, T(0), out, GH_);
  }

 private:
  // Up to 4 rows the rows stream the transposed weight from cache; beyond,
  // the GEMM's register tiles reuse it better.
  bool by_rows() const { return std::is_same_v<T, float> && B_ <= 4 && H_ > 0; }
  const T* whh_;
  const T* wt_ = nullptr;
  int64_t B_, H_, GH_;
};

/// The op's sizes and where each layer's data lives; validates the inputs.
struct RnnPlan {
  shapes::RnnDims d;
  RnnMode mode = RnnMode::kLstm;
  int64_t GH = 0;  ///< gate columns, G * H
  std::vector<int64_t> lens;  ///< per sequence, empty without SequenceLength

  int cells() const { return static_cast<int>(d.L * d.D); }
  int64_t layer_in(int64_t l) const { return l == 0 ? d.I : d.D * d.H; }
  const Tensor& w_ih(const Tensor* const* w, int64_t l, int64_t dir) const { return *w[2 * (l * d.D + dir)]; }
  const Tensor& w_hh(const Tensor* const* w, int64_t l, int64_t dir) const { return *w[2 * (l * d.D + dir) + 1]; }
  const Tensor& b_ih(const Tensor* const* w, int64_t l, int64_t dir) const {
    return *w[2 * cells() + 2 * (l * d.D + dir)];
  }
  const Tensor& b_hh(const Tensor* const* w, int64_t l, int64_t dir) const {
    return *w[2 * cells() + 2 * (l * d.D + dir) + 1];
  }
  int weight_index(int64_t l, int64_t dir, int k) const {  // k: 0 w_ih, 1 w_hh, 2 b_ih, 3 b_hh
    return (k < 2 ? 0 : 2 * cells()) + 2 * static_cast<int>(l * d.D + dir) + (k & 1);
  }
  // Reserve layout (kernels/shapes/rnn.h): per cell gates, aux, hidden; then inner layer outputs.
  int64_t cell_stride() const { return d.T * d.B * (d.G + 2) * d.H; }
  int64_t gates_off(int64_t l, int64_t dir) const { return (l * d.D + dir) * cell_stride(); }
  int64_t aux_off(int64_t l, int64_t dir) const { return gates_off(l, dir) + d.T * d.B * GH; }
  int64_t hid_off(int64_t l, int64_t dir) const { return aux_off(l, dir) + d.T * d.B * d.H; }
  int64_t layer_out_off(int64_t l) const { return d.L * d.D * cell_stride() + l * d.T * d.B * d.D * d.H; }
  bool valid(int64_t t, int64_t b) const { return lens.empty() || t < lens[b]; }
  /// The time index of processing step s for a direction (backward runs T-1 .. 0).
  int64_t time_at(int64_t dir, int64_t s) const { return dir == 0 ? s : d.T - 1 - s; }
};

/// Checks Input, PreState, WeightList and SequenceLength against the
/// attributes and fills the plan; fails with `op`'s name otherwise.
RnnPlan rnn_plan(const char* op, const Tensor& input, const Tensor* const* pre_state, int num_pre_state,
                 const Tensor* const* weights, int num_weights, const Tensor* sequence_length, const RnnAttrs& a);

}  // namespace fluidc::kernels::detail
