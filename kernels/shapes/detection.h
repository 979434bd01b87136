// kernels/shapes/detection.h - output shapes of prior_box and box_coder, for kernels and compiler.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/detection.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Paddle's ratio list: 1 first, then each given ratio not within 1e-6 of
/// one already listed, and with flip its reciprocal after it.
inline std::vector<float> prior_box_ratios(const kernels::PriorBoxAttrs& a) {
  std::vector<float> r = {1.0f};
  for (float ar : a.aspect_ratios) {
    bool seen = false;
    for (float e : r)
      if (std::fabs(ar - e) < 1e-6) seen = true;
    if (seen) continue;
    r.push_back(ar);
    if (a.flip) r.push_back(1.0f / ar);
  }
  return r;
}

/// Priors per cell: ratios x min sizes, plus one per max size.
inline int64_t prior_box_count(const kernels::PriorBoxAttrs& a) {
  return static_cast<int64_t>(prior_box_ratios(a).size() * a.min_sizes.size() + a.max_sizes.size());
}

inline std::string prior_box_shape(const Shape& input, const Shape& image, const kernels::PriorBoxAttrs& a,
                                   Shape& out) {
  if (input.rank != 4 || image.rank != 4)
    return fmt::format("Input {} and Image {} must be NCHW (rank 4)", input.str(), image.str());
  if (a.min_sizes.empty()) return "min_sizes is empty";
  for (float m : a.min_sizes)
    if (!(m > 0)) return fmt::format("min_sizes must be positive, got {}", m);
  if (!a.max_sizes.empty() && a.max_sizes.size() != a.min_sizes.size())
    return fmt::format("max_sizes has {} values for {} min_sizes", a.max_sizes.size(), a.min_sizes.size());
  if (a.variances.size() != 4) return fmt::format("variances must have 4 values, got {}", a.variances.size());
  out = Shape{input.d[2], input.d[3], prior_box_count(a), 4};
  return {};
}

inline std::string box_coder_shape(const Shape& prior, const Shape* prior_var, const Shape& target,
                                   const kernels::BoxCoderAttrs& a, Shape& out) {
  if (prior.rank != 2 || (prior.d[1] != 4 && prior.d[1] != kUnknown))
    return fmt::format("PriorBox {} must be [M, 4]", prior.str());
  if (prior_var && (prior_var->rank != 2 || !(prior_var->d[0] == prior.d[0] || prior_var->d[0] == kUnknown ||
                                              prior.d[0] == kUnknown)))
    return fmt::format("PriorBoxVar {} must be shaped like PriorBox {}", prior_var->str(), prior.str());
  if (!a.variance.empty() && a.variance.size() != 4)
    return fmt::format("variance must have 4 values, got {}", a.variance.size());
  auto agree = [](int64_t x, int64_t y) { return x == y || x == kUnknown || y == kUnknown; };
  if (a.code_type == "encode_center_size") {
    if (target.rank != 2 || !agree(target.d[1], 4)) return fmt::format("TargetBox {} must be [N, 4]", target.str());
    out = Shape{target.d[0], prior.d[0], 4};
    return {};
  }
  if (a.code_type == "decode_center_size") {
    if (target.rank != 3 || !agree(target.d[2], 4))
      return fmt::format("TargetBox {} must be [N, M, 4]", target.str());
    if (a.axis != 0 && a.axis != 1) return fmt::format("axis must be 0 or 1, got {}", a.axis);
    if (!agree(prior.d[0], target.d[a.axis == 0 ? 1 : 0]))
      return fmt::format("PriorBox {} does not pair with TargetBox {} along axis {}", prior.str(), target.str(), a.axis);
    out = target;
    return {};
  }
  return fmt::format("code_type {} is neither encode_center_size nor decode_center_size", a.code_type);
}

/// yolo_box: Boxes [N, A*H*W, 4] and Scores [N, A*H*W, class_num].
inline std::string yolo_box_shape(const Shape& x, const Shape& img_size, const kernels::YoloBoxAttrs& a, Shape& boxes,
                                  Shape& scores) {
  if (x.rank != 4) return fmt::format("X {} must be NCHW (rank 4)", x.str());
  if (a.anchors.empty() || a.anchors.size() % 2 != 0)
    return fmt::format("anchors must hold (w, h) pairs, got {} values", a.anchors.size());
  if (a.class_num <= 0) return fmt::format("class_num must be positive, got {}", a.class_num);
  if (a.downsample_ratio <= 0) return fmt::format("downsample_ratio must be positive, got {}", a.downsample_ratio);
  const int64_t an = static_cast<int64_t>(a.anchors.size() / 2);
  const int64_t want = an * (5 + a.class_num) + (a.iou_aware ? an : 0);
  if (x.d[1] != want && x.d[1] != kUnknown)
    return fmt::format("X {} must have {} channels ({} anchors x (5 + {} classes){})", x.str(), want, an, a.class_num,
                       a.iou_aware ? " + IoU" : "");
  if (img_size.rank != 2 || (img_size.d[1] != 2 && img_size.d[1] != kUnknown))
    return fmt::format("ImgSize {} must be [N, 2]", img_size.str());
  const int64_t cells = (x.d[2] == kUnknown || x.d[3] == kUnknown) ? kUnknown : an * x.d[2] * x.d[3];
  boxes = Shape{x.d[0], cells, 4};
  scores = Shape{x.d[0], cells, a.class_num};
  return {};
}

}  // namespace fluidc::shapes
