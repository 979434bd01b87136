// kernels/detection_boxes.h - Fluid 1.x box helpers of Faster R-CNN/SSD heads: box_clip, iou_similarity, anchor_generator, box_decoder_and_assign.
//
// fp32 and fp64. None has a gradient in Paddle.
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Input [M, 4k] boxes (x1, y1, x2, y2, ...) of the images listed in
/// ImInfo [N, 3] (height, width, scale of each). Image i's boxes are rows
/// lod[i] .. lod[i+1] of Input's last LoD level; without a LoD, Input
/// [N, M, 4k] holds image i's in row i, and a 2-D Input belongs to a
/// single image (N = 1). Each x is clipped to [0, round(width / scale) - 1],
/// each y to [0, round(height / scale) - 1]. Output keeps Input's shape and LoD.
void box_clip(const Tensor& input, const Tensor& im_info, Tensor& output);

/// Attributes of `iou_similarity`.
struct IouSimilarityAttrs {
  bool box_normalized = true;  ///< false: pixel boxes, widths and heights + 1

  template <class F>
  static void fields(F&& f) {
    f("box_normalized", &IouSimilarityAttrs::box_normalized);
  }
};
/// X [N, 4], Y [M, 4] boxes (x1, y1, x2, y2): Out [N, M] = the area of
/// their intersection over that of their union (Paddle's formula, no guard
/// for a zero union). Out keeps X's LoD.
void iou_similarity(const Tensor& x, const Tensor& y, Tensor& out, const IouSimilarityAttrs& attrs);

/// Attributes of `anchor_generator` (RPN anchors). stride is (width, height).
struct AnchorGeneratorAttrs {
  std::vector<float> anchor_sizes;
  std::vector<float> aspect_ratios;
  std::vector<float> variances;
  std::vector<float> stride = {16.0f, 16.0f};
  float offset = 0.5f;

  template <class F>
  static void fields(F&& f) {
    f("anchor_sizes", &AnchorGeneratorAttrs::anchor_sizes, kRequiredAttr);
    f("aspect_ratios", &AnchorGeneratorAttrs::aspect_ratios, kRequiredAttr);
    f("variances", &AnchorGeneratorAttrs::variances, kRequiredAttr);
    f("stride", &AnchorGeneratorAttrs::stride);
    f("offset", &AnchorGeneratorAttrs::offset);
  }
};
/// Input [N, C, H, W] (only H and W are read): Anchors [H, W, A, 4] with
/// A = ratios x sizes (ratio outer), centred at (w * sw + offset * (sw - 1),
/// h * sh + offset * (sh - 1)); for ratio r and size s the base width is
/// round(sqrt(sw * sh / r)), the base height round(base width * r), scaled
/// by s / sw and s / sh; corners at centre -+ (size - 1) / 2. Variances
/// [H, W, A, 4] repeats `variances`. Anchors and Variances take Input's
/// dtype (fp32 or fp64).
void anchor_generator(const Tensor& input, Tensor& anchors, Tensor& variances, const AnchorGeneratorAttrs& attrs);

/// Attributes of `box_decoder_and_assign` (fluid.layers.box_decoder_and_assign, Cascade R-CNN).
struct BoxDecoderAndAssignAttrs {
  float box_clip = 4.135f;  ///< the largest log-scale of a width or height delta (Paddle's default, log(1000 / 16))
  template <class F>
  static void fields(F&& f) {
    f("box_clip", &BoxDecoderAndAssignAttrs::box_clip);
  }
};
/// PriorBox [N, 4] pixel boxes (x1, y1, x2, y2, both edge pixels counted),
/// PriorBoxVar [4], TargetBox [N, 4C] one delta set per class, BoxScore
/// [N, C]. DecodeBox [N, 4C]: each class's deltas applied to the prior box
/// (centre moved by var * delta * size, size scaled by exp(min(var * delta,
/// box_clip))). OutputAssignBox [N, 4]: the decoded box of the best-scoring
/// class other than 0 (the first on ties) whose score is above -1, else the
/// prior box itself (Paddle's start value: a row whose non-background scores
/// are all <= -1 keeps its prior). OutputAssignBox keeps PriorBox's LoD,
/// DecodeBox has none (as Paddle 2.6.2 writes them). PriorBoxVar is
/// required: Paddle declares it optional but its kernel always reads it.
void box_decoder_and_assign(const Tensor& prior_box, const Tensor* prior_box_var, const Tensor& target_box,
                            const Tensor& box_score, Tensor& decode_box, Tensor& output_assign_box,
                            const BoxDecoderAndAssignAttrs& attrs);

}  // namespace fluidc::kernels
