// kernels/unary_math.h - elementwise logarithms, exponentials, trigonometric and hyperbolic functions, logit, erfinv, round/trunc, isnan/isinf/isfinite.
//
// Included by kernels/activation.h (the family's header). Forward kernels
// take fp32 or fp64 (trunc also int32 and int64, which it leaves as they
// are), give Out X's shape and dtype and may write Out over X; gradients
// read X (expm1: Out) and Out@GRAD, and X@GRAD may alias either. Outside a
// function's domain (asin(2), log2(-1)) the result is NaN, as in Paddle.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Out = ln(1 + X); X@GRAD = Out@GRAD / (1 + X).
void log1p(const Tensor& x, Tensor& out);
void log1p_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// Out = log2(X); X@GRAD = Out@GRAD / (X ln 2).
void log2(const Tensor& x, Tensor& out);
void log2_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// Out = log10(X); X@GRAD = Out@GRAD / (X ln 10).
void log10(const Tensor& x, Tensor& out);
void log10_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// Out = e^X - 1; X@GRAD = Out@GRAD * (Out + 1) (from Out, as Paddle).
void expm1(const Tensor& x, Tensor& out);
void expm1_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// X@GRAD = Out@GRAD / sqrt(1 - X^2).
void asin(const Tensor& x, Tensor& out);
void asin_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = -Out@GRAD / sqrt(1 - X^2).
void acos(const Tensor& x, Tensor& out);
void acos_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD / (1 + X^2).
void atan(const Tensor& x, Tensor& out);
void atan_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD / cos(X)^2.
void tan(const Tensor& x, Tensor& out);
void tan_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD * cosh(X).
void sinh(const Tensor& x, Tensor& out);
void sinh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD * sinh(X).
void cosh(const Tensor& x, Tensor& out);
void cosh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD / sqrt(X^2 + 1).
void asinh(const Tensor& x, Tensor& out);
void asinh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD / sqrt(X^2 - 1).
void acosh(const Tensor& x, Tensor& out);
void acosh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
/// X@GRAD = Out@GRAD / (1 - X^2).
void atanh(const Tensor& x, Tensor& out);
void atanh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Attributes of `logit`.
struct LogitAttrs {
  float eps = 1e-6f;  ///< X is clipped to [eps, 1 - eps] first; 0: no clipping, NaN outside [0, 1]

  template <class F>
  static void fields(F&& f) {
    f("eps", &LogitAttrs::eps);
  }
};
/// paddle.logit: Out = ln(t / (1 - t)) with t = X clipped to [eps, 1 - eps]
/// (eps = 0: t = X, and NaN where X is outside [0, 1]). X@GRAD = Out@GRAD /
/// ((1 - X) X) inside [eps, 1 - eps], 0 outside it, as Paddle.
void logit(const Tensor& x, Tensor& out, const LogitAttrs& a);
void logit_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const LogitAttrs& a);
/// paddle.erfinv: Out = the inverse error function of X (+inf from 1 up,
/// -inf from -1 down, as Paddle's saturating form gives); X@GRAD = Out@GRAD sqrt(pi) / 2 e^(Out^2), from Out as
/// Paddle.
void erfinv(const Tensor& x, Tensor& out);
void erfinv_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = X rounded to the nearest integer, halves away from zero (Paddle's
/// round: 2.5 -> 3, -0.5 -> -1).
void round(const Tensor& x, Tensor& out);
/// Out = X rounded toward zero.
void trunc(const Tensor& x, Tensor& out);
/// Paddle's round_grad and trunc_grad: zeros shaped like Out@GRAD.
void round_grad(const Tensor& out_grad, Tensor* x_grad);
void trunc_grad(const Tensor& out_grad, Tensor* x_grad);

/// Out (bool, X's shape) = whether each element is NaN / +-inf / neither.
/// X: fp32, fp64, int32 or int64 (integers are always finite).
void isnan_v2(const Tensor& x, Tensor& out);
void isinf_v2(const Tensor& x, Tensor& out);
void isfinite_v2(const Tensor& x, Tensor& out);
/// Fluid 1.x's isnan and isinf (fluid.layers.has_nan, has_inf): Out (bool, [1]) = whether any element
/// of X is NaN / +-inf. X: fp32, fp64, int32 or int64 (integers have neither).
void isnan(const Tensor& x, Tensor& out);
void isinf(const Tensor& x, Tensor& out);

}  // namespace fluidc::kernels
