// kernels/conv.h - convolutions (conv2d, depthwise_conv2d, conv3d) and transposed convolutions, with gradients.
//
// Layouts follow Paddle: Input is [N, C, (D,) H, W] (channels first: NCHW,
// NCDHW, AnyLayout) or [N, (D,) H, W, C] (NHWC, NDHWC). Filter is always
// [M, C/groups, (kd,) kh, kw] for a convolution and [C, M/groups, (kd,) kh, kw]
// for a transposed one, whatever data_format says. fp32 and fp64.
//
// Bias and ResidualData are optional slots of old (MKL-DNN era) programs,
// normally empty. When a program does bind them (a fused conv + bias +
// residual), they are added as that fusion meant: Bias per output channel,
// ResidualData elementwise. Their gradients are not produced (Paddle's grad
// ops have no Bias@GRAD). fuse_activation (with fuse_alpha, fuse_beta)
// applies an activation op's scalar function to each output after the bias
// and residual, as Paddle's fused convolutions do; the conv-epilogue pass
// sets them (transpilers/conv_epilogue.h). Other attributes of real programs
// (use_cudnn, fuse_relu, Scale_in, workspace_size_MB, ...) only steer
// Paddle's backends and are ignored.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of the convolutions and their gradients. Empty strides /
/// dilations mean 1 and empty paddings 0 in every spatial dim (Paddle's
/// defaults for both 2-D and 3-D).
struct ConvAttrs {
  std::vector<int> strides;
  /// One value per spatial dim (symmetric) or two (before, after) per dim:
  /// [top, bottom, left, right] for 2-D.
  std::vector<int> paddings;
  /// "EXPLICIT" (use paddings), "SAME" (out = ceil(in / stride), padding
  /// split with the odd one after, dilations treated as 1) or "VALID" (no padding).
  std::string padding_algorithm = "EXPLICIT";
  std::vector<int> dilations;
  int groups = 1;
  std::string data_format = "NCHW";
  /// The type of the activation op applied to the output ("relu",
  /// "leaky_relu", ...; see kernels/cpu/conv_epilogue.h), "" for none, and
  /// its parameters (e.g. leaky_relu's alpha). Forward ops only.
  std::string fuse_activation;
  float fuse_alpha = 0.0f;
  float fuse_beta = 0.0f;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("strides", &ConvAttrs::strides);
    f("paddings", &ConvAttrs::paddings);
    f("padding_algorithm", &ConvAttrs::padding_algorithm);
    f("dilations", &ConvAttrs::dilations);
    f("groups", &ConvAttrs::groups);
    f("data_format", &ConvAttrs::data_format);
    f("fuse_activation", &ConvAttrs::fuse_activation);
    f("fuse_alpha", &ConvAttrs::fuse_alpha);
    f("fuse_beta", &ConvAttrs::fuse_beta);
  }
};

/// Attributes of the transposed convolutions: a convolution's, plus the
/// extra rows/cols that choose among the output sizes a stride allows.
struct ConvTransposeAttrs {
  std::vector<int> strides;
  std::vector<int> paddings;
  std::string padding_algorithm = "EXPLICIT";
  std::vector<int> dilations;
  int groups = 1;
  std::string data_format = "NCHW";
  /// Added to each spatial output dim (each < max(stride, dilation)).
  std::vector<int> output_padding;
  /// The spatial output size, in [computed, computed + stride); wins over output_padding.
  std::vector<int> output_size;
  /// As ConvAttrs: the activation applied after the bias (Paddle's extra
  /// attributes, which its oneDNN passes set; fluidc's conv-epilogue pass
  /// sets them at inference). Forward ops only.
  std::string fuse_activation;
  float fuse_alpha = 0.0f;
  float fuse_beta = 0.0f;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("strides", &ConvTransposeAttrs::strides);
    f("paddings", &ConvTransposeAttrs::paddings);
    f("padding_algorithm", &ConvTransposeAttrs::padding_algorithm);
    f("dilations", &ConvTransposeAttrs::dilations);
    f("groups", &ConvTransposeAttrs::groups);
    f("data_format", &ConvTransposeAttrs::data_format);
    f("output_padding", &ConvTransposeAttrs::output_padding);
    f("output_size", &ConvTransposeAttrs::output_size);
    f("fuse_activation", &ConvTransposeAttrs::fuse_activation);
    f("fuse_alpha", &ConvTransposeAttrs::fuse_alpha);
    f("fuse_beta", &ConvTransposeAttrs::fuse_beta);
  }
};

/// Attributes of unfold (Paddle's im2col op) and fold (its adjoint,
/// col2im). Two values each for kernel_sizes, strides and dilations; four
/// paddings [top, left, bottom, right] (two: [h, w], each on both sides);
/// fold's output_sizes [H, W] is the image it adds the columns back into.
struct UnfoldAttrs {
  std::vector<int> kernel_sizes;
  std::vector<int> strides;
  std::vector<int> paddings;
  std::vector<int> dilations;
  std::vector<int> output_sizes;
  template <class F>
  static void fields(F&& f) {
    f("kernel_sizes", &UnfoldAttrs::kernel_sizes);
    f("strides", &UnfoldAttrs::strides);
    f("paddings", &UnfoldAttrs::paddings);
    f("dilations", &UnfoldAttrs::dilations);
    f("output_sizes", &UnfoldAttrs::output_sizes);
  }
};
/// Y [N, C*kh*kw, L] from X [N, C, H, W]: row (c, i, j) holds the pixel each
/// of the L window positions reads through tap (i, j) (0 over the padding).
void unfold(const Tensor& x, Tensor& y, const UnfoldAttrs& attrs);
void unfold_grad(const Tensor& x, const Tensor& y_grad, Tensor* x_grad, const UnfoldAttrs& attrs);
/// Y [N, C, H, W] (output_sizes) = the sum of X [N, C*kh*kw, L]'s entries
/// onto the pixels unfold would have taken them from.
void fold(const Tensor& x, Tensor& y, const UnfoldAttrs& attrs);
void fold_grad(const Tensor& x, const Tensor& y_grad, Tensor* x_grad, const UnfoldAttrs& attrs);

/// Out [16, M, C] = the Winograd F(2x2, 3x3) transform G g G' of each 3x3
/// slice g of Filter [M, C, 3, 3] (fp32), position (xi, nu) first: what
/// conv2d_winograd takes. A load-time op: the winograd pass inserts it on
/// constant filters only (transpilers/winograd.h).
void winograd_filter(const Tensor& filter, Tensor& out);
/// conv2d (fp32, NCHW, 3x3 window, stride 1, dilation 1, one group) by
/// Winograd F(2x2, 3x3), from winograd_filter's transformed Filter; Bias and
/// the fused activation as in conv2d. The same values as conv2d up to
/// rounding (kernels/cpu/conv_winograd.cc).
void conv2d_winograd(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                     const ConvAttrs& attrs);

/// Output[n, m, o] = sum over c in m's group, k: Input[n, c, o*stride - pad + k*dilation] * Filter[m, c, k]
/// (+ Bias[m]) (+ ResidualData[n, m, o]). Input rank 4.
void conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor* residual_data,
            Tensor& output, const ConvAttrs& attrs);
/// Input@GRAD and Filter@GRAD of conv2d; either may be null.
void conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& output_grad, Tensor* input_grad,
                 Tensor* filter_grad, const ConvAttrs& attrs);

/// conv2d with groups == input channels (each input channel filtered on its
/// own, Filter [M, 1, kh, kw], M a multiple of C). Same numbers as conv2d.
void depthwise_conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor* residual_data,
                      Tensor& output, const ConvAttrs& attrs);
void depthwise_conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& output_grad,
                           Tensor* input_grad, Tensor* filter_grad, const ConvAttrs& attrs);

/// The 3-D convolution: Input rank 5, Filter [M, C/groups, kd, kh, kw].
void conv3d(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor* residual_data,
            Tensor& output, const ConvAttrs& attrs);
void conv3d_grad(const Tensor& input, const Tensor& filter, const Tensor& output_grad, Tensor* input_grad,
                 Tensor* filter_grad, const ConvAttrs& attrs);

/// The transposed 2-D convolution (the input gradient of conv2d taken as a
/// forward op): every input pixel scatters Filter[c, m, k] * Input[n, c, i]
/// to Output[n, m, i*stride - pad + k*dilation]. Filter [C, M/groups, kh, kw].
void conv2d_transpose(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                      const ConvTransposeAttrs& attrs);
/// Bias is accepted because Paddle's grad op lists it; it has no gradient.
void conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor& output_grad,
                           Tensor* input_grad, Tensor* filter_grad, const ConvTransposeAttrs& attrs);

/// conv2d_transpose with groups == input channels; same numbers.
void depthwise_conv2d_transpose(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                                const ConvTransposeAttrs& attrs);
void depthwise_conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor* bias,
                                     const Tensor& output_grad, Tensor* input_grad, Tensor* filter_grad,
                                     const ConvTransposeAttrs& attrs);

/// The transposed 3-D convolution: conv2d_transpose with a depth axis
/// (Input rank 5, NCDHW or NDHWC, Filter [C, M/groups, kd, kh, kw]).
void conv3d_transpose(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                      const ConvTransposeAttrs& attrs);
void conv3d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor& output_grad,
                           Tensor* input_grad, Tensor* filter_grad, const ConvTransposeAttrs& attrs);

}  // namespace fluidc::kernels
