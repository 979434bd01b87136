// kernels/detection_rpn.h - the two-stage detectors' proposal ops: generate_proposals_v2 (RPN boxes), distribute_fpn_proposals and collect_fpn_proposals (boxes by FPN level and back).
//
// These are the ops Faster / Mask / Cascade R-CNN programs exported by
// PaddleDetection 2.x run between the RPN head and roi_align. Boxes are
// [x1, y1, x2, y2]; with pixel_offset a box spans both edge pixels (width
// x2 - x1 + 1), as Paddle's kernels count.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `generate_proposals_v2` (paddle.vision.ops.generate_proposals).
struct GenerateProposalsAttrs {
  int pre_nms_topN = 6000;   ///< best-scoring anchors kept per image before NMS (<= 0: all)
  int post_nms_topN = 1000;  ///< proposals kept per image after NMS (<= 0: all)
  float nms_thresh = 0.5f;   ///< IoU above which a lower-scoring box is dropped (<= 0: no NMS)
  float min_size = 0.1f;     ///< boxes narrower or lower than max(min_size, 1) are dropped
  float eta = 1.0f;          ///< adaptive NMS: the threshold is multiplied by eta after each kept box while above 0.5
  bool pixel_offset = true;

  template <class F>
  static void fields(F&& f) {
    f("pre_nms_topN", &GenerateProposalsAttrs::pre_nms_topN);
    f("post_nms_topN", &GenerateProposalsAttrs::post_nms_topN);
    f("nms_thresh", &GenerateProposalsAttrs::nms_thresh);
    f("min_size", &GenerateProposalsAttrs::min_size);
    f("eta", &GenerateProposalsAttrs::eta);
    f("pixel_offset", &GenerateProposalsAttrs::pixel_offset);
  }
};
/// Scores [N, A, H, W] (objectness), BboxDeltas [N, 4A, H, W], ImShape [N, 2]
/// (height, width), Anchors and Variances [H, W, A, 4] (or [H*W*A, 4]). Per
/// image: the pre_nms_topN best anchors (by score), decoded by their deltas
/// and variances (width and height scaled by exp(min(v * d, log(1000/16)))),
/// clipped to the image, those smaller than min_size (or, with pixel_offset,
/// centred outside the image) dropped, then NMS (ties: the later anchor
/// first, as Paddle's stable sort leaves them) and the first post_nms_topN.
/// An image left with no box gets one all-zero box of score 0. RpnRois
/// [total, 4] and RpnRoiProbs [total, 1] (no LoD, as Paddle 2.6.2 writes
/// them), RpnRoisNum [N] int32 the rows of each image. fp32 or fp64. Without NMS (nms_thresh <= 0) the boxes come in
/// descending score order (Paddle's partial sort leaves them unordered).
void generate_proposals_v2(const Tensor& scores, const Tensor& bbox_deltas, const Tensor& im_shape,
                           const Tensor& anchors, const Tensor& variances, Tensor& rpn_rois, Tensor& rpn_roi_probs,
                           Tensor* rpn_rois_num, const GenerateProposalsAttrs& attrs);

/// Attributes of `generate_proposals` (v1: fluid.layers.generate_proposals), v2's without pixel_offset;
/// all required, as Paddle 2.6.2's v1 declares them without defaults.
struct GenerateProposalsV1Attrs {
  int pre_nms_topN = 6000;
  int post_nms_topN = 1000;
  float nms_thresh = 0.5f;
  float min_size = 0.1f;
  float eta = 1.0f;

  template <class F>
  static void fields(F&& f) {
    f("pre_nms_topN", &GenerateProposalsV1Attrs::pre_nms_topN, kRequiredAttr);
    f("post_nms_topN", &GenerateProposalsV1Attrs::post_nms_topN, kRequiredAttr);
    f("nms_thresh", &GenerateProposalsV1Attrs::nms_thresh, kRequiredAttr);
    f("min_size", &GenerateProposalsV1Attrs::min_size, kRequiredAttr);
    f("eta", &GenerateProposalsV1Attrs::eta, kRequiredAttr);
  }
};
/// The Fluid 1.x spelling of generate_proposals_v2: ImInfo [N, 3] (height,
/// width, scale) for ImShape, pixel_offset always on, the min_size filter
/// on sizes divided by the scale (the original image's pixels), and
/// RpnRois / RpnRoiProbs carrying the per-image LoD.
void generate_proposals(const Tensor& scores, const Tensor& bbox_deltas, const Tensor& im_info, const Tensor& anchors,
                        const Tensor& variances, Tensor& rpn_rois, Tensor& rpn_roi_probs, Tensor* rpn_rois_num,
                        const GenerateProposalsV1Attrs& attrs);

/// Attributes of `distribute_fpn_proposals`.
struct DistributeFpnProposalsAttrs {
  int min_level = 0;    ///< the first FPN level
  int max_level = 0;    ///< the last
  int refer_level = 0;  ///< the level of a box of side refer_scale
  int refer_scale = 0;
  bool pixel_offset = true;

  template <class F>
  static void fields(F&& f) {
    f("min_level", &DistributeFpnProposalsAttrs::min_level, kRequiredAttr);
    f("max_level", &DistributeFpnProposalsAttrs::max_level, kRequiredAttr);
    f("refer_level", &DistributeFpnProposalsAttrs::refer_level, kRequiredAttr);
    f("refer_scale", &DistributeFpnProposalsAttrs::refer_scale, kRequiredAttr);
    f("pixel_offset", &DistributeFpnProposalsAttrs::pixel_offset);
  }
};
/// FpnRois [R, 4] of the images given by RoisNum [N] (int32 or int64) or,
/// without it, by FpnRois' LoD. Each box goes to level floor(log2(sqrt(area)
/// / refer_scale + 1e-6) + refer_level) clamped to [min_level, max_level].
/// MultiFpnRois: one [r_l, 4] per level (image by image, in input order,
/// with the per-image LoD); RestoreIndex [R, 1] int32: the row of each input
/// box in the levels' concatenation; MultiLevelRoIsNum (when present): one
/// [N] int32 per level, the boxes of each image there.
void distribute_fpn_proposals(const Tensor& fpn_rois, const Tensor* rois_num, Tensor* const* multi_fpn_rois,
                              int levels, Tensor& restore_index, Tensor* const* multi_level_rois_num, int counted,
                              const DistributeFpnProposalsAttrs& attrs);

/// Attributes of `collect_fpn_proposals`.
struct CollectFpnProposalsAttrs {
  int post_nms_topN = 0;  ///< boxes kept over all images and levels together

  template <class F>
  static void fields(F&& f) {
    f("post_nms_topN", &CollectFpnProposalsAttrs::post_nms_topN, kRequiredAttr);
  }
};
/// The levels' proposals back into one list (Fluid 1.x FPN detectors,
/// fluid.layers.collect_fpn_proposals): MultiLevelRois [r_l, 4] and
/// MultiLevelScores [r_l, 1] per level, their images given by
/// MultiLevelRoIsNum (one int32/int64 [N] per level, or none: then by each
/// level's LoD). The post_nms_topN best-scoring boxes over every image and
/// level (ties: level by level, in row order, as Paddle's stable sort
/// leaves them), grouped by image in that order: FpnRois [kept, 4] with
/// the per-image LoD, RoisNum [N] int32 (may be null). A level's boxes go
/// to the images their counts give; Paddle 2.6.2 steps at most one image
/// per box, so it files the boxes after an image with no boxes at that
/// level under the wrong image (fluidc does not).
void collect_fpn_proposals(const Tensor* const* multi_level_rois, int levels, const Tensor* const* multi_level_scores,
                           int scored, const Tensor* const* multi_level_rois_num, int counted, Tensor& fpn_rois,
                           Tensor* rois_num, const CollectFpnProposalsAttrs& attrs);

}  // namespace fluidc::kernels
