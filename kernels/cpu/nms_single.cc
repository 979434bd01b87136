// kernels/cpu/nms_single.cc - nms (paddle.vision.ops.nms's op): greedy suppression over boxes in the order given.
//
// Its IoU is not the NMS family's (nms_iou.h): Paddle's nms op takes areas
// as (x1 - x0) * (y1 - y0) with no clamp, the intersection's sides clamped
// at 0, and compares inter / union > threshold in the boxes' type (a zero
// union gives NaN, never above, or infinity, always above). Kept as Paddle
// computes it so the same boxes are kept.
#include "kernels/cpu/kernel_util.h"
#include "kernels/detection_nms.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

template <class T>
bool overlaps(const T* a, const T* b, float threshold) {
  const T ix0 = a[0] > b[0] ? a[0] : b[0], iy0 = a[1] > b[1] ? a[1] : b[1];
  const T ix1 = a[2] < b[2] ? a[2] : b[2], iy1 = a[3] < b[3] ? a[3] : b[3];
  const T iw = ix1 - ix0 > 0 ? ix1 - ix0 : T(0), ih = iy1 - iy0 > 0 ? iy1 - iy0 : T(0);
  const T inter = iw * ih;
  const T uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return inter / uni > threshold;
}

}  // namespace

void nms(const Tensor& boxes, Tensor& keep, const NmsAttrs& a) {
  constexpr const char* op = "nms";
  require_init(op, "Boxes", boxes);
  if (boxes.rank() != 2 || boxes.dim(1) != 4)
    rt::fail(fmt::format("{}: Boxes must be [N, 4], got {}", op, boxes.shape().str()));
  const int64_t n = boxes.dim(0);
  // A scratch slot, not a thread_local (`fluidc run`'s JIT links kernels with TLS only from a list).
  Tensor& marks = scratch(Slot::kTmp0);
  marks.resize(Shape{n}, DType::kBool);
  marks.zero();
  bool* dropped = marks.data<bool>();
  int64_t kept = 0;
  visit_float(op, "Boxes", boxes.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* b = boxes.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (dropped[i]) continue;
      ++kept;
      for (int64_t j = i + 1; j < n; ++j)
        if (!dropped[j] && overlaps(b + 4 * i, b + 4 * j, a.iou_threshold)) dropped[j] = true;
    }
  });
  // Boxes is read in full before KeepBoxesIdxs is resized (it cannot be Boxes: another dtype).
  keep.resize(Shape{kept}, DType::kInt64);
  int64_t* out = keep.data<int64_t>();
  for (int64_t i = 0, k = 0; i < n; ++i)
    if (!dropped[i]) out[k++] = i;
}

}  // namespace fluidc::kernels
