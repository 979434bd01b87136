// kernels/cpu/nms_iou.h - Paddle's box area and IoU of corner boxes, shared by the NMS kernels.
#pragma once

#include <algorithm>

namespace fluidc::kernels::nms_detail {

/// Area of [xmin, ymin, xmax, ymax]; 0 for an inverted box. Pixel boxes
/// (not normalized) count both edge pixels.
template <class T>
T box_area(const T* b, bool normalized) {
  if (b[2] < b[0] || b[3] < b[1]) return T(0);
  const T w = b[2] - b[0], h = b[3] - b[1];
  return normalized ? w * h : (w + 1) * (h + 1);
}

/// Intersection over union; 0 for disjoint boxes (touching ones overlap).
template <class T>
T iou(const T* a, const T* b, bool normalized) {
  if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return T(0);
  const T norm = normalized ? T(0) : T(1);
  const T iw = std::min(a[2], b[2]) - std::max(a[0], b[0]) + norm;
  const T ih = std::min(a[3], b[3]) - std::max(a[1], b[1]) + norm;
  const T inter = iw * ih;
  return inter / (box_area(a, normalized) + box_area(b, normalized) - inter);
}

}  // namespace fluidc::kernels::nms_detail
