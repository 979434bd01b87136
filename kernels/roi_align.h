// kernels/roi_align.h - roi_align (paddle.vision.ops.roi_align): average of bilinear samples over each bin of each region.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `roi_align`. Each region (x1, y1, x2, y2) of ROIs, scaled
/// by spatial_scale (and moved by -0.5 pixel when aligned), is cut into
/// pooled_height x pooled_width bins; a bin's value is the mean of a grid of
/// sampling_ratio x sampling_ratio bilinear samples, or, when sampling_ratio
/// <= 0, of ceil(bin size) samples per axis. Unaligned regions are at least
/// 1 x 1 pixel.
struct RoiAlignAttrs {
  int pooled_height = 1;
  int pooled_width = 1;
  float spatial_scale = 1.0f;
  int sampling_ratio = -1;
  bool aligned = false;
  template <class F>
  static void fields(F&& f) {
    f("pooled_height", &RoiAlignAttrs::pooled_height);
    f("pooled_width", &RoiAlignAttrs::pooled_width);
    f("spatial_scale", &RoiAlignAttrs::spatial_scale);
    f("sampling_ratio", &RoiAlignAttrs::sampling_ratio);
    f("aligned", &RoiAlignAttrs::aligned);
  }
};

/// Out [R, C, pooled_height, pooled_width] from X [N, C, H, W] and ROIs
/// [R, 4] (fp32 or fp64, one dtype). Region r belongs to the image that
/// RoisNum (int32/int64 [N], regions per image, may be null) or else ROIs'
/// LoD assigns it. A sample more than one pixel outside the image reads 0;
/// one within a pixel reads the clamped edge. A bin with no samples (an
/// aligned region of zero size, adaptive grid) is 0, where Paddle 2.6.2
/// divides 0 by 0.
void roi_align(const Tensor& x, const Tensor& rois, const Tensor* rois_num, Tensor& out, const RoiAlignAttrs& attrs);
/// X@GRAD: each bin's gradient spread over its samples' four pixels with
/// the forward's weights. This is the forward's exact derivative; Paddle
/// 2.6.2's CPU grad kernel differs from it for aligned regions smaller
/// than one pixel (it widens them to 1 x 1 as if unaligned).
void roi_align_grad(const Tensor& x, const Tensor& rois, const Tensor* rois_num, const Tensor& out_grad,
                    Tensor* x_grad, const RoiAlignAttrs& attrs);

}  // namespace fluidc::kernels
