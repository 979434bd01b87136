// kernels/sampling.h - grid_sampler (sampling an image or volume at given points) and deformable_conv (convolution at learned offsets).
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `grid_sampler` (paddle.nn.functional.grid_sample).
/// mode: "bilinear" or "nearest" (rounds half away from zero); padding_mode:
/// "zeros" (points outside read 0), "border" (clamped to the edge) or
/// "reflection" (mirrored at the edges); align_corners: -1 and 1 are the
/// centres of the corner pixels (true) or their outer edges (false).
struct GridSamplerAttrs {
  std::string mode = "bilinear";
  std::string padding_mode = "zeros";
  bool align_corners = true;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("mode", &GridSamplerAttrs::mode);
    f("padding_mode", &GridSamplerAttrs::padding_mode);
    f("align_corners", &GridSamplerAttrs::align_corners);
  }
};
/// Output[n, c, i, j] = X[n, c] sampled at Grid[n, i, j] = (x, y) in
/// [-1, 1] (x along W). X is NCHW, Grid [N, Ho, Wo, 2]; fp32 or fp64.
/// Volumetric: X NCDHW, Grid [N, Do, Ho, Wo, 3] = (x, y, z) (z along D),
/// Output [N, C, Do, Ho, Wo]; "bilinear" is then trilinear.
void grid_sampler(const Tensor& x, const Tensor& grid, Tensor& output, const GridSamplerAttrs& attrs);
/// X@GRAD and Grid@GRAD (either may be nullptr). Nearest sampling is
/// piecewise constant in the grid: its Grid@GRAD is zero, as in Paddle.
void grid_sampler_grad(const Tensor& x, const Tensor& grid, const Tensor& output_grad, Tensor* x_grad,
                       Tensor* grid_grad, const GridSamplerAttrs& attrs);

/// Attributes of `affine_grid` (paddle.nn.functional.affine_grid):
/// output_shape [N, C, H, W] (or [N, C, D, H, W]) unless the OutputShape
/// input gives it; align_corners as in GridSamplerAttrs.
struct AffineGridAttrs {
  std::vector<int> output_shape;
  bool align_corners = true;
  template <class F>
  static void fields(F&& f) {
    f("output_shape", &AffineGridAttrs::output_shape);
    f("align_corners", &AffineGridAttrs::align_corners);
  }
};
/// Output [N, H, W, 2] = Theta [N, 2, 3] applied to each output pixel's
/// normalised (x, y, 1), x along W in [-1, 1]; with Theta [N, 3, 4] and a
/// 5-value shape, [N, D, H, W, 3] from (x, y, z, 1). fp32 or fp64. A size-1
/// axis has the coordinate -1 (aligned) or 0, as in PyTorch; Paddle 2.6.2
/// gives NaN there (its linspace divides 0 by 0).
/// output_shape (may be null) is the OutputShape input, int32 or int64.
void affine_grid(const Tensor& theta, const Tensor* output_shape, Tensor& output, const AffineGridAttrs& attrs);
/// Theta@GRAD: each output's gradient times the pixel coordinates it was
/// made from. Theta (Paddle's grad op lists it) is not read: the gradient
/// depends on the grid's shape alone.
void affine_grid_grad(const Tensor* theta, const Tensor* output_shape, const Tensor& output_grad, Tensor* theta_grad,
                      const AffineGridAttrs& attrs);

/// Attributes of `deformable_conv` (v2, with Mask) and `deformable_conv_v1`
/// (without): a 2-D convolution whose kernel taps read Input at positions
/// moved by Offset (bilinear, zero outside), each tap's sample scaled by
/// Mask (v2). Paddings are symmetric [pad_h, pad_w]; im2col_step (Paddle's
/// batch chunking) does not change the result and is ignored.
struct DeformableConvAttrs {
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> dilations = {1, 1};
  int groups = 1;
  int deformable_groups = 1;
  int im2col_step = 64;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("strides", &DeformableConvAttrs::strides);
    f("paddings", &DeformableConvAttrs::paddings);
    f("dilations", &DeformableConvAttrs::dilations);
    f("groups", &DeformableConvAttrs::groups);
    f("deformable_groups", &DeformableConvAttrs::deformable_groups);
    f("im2col_step", &DeformableConvAttrs::im2col_step);
  }
};
/// Output [N, Cout, Ho, Wo] from Input [N, Cin, H, W], Offset
/// [N, 2 * deformable_groups * kh * kw, Ho, Wo] ((dh, dw) pairs per tap),
/// Mask [N, deformable_groups * kh * kw, Ho, Wo] and Filter
/// [Cout, Cin / groups, kh, kw]; fp32 or fp64.
void deformable_conv(const Tensor& input, const Tensor& offset, const Tensor& mask, const Tensor& filter,
                     Tensor& output, const DeformableConvAttrs& attrs);
void deformable_conv_v1(const Tensor& input, const Tensor& offset, const Tensor& filter, Tensor& output,
                        const DeformableConvAttrs& attrs);
/// The gradients (each may be nullptr) of deformable_conv / _v1.
void deformable_conv_grad(const Tensor& input, const Tensor& offset, const Tensor& mask, const Tensor& filter,
                          const Tensor& output_grad, Tensor* input_grad, Tensor* offset_grad, Tensor* mask_grad,
                          Tensor* filter_grad, const DeformableConvAttrs& attrs);
void deformable_conv_v1_grad(const Tensor& input, const Tensor& offset, const Tensor& filter,
                             const Tensor& output_grad, Tensor* input_grad, Tensor* offset_grad, Tensor* filter_grad,
                             const DeformableConvAttrs& attrs);

}  // namespace fluidc::kernels
