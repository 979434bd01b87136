// kernels/linalg_misc.h - small matrix ops: diag_v2, eye, trace, kron, cross and mv, with the gradients Paddle has.
//
// Forwards take fp32, fp64, int32 and int64 (eye makes any of them);
// gradients fp32 and fp64.
#pragma once

#include <cstdint>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `diag_v2` (paddle.diag) and its gradient. offset > 0 is
/// above the main diagonal, < 0 below.
struct DiagV2Attrs {
  int offset = 0;
  float padding_value = 0.0f;
  template <class F>
  static void fields(F&& f) {
    f("offset", &DiagV2Attrs::offset);
    f("padding_value", &DiagV2Attrs::padding_value);
  }
};
/// X [N] (or 0-D, one element) -> Out [N + |offset|]^2: padding_value with X
/// on diagonal `offset`. X [H, W] -> Out [L]: diagonal `offset` of X.
void diag_v2(const Tensor& x, Tensor& out, const DiagV2Attrs& attrs);
/// X@GRAD: Out@GRAD's diagonal (1-D X), or Out@GRAD placed on the diagonal
/// of zeros (2-D X).
void diag_v2_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const DiagV2Attrs& attrs);

/// Attributes of `eye`: num_columns -1 means num_rows; dtype a Paddle
/// VarType code (rt::DType value).
struct EyeAttrs {
  int64_t num_rows = -1;
  int64_t num_columns = -1;
  int dtype = 5;
  template <class F>
  static void fields(F&& f) {
    f("num_rows", &EyeAttrs::num_rows, kRequiredAttr);
    f("num_columns", &EyeAttrs::num_columns);
    f("dtype", &EyeAttrs::dtype);
  }
};
/// Out [num_rows, num_columns]: ones on the main diagonal, zeros elsewhere.
void eye(Tensor& out, const EyeAttrs& attrs);

/// Attributes of `trace` and `trace_grad`: the diagonal `offset` of the
/// matrices spanned by axes axis1 and axis2 (distinct, negative from the
/// end). As in Paddle 2.6.2, the earlier of the two axes holds the rows
/// whatever their order (numpy's trace would follow axis1).
struct TraceAttrs {
  int offset = 0;
  int axis1 = 0;
  int axis2 = 1;
  template <class F>
  static void fields(F&& f) {
    f("offset", &TraceAttrs::offset);
    f("axis1", &TraceAttrs::axis1);
    f("axis2", &TraceAttrs::axis2);
  }
};
/// Out: Input's dims without axis1 and axis2 (0-D for a matrix), each the
/// sum of its matrix's diagonal `offset` (0 when that diagonal is empty).
void trace(const Tensor& input, Tensor& out, const TraceAttrs& attrs);
/// Input@GRAD: Out@GRAD on each matrix's diagonal, zeros elsewhere.
void trace_grad(const Tensor& input, const Tensor& out_grad, Tensor* input_grad, const TraceAttrs& attrs);

/// Kronecker product: the lower-rank operand gets leading 1-dims; Out dim i
/// = X dim i * Y dim i, Out[i * Ydims + j] = X[i] * Y[j] (per dim). One dtype.
void kron(const Tensor& x, const Tensor& y, Tensor& out);
/// X@GRAD[i] = sum_j Out@GRAD[i, j] Y[j]; Y@GRAD[j] = sum_i Out@GRAD[i, j] X[i].
void kron_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad);

/// Attributes of `cross` (paddle.cross): `dim` the axis of size 3 holding the
/// vectors; 9 (Paddle's "unset") means the first axis of size 3.
struct CrossAttrs {
  int dim = 9;
  template <class F>
  static void fields(F&& f) {
    f("dim", &CrossAttrs::dim);
  }
};
/// Out = X x Y along `dim` (X and Y of one shape and dtype).
void cross(const Tensor& x, const Tensor& y, Tensor& out, const CrossAttrs& attrs);
/// X@GRAD = Y x Out@GRAD, Y@GRAD = Out@GRAD x X.
void cross_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad,
                const CrossAttrs& attrs);

/// paddle.mv: Out [M] = X [M, N] times Vec [N]. fp32 and fp64.
void mv(const Tensor& x, const Tensor& vec, Tensor& out);
/// X@GRAD = Out@GRAD Vec^T (an outer product), Vec@GRAD = X^T Out@GRAD.
void mv_grad(const Tensor& x, const Tensor& vec, const Tensor& out_grad, Tensor* x_grad, Tensor* vec_grad);

}  // namespace fluidc::kernels
