// kernels/elementwise.h - binary elementwise ops with Paddle's axis broadcasting, and their gradients.
//
// Broadcasting: when X and Y differ in rank, the lower-rank operand's dims are
// aligned with the higher-rank one starting at `axis` (-1 = trailing, i.e.
// rank difference); afterwards any size-1 dim broadcasts against the other
// operand, in either direction (numpy style). Out has the broadcast shape and
// X's dtype; X and Y must share a dtype. Supported: fp32, fp64, int32, int64
// (integer division truncates toward zero; dividing by zero throws); the
// bitwise ops take bool, uint8, int8, int16, int32 and int64.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of every elementwise_* op and its gradient.
struct ElementwiseAttrs {
  int axis = -1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axis", &ElementwiseAttrs::axis);
  }
};

/// Out = X + Y.
void elementwise_add(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = X - Y.
void elementwise_sub(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = X * Y.
void elementwise_mul(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = X / Y.
void elementwise_div(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = max(X, Y) / min(X, Y) elementwise (paddle.maximum / minimum).
void elementwise_max(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
void elementwise_min(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// paddle.fmax / fmin: as max / min, but a NaN operand loses to a number.
void elementwise_fmax(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
void elementwise_fmin(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// paddle.heaviside: Out = 1 where X > 0, Y where X is 0, else 0.
void elementwise_heaviside(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = X mod Y with the divisor's sign (Python's %); not differentiable.
void elementwise_mod(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = X ^ Y; integers take the double power rounded to nearest (2 ^ -1 = 0), as Paddle does.
void elementwise_pow(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);
/// Out = floor(X / Y) (Python's //: -7 // 2 = -4); integer division by zero throws. Not differentiable.
void elementwise_floordiv(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs);

/// Bitwise ops on bool and integer tensors (logical for bool), numpy
/// broadcasting; they take no attributes.
void bitwise_and(const Tensor& x, const Tensor& y, Tensor& out);
void bitwise_or(const Tensor& x, const Tensor& y, Tensor& out);
void bitwise_xor(const Tensor& x, const Tensor& y, Tensor& out);
/// Out = ~X (logical not for bool).
void bitwise_not(const Tensor& x, Tensor& out);

/// X@GRAD = Out@GRAD, Y@GRAD = Out@GRAD, each summed over the dims along
/// which that operand was broadcast so it has its operand's shape.
void elementwise_add_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs);
/// X@GRAD = Out@GRAD, Y@GRAD = -Out@GRAD (reduced as for add).
void elementwise_sub_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs);
/// X@GRAD = Out@GRAD * Y, Y@GRAD = Out@GRAD * X (reduced as for add).
void elementwise_mul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs);
/// X@GRAD = Out@GRAD * Y * X^(Y-1), Y@GRAD = Out@GRAD * log(X) * X^Y (NaN
/// for X < 0, as in Paddle); reduced as for add.
void elementwise_pow_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs);
/// Out@GRAD goes to the operand the op took, Paddle's tie rule: max to X
/// where X > Y, else to Y; min to X where X < Y, else to Y; fmax to X where
/// X >= Y or Y is NaN, else to Y; fmin to X where X <= Y or Y is NaN, else
/// to Y (reduced as for add).
void elementwise_max_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs);
void elementwise_min_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs);
void elementwise_fmax_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                           Tensor* y_grad, const ElementwiseAttrs& attrs);
void elementwise_fmin_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                           Tensor* y_grad, const ElementwiseAttrs& attrs);
/// X@GRAD = 0; Y@GRAD = Out@GRAD where X is 0, else 0 (reduced as for add).
void elementwise_heaviside_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                                Tensor* y_grad, const ElementwiseAttrs& attrs);
/// X@GRAD = Out@GRAD / Y, Y@GRAD = -Out@GRAD * Out / Y (reduced as for add).
void elementwise_div_grad(const Tensor& x, const Tensor& y, const Tensor& out, const Tensor& out_grad,
                          Tensor* x_grad, Tensor* y_grad, const ElementwiseAttrs& attrs);

/// Out = atan2(X1, X2), the angle of the point (X2, X1), in (-pi, pi]. X1
/// and X2 share a dtype and a shape (no broadcasting, as Paddle). fp32 and
/// fp64 give their own dtype; int32 and int64 give fp64 (Paddle's rule)
/// holding the float32 atan2 of the operands, as Paddle computes it.
void atan2(const Tensor& x1, const Tensor& x2, Tensor& out);
/// X1@GRAD = Out@GRAD * X2 / (X1^2 + X2^2), X2@GRAD = -Out@GRAD * X1 /
/// (X1^2 + X2^2); fp32 and fp64 (Paddle has no integer gradient).
void atan2_grad(const Tensor& x1, const Tensor& x2, const Tensor& out_grad, Tensor* x1_grad, Tensor* x2_grad);

/// Fluid 1.x's minus: Out = X - Y for X and Y of one shape (no broadcasting,
/// as Paddle's MinusOp), float32 only (all Paddle registers). Paddle's backward writes its gradient
/// as two scale ops, so there is no minus_grad.
void minus(const Tensor& x, const Tensor& y, Tensor& out);

/// Out = X + Weight * (Y - X), the three broadcast together (numpy rule).
/// fp32, fp64.
void lerp(const Tensor& x, const Tensor& y, const Tensor& weight, Tensor& out);
/// X@GRAD = Out@GRAD * (1 - Weight), Y@GRAD = Out@GRAD * Weight, each summed
/// back over the dims it was broadcast along. Out is accepted (Paddle passes
/// it) but not read; Weight gets no gradient (Paddle gives none).
void lerp_grad(const Tensor& x, const Tensor& y, const Tensor& weight, const Tensor& out, const Tensor& out_grad,
               Tensor* x_grad, Tensor* y_grad);

}  // namespace fluidc::kernels
