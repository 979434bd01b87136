// kernels/shapes/detection_boxes.h - shape rules of box_clip, iou_similarity, anchor_generator and box_decoder_and_assign (kernels and compiler).
#pragma once

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "kernels/detection_boxes.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// box_clip: ImInfo [N, 3]; Input's last dim a multiple of 4, rank 2 or 3.
inline std::string box_clip_check(const Shape& input, const Shape& im_info) {
  if (im_info.rank != 2 || !dims_agree(im_info.d[1], 3))
    return fmt::format("ImInfo {} must be [N, 3] (height, width, scale)", im_info.str());
  if (input.rank < 2 || input.rank > 3) return fmt::format("Input {} must have rank 2 or 3", input.str());
  const int64_t last = input.d[input.rank - 1];
  if (last == 0 || (last > 0 && last % 4)) return fmt::format("Input {}'s last dim must be a multiple of 4", input.str());
  if (input.rank == 3 && !dims_agree(input.d[0], im_info.d[0]))
    return fmt::format("Input {} holds {} images but ImInfo {} describes {}", input.str(), input.d[0], im_info.str(),
                       im_info.d[0]);
  return {};
}

/// iou_similarity: X [N, 4], Y [M, 4] -> Out [N, M].
inline std::string iou_similarity_shape(const Shape& x, const Shape& y, Shape& out) {
  if (x.rank != 2 || !dims_agree(x.d[1], 4)) return fmt::format("X {} must be [N, 4]", x.str());
  if (y.rank != 2 || !dims_agree(y.d[1], 4)) return fmt::format("Y {} must be [M, 4]", y.str());
  out = Shape{x.d[0], y.d[0]};
  return {};
}

/// anchor_generator: Input NCHW -> Anchors and Variances [H, W, A, 4].
inline std::string anchor_generator_shape(const Shape& input, const kernels::AnchorGeneratorAttrs& a, Shape& out) {
  if (input.rank != 4) return fmt::format("Input {} must be NCHW (rank 4)", input.str());
  if (a.anchor_sizes.empty() || a.aspect_ratios.empty()) return "anchor_sizes and aspect_ratios must not be empty";
  for (float s : a.anchor_sizes)
    if (!(s > 0 && std::isfinite(s))) return fmt::format("anchor_sizes must be positive, got {}", s);
  for (float r : a.aspect_ratios)
    if (!(r > 0 && std::isfinite(r))) return fmt::format("aspect_ratios must be positive, got {}", r);
  if (a.variances.size() != 4) return fmt::format("variances must have 4 values, got {}", a.variances.size());
  if (a.stride.size() != 2 || !(a.stride[0] > 0) || !(a.stride[1] > 0) || !std::isfinite(a.stride[0]) ||
      !std::isfinite(a.stride[1]))
    return fmt::format("stride must be 2 positive values (width, height), got {} values", a.stride.size());
  out = Shape{input.d[2], input.d[3], static_cast<int64_t>(a.anchor_sizes.size() * a.aspect_ratios.size()), 4};
  return {};
}

/// box_decoder_and_assign: PriorBox [N, 4], PriorBoxVar [4] (may be null),
/// TargetBox [N, 4C], BoxScore [N, C] -> DecodeBox [N, 4C], OutputAssignBox [N, 4].
inline std::string box_decoder_and_assign_shape(const Shape& prior, const Shape* var, const Shape& target,
                                                const Shape& score, Shape& decode, Shape& assign) {
  if (prior.rank != 2 || !dims_agree(prior.d[1], 4)) return fmt::format("PriorBox {} must be [N, 4]", prior.str());
  if (var && (var->rank != 1 || !dims_agree(var->d[0], 4)))
    return fmt::format("PriorBoxVar {} must be [4]", var->str());
  if (score.rank != 2 || !dims_agree(score.d[0], prior.d[0]))
    return fmt::format("BoxScore {} must be [N, classes] with N = {}", score.str(), prior.d[0]);
  if (target.rank != 2 || !dims_agree(target.d[0], prior.d[0]) ||
      (target.d[1] >= 0 && score.d[1] >= 0 && target.d[1] != 4 * score.d[1]))
    return fmt::format("TargetBox {} must be [N, 4 x classes] for BoxScore {}", target.str(), score.str());
  decode = target;
  assign = prior;
  return {};
}

}  // namespace fluidc::shapes
