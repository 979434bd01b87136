// kernels/vision_legacy.h - Fluid 1.x vision ops (affine_channel, lrn, norm, temporal_shift, index_sample) and gradients.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `affine_channel`. Paddle takes the channel axis to be 1
/// for "NCHW" and the LAST axis for anything else, including its default
/// "AnyLayout" (what a program without the attribute gets).
struct AffineChannelAttrs {
  std::string data_layout = "AnyLayout";

  template <class F>
  static void fields(F&& f) {
    f("data_layout", &AffineChannelAttrs::data_layout);
  }
};
/// Out = X * Scale[c] + Bias[c], c the channel of each element; Scale and
/// Bias hold C values. fp32, fp64.
void affine_channel(const Tensor& x, const Tensor& scale, const Tensor& bias, Tensor& out,
                    const AffineChannelAttrs& attrs);
/// X@GRAD = Out@GRAD * Scale[c]; Scale@GRAD[c] = sum of Out@GRAD * X over
/// channel c; Bias@GRAD[c] = sum of Out@GRAD over channel c.
void affine_channel_grad(const Tensor& x, const Tensor& scale, const Tensor& out_grad, Tensor* x_grad,
                         Tensor* scale_grad, Tensor* bias_grad, const AffineChannelAttrs& attrs);

/// Attributes of `lrn` and `lrn_grad` (local response normalisation across
/// channels). The channel axis is the last for "NHWC", 1 for anything else
/// (Paddle's default "AnyLayout" included).
struct LrnAttrs {
  int n = 5;  ///< window size in channels
  float k = 2.0f;
  float alpha = 1e-4f;
  float beta = 0.75f;
  std::string data_format = "AnyLayout";

  template <class F>
  static void fields(F&& f) {
    f("n", &LrnAttrs::n);
    f("k", &LrnAttrs::k);
    f("alpha", &LrnAttrs::alpha);
    f("beta", &LrnAttrs::beta);
    f("data_format", &LrnAttrs::data_format);
  }
};
/// Rank-4 X. MidOut[c] = k + alpha * sum of X[c']^2 over the channels
/// c' in [c - (n-1)/2, c - (n-1)/2 + n) that exist (alpha is NOT divided by
/// n, as in Paddle); Out = X * MidOut^-beta. fp32, fp64.
void lrn(const Tensor& x, Tensor& out, Tensor& mid_out, const LrnAttrs& attrs);
/// X@GRAD[c] = Out@GRAD[c] * MidOut[c]^-beta - 2 alpha beta X[c] * sum over
/// the windows holding c of Out@GRAD[c'] Out[c'] / MidOut[c'].
void lrn_grad(const Tensor& x, const Tensor& out, const Tensor& mid_out, const Tensor& out_grad, Tensor* x_grad,
              const LrnAttrs& attrs);

/// Attributes of `norm` (SSD's L2Norm) and `norm_grad`.
struct NormAttrs {
  int axis = 0;
  float epsilon = 1e-10f;
  bool is_test = false;  ///< accepted; the result does not depend on it

  template <class F>
  static void fields(F&& f) {
    f("axis", &NormAttrs::axis, kRequiredAttr);
    f("epsilon", &NormAttrs::epsilon);
    f("is_test", &NormAttrs::is_test);
  }
};
/// Norm = sqrt(sum of X^2 along axis + epsilon), X's dims with that axis 1;
/// Out = X / Norm. Norm may be absent (Paddle writes none under is_test).
/// fp32, fp64.
void norm(const Tensor& x, Tensor& out, Tensor* norm, const NormAttrs& attrs);
/// X@GRAD = (Out@GRAD - X * sum(X * Out@GRAD) / Norm^2) / Norm along axis.
void norm_grad(const Tensor& x, const Tensor& norm, const Tensor& out_grad, Tensor* x_grad, const NormAttrs& attrs);

/// Attributes of `temporal_shift` and its gradient (TSM).
struct TemporalShiftAttrs {
  int seg_num = 1;
  float shift_ratio = 0.25f;
  std::string data_format = "NCHW";  ///< or NHWC

  template <class F>
  static void fields(F&& f) {
    f("seg_num", &TemporalShiftAttrs::seg_num, kRequiredAttr);
    f("shift_ratio", &TemporalShiftAttrs::shift_ratio);
    f("data_format", &TemporalShiftAttrs::data_format);
  }
};
/// X [N*T, C, H, W] (T = seg_num) seen as [N, T, C, H, W]; with
/// c1 = int(C * r), c2 = int(C * 2r): channels below c1 take frame t-1,
/// channels in [c1, c2) frame t+1, the rest frame t; a frame outside
/// [0, T) gives zeros. Any dtype (a data move).
void temporal_shift(const Tensor& x, Tensor& out, const TemporalShiftAttrs& attrs);
/// The reverse move of Out@GRAD (zeros where nothing was taken).
void temporal_shift_grad(const Tensor& out_grad, Tensor* x_grad, const TemporalShiftAttrs& attrs);

/// X [N, M], Index [N, K] (int32/int64, values in [0, M)): Out[i, j] =
/// X[i, Index[i, j]]. X: fp32, fp64, int32, int64.
void index_sample(const Tensor& x, const Tensor& index, Tensor& out);
/// X@GRAD (X's shape, zeros) += Out@GRAD at the sampled places; fp32, fp64.
void index_sample_grad(const Tensor& x, const Tensor& index, const Tensor& out_grad, Tensor* x_grad);

}  // namespace fluidc::kernels
