// kernels/roi_pool.h - roi_pool (Faster R-CNN's max over each bin of a region) and psroi_pool (R-FCN's position-sensitive average).
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `roi_pool` (paddle.vision.ops.roi_pool).
struct RoiPoolAttrs {
  int pooled_height = 1;
  int pooled_width = 1;
  float spatial_scale = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("pooled_height", &RoiPoolAttrs::pooled_height);
    f("pooled_width", &RoiPoolAttrs::pooled_width);
    f("spatial_scale", &RoiPoolAttrs::spatial_scale);
  }
};

/// Out [R, C, pooled_height, pooled_width] from X [N, C, H, W] and ROIs
/// [R, 4] (x1, y1, x2, y2; fp32 or fp64, X's dtype). Region r belongs to
/// the image RoisNum (int32/int64 [N], may be null) or else ROIs' LoD
/// assigns it. Its corners, scaled by spatial_scale, are rounded (half away
/// from zero) to pixels and span both edge pixels (at least 1 x 1); bin
/// (ph, pw) covers rows floor(ph * h / pooled_height) to ceil((ph + 1) * h /
/// pooled_height) of it, clipped to the image. A bin's value is its maximum
/// (the first in row-major order on ties), 0 when the bin lies outside the
/// image. Argmax (int64, Out's shape, may be null): that pixel's offset
/// y * W + x in its channel, -1 for an empty bin.
void roi_pool(const Tensor& x, const Tensor& rois, const Tensor* rois_num, Tensor& out, Tensor* argmax,
              const RoiPoolAttrs& attrs);
/// X@GRAD: each bin's gradient to its maximum's pixel. The maxima are found
/// again in X rather than read from Argmax, so a fed Argmax cannot point
/// outside the image; they are the same pixels.
void roi_pool_grad(const Tensor& x, const Tensor& rois, const Tensor* rois_num, const Tensor* argmax,
                   const Tensor& out_grad, Tensor* x_grad, const RoiPoolAttrs& attrs);

/// Attributes of `psroi_pool` (paddle.vision.ops.psroi_pool).
struct PsroiPoolAttrs {
  int pooled_height = 1;
  int pooled_width = 1;
  int output_channels = 1;
  float spatial_scale = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("pooled_height", &PsroiPoolAttrs::pooled_height);
    f("pooled_width", &PsroiPoolAttrs::pooled_width);
    f("output_channels", &PsroiPoolAttrs::output_channels);
    f("spatial_scale", &PsroiPoolAttrs::spatial_scale);
  }
};

/// Out [R, output_channels, pooled_height, pooled_width] from X [N,
/// output_channels * pooled_height * pooled_width, H, W] and ROIs [R, 4]
/// (images as for roi_pool). A region's corners are rounded to pixels, the
/// far ones moved one pixel out, then scaled (at least 0.1 x 0.1); bin (ph,
/// pw) of output channel c is the mean of input channel (c * pooled_height +
/// ph) * pooled_width + pw over the pixels floor(start) to ceil(end) of the
/// bin, clipped to the image; 0 when none remain.
void psroi_pool(const Tensor& x, const Tensor& rois, const Tensor* rois_num, Tensor& out, const PsroiPoolAttrs& attrs);
/// X@GRAD: each bin's gradient shared evenly by its pixels.
void psroi_pool_grad(const Tensor& x, const Tensor& rois, const Tensor* rois_num, const Tensor& out_grad,
                     Tensor* x_grad, const PsroiPoolAttrs& attrs);

}  // namespace fluidc::kernels
