// kernels/cpu/matrix_nms.cc - matrix_nms (SOLOv2's parallel soft suppression), in Paddle's arithmetic order.
//
// Per class (background skipped): candidates score strictly above
// score_threshold, the best nms_top_k of them by score (std::partial_sort,
// Paddle's choice, so ties resolve as Paddle's do). Candidate i's score is
// multiplied by min over higher-ranked j of decay(iou(i, j), max_iou(j)),
// max_iou(j) being j's largest IoU with a box ranked above j; it survives
// when the decayed score is strictly above post_threshold. Each image's
// detections are then ranked by decayed score and cut to keep_top_k.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/nms_iou.h"
#include "kernels/detection_nms.h"
#include "kernels/shapes/detection_nms.h"

namespace fluidc::kernels {

using namespace detail;
using nms_detail::iou;

namespace {

template <class T>
struct Detections {
  std::vector<int> box;
  std::vector<T> score;
  std::vector<T> label;
};

// One class: appends the surviving boxes and their decayed scores to `d`.
template <class T>
void matrix_one_class(const T* boxes, const T* score, int64_t m, const MatrixNmsAttrs& a, T label, Detections<T>& d) {
  std::vector<int> perm(static_cast<size_t>(m));
  std::iota(perm.begin(), perm.end(), 0);
  const T thr = static_cast<T>(a.score_threshold);
  auto end = std::remove_if(perm.begin(), perm.end(), [&](int i) { return score[i] <= thr; });
  int64_t num = end - perm.begin();
  if (num <= 0) return;
  if (a.nms_top_k > -1 && num > a.nms_top_k) num = a.nms_top_k;
  // The IoU triangle grows as num^2: past 2^28 entries (num > 23171) it is
  // refused rather than left to fail allocating gigabytes (nms_top_k bounds it).
  if (num * (num - 1) / 2 > (int64_t{1} << 28))
    rt::fail(fmt::format("matrix_nms: {} candidates of class {} would need a {} x {} IoU matrix; set nms_top_k "
                         "(at most 23171)", num, static_cast<int64_t>(label), num, num));
  std::partial_sort(perm.begin(), perm.begin() + num, end, [&](int l, int r) { return score[l] > score[r]; });

  // Lower triangle of pairwise IoUs (row i against the i boxes above it).
  std::vector<T> tri(static_cast<size_t>(num * (num - 1) / 2));
  std::vector<T> max_iou(static_cast<size_t>(num), T(0));
  for (int64_t i = 1; i < num; ++i) {
    T mx = 0;
    for (int64_t j = 0; j < i; ++j) {
      const T v = iou(boxes + 4 * perm[static_cast<size_t>(i)], boxes + 4 * perm[static_cast<size_t>(j)], a.normalized);
      mx = std::max(mx, v);
      tri[static_cast<size_t>(i * (i - 1) / 2 + j)] = v;
    }
    max_iou[static_cast<size_t>(i)] = mx;
  }
  const T post = static_cast<T>(a.post_threshold), sigma = static_cast<T>(a.gaussian_sigma);
  auto keep = [&](int box, T s) {
    d.box.push_back(box);
    d.score.push_back(s);
    d.label.push_back(label);
  };
  if (score[perm[0]] > post) keep(perm[0], score[perm[0]]);
  for (int64_t i = 1; i < num; ++i) {
    T min_decay = 1;
    for (int64_t j = 0; j < i; ++j) {
      const T v = tri[static_cast<size_t>(i * (i - 1) / 2 + j)], mj = max_iou[static_cast<size_t>(j)];
      const T decay = a.use_gaussian ? std::exp((mj * mj - v * v) * sigma) : (T(1) - v) / (T(1) - mj);
      min_decay = std::min(min_decay, decay);
    }
    const T ds = min_decay * score[perm[static_cast<size_t>(i)]];
    if (ds > post) keep(perm[static_cast<size_t>(i)], ds);
  }
}

}  // namespace

void matrix_nms(const Tensor& bboxes, const Tensor& scores, Tensor& out, Tensor* index, Tensor* rois_num,
                const MatrixNmsAttrs& attrs) {
  constexpr const char* op = "matrix_nms";
  require_init(op, "BBoxes", bboxes);
  require_init(op, "Scores", scores);
  require_same_dtype(op, "Scores", scores, "BBoxes", bboxes);
  Shape os, rs;
  require_rule(op, shapes::multiclass_nms_shape(bboxes.shape(), scores.shape(), os, rs));
  if (aliases(&out, {&bboxes, &scores}) || aliases(index, {&bboxes, &scores}) || aliases(rois_num, {&bboxes, &scores}))
    rt::fail(fmt::format("{}: outputs must not alias the inputs", op));
  const int64_t n = scores.dim(0), c = scores.dim(1), m = scores.dim(2);
  visit_float(op, "BBoxes", bboxes.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> rows;
    std::vector<int32_t> idx;
    std::vector<int32_t> counts;
    for (int64_t i = 0; i < n; ++i) {
      const T* b = bboxes.data<T>() + i * m * 4;
      const T* s = scores.data<T>() + i * c * m;
      Detections<T> d;
      for (int64_t cls = 0; cls < c; ++cls)
        if (cls != attrs.background_label) matrix_one_class(b, s + cls * m, m, attrs, static_cast<T>(cls), d);
      size_t keep = d.box.size();
      if (attrs.keep_top_k > -1) keep = std::min(keep, static_cast<size_t>(attrs.keep_top_k));
      std::vector<int> perm(d.box.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::partial_sort(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(keep), perm.end(),
                        [&](int l, int r) { return d.score[static_cast<size_t>(l)] > d.score[static_cast<size_t>(r)]; });
      for (size_t k = 0; k < keep; ++k) {
        const size_t p = static_cast<size_t>(perm[k]);
        const T* bx = b + 4 * d.box[p];
        rows.insert(rows.end(), {d.label[p], d.score[p], bx[0], bx[1], bx[2], bx[3]});
        idx.push_back(static_cast<int32_t>(i * m + d.box[p]));
      }
      counts.push_back(static_cast<int32_t>(keep));
    }
    const int64_t total = static_cast<int64_t>(idx.size());
    out.clear_lod();
    out.resize(Shape{total, 6}, bboxes.dtype());
    std::copy(rows.begin(), rows.end(), out.data<T>());
    if (index) {
      index->clear_lod();
      index->resize(Shape{total, 1}, DType::kInt32);
      std::copy(idx.begin(), idx.end(), index->data<int32_t>());
    }
    if (rois_num) {
      rois_num->resize(rs, DType::kInt32);
      std::copy(counts.begin(), counts.end(), rois_num->data<int32_t>());
    }
  });
}

}  // namespace fluidc::kernels
