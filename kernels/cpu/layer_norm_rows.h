// kernels/cpu/layer_norm_rows.h - private: layer_norm_grad over fp32 rows, vectorised (one copy per instruction set).
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

}  // namespace fluidc::kernels::detail
