// kernels/cpu/rows_f32.h - private: kernels along contiguous fp32 rows (softmax and its grad, layer_norm_grad, batch_norm_grad's planes, a bias's gradient), vectorised per instruction set.
#pragma once

#include <cstdint>

namespace fluidc::kernels::detail {

/// layer_norm_grad for X [rows, cols] (normalised over each row; mean[r]
/// and inv[r] = 1/sqrt(var + eps) in double). Adds each row's
/// Y@GRAD * xhat to dscale[c] and Y@GRAD to dbias[c] in row order, and
/// writes dx = inv * (g - sum(g)/cols - xhat * sum(g * xhat)/cols) with
/// g = Y@GRAD * scale; any of scale, dx, dscale, dbias may be null. The two
/// row sums are taken in 8 interleaved partial sums (the vector lanes), in
/// the same order on every instruction set.
void layer_norm_grad_rows_f32(int64_t rows, int64_t cols, const float* x, const float* dy, const float* scale,
                              const double* mean, const double* inv, float* dx, double* dscale, double* dbias);

/// x - max clipped below at this before exp, as Paddle's CPU softmax does.
inline constexpr float kSoftmaxClip = -64.0f;

/// softmax along contiguous rows of n: y = e^(max(x - max(x), -64)) / sum,
/// with exp_f32 (kernels/pointwise.h, about 3 ulp) and the sum in double (8
/// interleaved partial sums). y may be x.
void softmax_rows_f32(int64_t rows, int64_t n, const float* x, float* y);

/// softmax_grad along contiguous rows of n: dx = (dy - sum(dy * out)) * out
/// per row, the sum in double (8 interleaved partial sums, as above) and
/// rounded to float before use, as the generic loop does. dx may be out or
/// dy (each row's sum is complete before the row is written).
void softmax_grad_rows_f32(int64_t rows, int64_t n, const float* out, const float* dy, float* dx);

/// batch_norm_grad with the batch's statistics over channel-first planes:
/// x and dy [N, C, S]; mean[c] and inv[c] = 1/sqrt(var + eps). Adds
/// sum(dy) to dbias[c] and sum(dy * xhat) to dscale[c] (both zeroed by the
/// caller), then, when dx is set, writes dx = inv * (dy * scale -
/// scale * dbias / count - xhat * scale * dscale / count), count = N * S.
/// dx may be dy (every sum is complete before dx is written).
void batch_norm_grad_planes_f32(int64_t N, int64_t C, int64_t S, const float* x, const float* dy, const float* scale,
                                const double* mean, const double* inv, float* dx, double* dscale, double* dbias);

/// acc[m] += the sum over p and q of g[(p * mid + m) * post + q]: the
/// gradient of a bias broadcast over the dims before and after its own
/// (elementwise_add_grad's Y@GRAD). With post == 1 each acc[m] adds the
/// rows in order; otherwise each run of `post` is summed in lanes first.
void bias_grad_f32(int64_t pre, int64_t mid, int64_t post, const float* g, double* acc);

}  // namespace fluidc::kernels::detail
