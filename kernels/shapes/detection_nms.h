// kernels/shapes/detection_nms.h - input checks and output shapes of the multiclass_nms ops, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/detection_nms.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// BBoxes [N, M, 4] and Scores [N, C, M] give Out [K, 6] with K known at run
/// time (kUnknown) and NmsRoisNum [N]. The per-RoI form, Scores [M, C] and
/// BBoxes [M, C, 4] (images split by RoisNum), gives NmsRoisNum [kUnknown].
/// Dims may be kUnknown at compile time.
inline std::string multiclass_nms_shape(const Shape& bboxes, const Shape& scores, Shape& out, Shape& rois_num) {
  auto known_ne = [](int64_t a, int64_t b) { return a != kUnknown && b != kUnknown && a != b; };
  if (scores.rank == 2) {
    if (bboxes.rank != 3) return fmt::format("with 2-D Scores [M, C], BBoxes must be [M, C, 4], got rank {}", bboxes.rank);
    if (known_ne(bboxes.d[2], 4)) return fmt::format("BBoxes' last dim must be 4, got {}", bboxes.d[2]);
    if (known_ne(bboxes.d[0], scores.d[0]) || known_ne(bboxes.d[1], scores.d[1]))
      return fmt::format("BBoxes {} does not match Scores {} (want [M, C, 4] for [M, C])", bboxes.str(), scores.str());
    out = Shape{kUnknown, 6};
    rois_num = Shape{kUnknown};
    return {};
  }
  if (scores.rank != 3) return fmt::format("Scores must be [N, C, M] or [M, C], got rank {}", scores.rank);
  if (bboxes.rank != 3) return fmt::format("BBoxes must be [N, M, 4], got rank {}", bboxes.rank);
  if (bboxes.d[2] != kUnknown && bboxes.d[2] != 4)
    return fmt::format("BBoxes' last dim must be 4 (polygon boxes are not supported), got {}", bboxes.d[2]);
  if (bboxes.d[0] != kUnknown && scores.d[0] != kUnknown && bboxes.d[0] != scores.d[0])
    return fmt::format("BBoxes has batch {} but Scores has {}", bboxes.d[0], scores.d[0]);
  if (bboxes.d[1] != kUnknown && scores.d[2] != kUnknown && bboxes.d[1] != scores.d[2])
    return fmt::format("BBoxes has {} boxes per image but Scores has {}", bboxes.d[1], scores.d[2]);
  out = Shape{kUnknown, 6};
  rois_num = Shape{scores.d[0]};
  return {};
}

}  // namespace fluidc::shapes
