// kernels/matmul.h - mul, matmul (v1), matmul_v2 and addmm with their gradients over fluidc's own fp32 GEMM.
//
// fp32 goes through a packed, register-tiled GEMM (kernels/cpu/sgemm.cc);
// fp64 uses a plain loop (correct, not fast).
// Any output may be the same object as an input: the product is then formed
// in a scratch buffer and copied.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `mul` and `mul_grad`.
struct MulAttrs {
  int x_num_col_dims = 1;
  int y_num_col_dims = 1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("x_num_col_dims", &MulAttrs::x_num_col_dims);
    f("y_num_col_dims", &MulAttrs::y_num_col_dims);
  }
};

/// Attributes of `matmul` (v1) and `matmul_grad`.
struct MatmulAttrs {
  bool transpose_X = false;
  bool transpose_Y = false;
  float alpha = 1.0f;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("transpose_X", &MatmulAttrs::transpose_X);
    f("transpose_Y", &MatmulAttrs::transpose_Y);
    f("alpha", &MatmulAttrs::alpha);
  }
};

/// Attributes of `matmul_v2` and `matmul_v2_grad`.
struct MatmulV2Attrs {
  bool trans_x = false;
  bool trans_y = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("trans_x", &MatmulV2Attrs::trans_x);
    f("trans_y", &MatmulV2Attrs::trans_y);
  }
};

/// Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), where
/// flatten(T, k) is the 2-D view [prod(dims[:k]), prod(dims[k:])].
/// Out shape = X.dims[:x_num_col_dims] + Y.dims[y_num_col_dims:].
void mul(const Tensor& x, const Tensor& y, Tensor& out, const MulAttrs& attrs);
/// X@GRAD = Out@GRAD @ Y^T, Y@GRAD = X^T @ Out@GRAD on the flattened views.
void mul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad,
              const MulAttrs& attrs);

/// Paddle's matmul v1: Out = alpha * op(X) @ op(Y) over the last two dims.
/// A 1-D X is a row [1, D] (a column when transposed), a 1-D Y a column
/// [D, 1]; the dims that added are dropped from Out ([1] if none remain).
/// Leading (batch) dims are flattened; their element counts must be equal,
/// or one operand must have none (it is then shared by every batch).
void matmul(const Tensor& x, const Tensor& y, Tensor& out, const MatmulAttrs& attrs);
/// Gradients of matmul; an operand shared across batches gets the sum.
void matmul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                 Tensor* y_grad, const MatmulAttrs& attrs);

/// numpy.matmul semantics with optional transposes of the last two dims:
/// 1-D operands are promoted (X to [1, K], Y to [K, 1]; their trans flag is
/// ignored) and the added dim removed from Out (1-D @ 1-D gives a 0-D Out);
/// batch dims broadcast numpy style.
void matmul_v2(const Tensor& x, const Tensor& y, Tensor& out, const MatmulV2Attrs& attrs);
/// Gradients of matmul_v2, summed over the batch dims each operand was
/// broadcast along.
void matmul_v2_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                    Tensor* y_grad, const MatmulV2Attrs& attrs);

/// Attributes of `addmm` and `addmm_grad` (Paddle's capitalised names).
struct AddmmAttrs {
  float Alpha = 1.0f;  ///< scales X @ Y
  float Beta = 1.0f;   ///< scales Input

  template <class F>
  static void fields(F&& f) {
    f("Alpha", &AddmmAttrs::Alpha);
    f("Beta", &AddmmAttrs::Beta);
  }
};
/// paddle.addmm: Out [M, N] = Beta * Input + Alpha * (X @ Y), X [M, K], Y
/// [K, N]. Input broadcasts as paddle.addmm allows: [M, N], [1, N], [M, 1],
/// [1, 1], or 1-D [N] or [1]. fp32, fp64 (one dtype for all three).
void addmm(const Tensor& input, const Tensor& x, const Tensor& y, Tensor& out, const AddmmAttrs& attrs);
/// Input@GRAD = Beta * Out@GRAD summed down to Input's shape; X@GRAD = Alpha *
/// Out@GRAD @ Y^T; Y@GRAD = Alpha * X^T @ Out@GRAD.
void addmm_grad(const Tensor& input, const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* input_grad,
                Tensor* x_grad, Tensor* y_grad, const AddmmAttrs& attrs);

/// bmm takes no attributes; the empty struct lets it share the product shape rule.
struct BmmAttrs {
  template <class F>
  static void fields(F&&) {}
};
/// Out[b] = X[b] @ Y[b] for X [B, M, K], Y [B, K, N] (no broadcasting).
void bmm(const Tensor& x, const Tensor& y, Tensor& out);
/// X@GRAD[b] = Out@GRAD[b] @ Y[b]^T, Y@GRAD[b] = X[b]^T @ Out@GRAD[b].
void bmm_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad);

/// dot takes no attributes; the empty struct lets it share the product shape rule.
struct DotAttrs {
  template <class F>
  static void fields(F&&) {}
};
/// Out = sum of X * Y along the last dim: X and Y both [D] (Out 0-D) or
/// both [N, D] (Out [N], one product per row). fp32, fp64, int32, int64.
void dot(const Tensor& x, const Tensor& y, Tensor& out);
/// X@GRAD = Out@GRAD * Y, Y@GRAD = Out@GRAD * X (Out@GRAD repeated along D).
void dot_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad);

}  // namespace fluidc::kernels
