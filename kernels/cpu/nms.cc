// kernels/cpu/nms.cc - multiclass_nms / multiclass_nms2 / multiclass_nms3, in Paddle's selection order.
//
// Per image and per class (background skipped): candidates are the boxes
// scoring strictly above score_threshold, stably sorted by score descending
// (ties keep box order) and cut to nms_top_k; greedy NMS keeps a candidate
// whose IoU with every kept box is <= the (adaptive) threshold. With
// keep_top_k, the image's detections are stably re-sorted by score and cut;
// rows are written class by class ascending, in kept order within a class.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/nms_iou.h"
#include "kernels/detection_nms.h"
#include "kernels/shapes/detection_nms.h"

namespace fluidc::kernels {

using namespace detail;
using nms_detail::iou;

namespace {

// Boxes of one class kept by greedy NMS, in selection order. `boxes` [M, 4],
// `score` [M].
template <class T>
std::vector<int> nms_one_class(const T* boxes, const T* score, int64_t m, const MulticlassNmsAttrs& a) {
  std::vector<std::pair<T, int>> cand;
  for (int64_t i = 0; i < m; ++i)
    if (score[i] > static_cast<T>(a.score_threshold)) cand.emplace_back(score[i], static_cast<int>(i));
  std::stable_sort(cand.begin(), cand.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (a.nms_top_k > -1 && static_cast<size_t>(a.nms_top_k) < cand.size()) cand.resize(static_cast<size_t>(a.nms_top_k));
  std::vector<int> kept;
  T threshold = static_cast<T>(a.nms_threshold);
  for (const auto& [s, idx] : cand) {
    bool keep = true;
    for (int k : kept)
      if (!(iou(boxes + 4 * idx, boxes + 4 * k, a.normalized) <= threshold)) {
        keep = false;
        break;
      }
    if (!keep) continue;
    kept.push_back(idx);
    if (a.nms_eta < 1.f && threshold > T(0.5)) threshold *= static_cast<T>(a.nms_eta);
  }
  return kept;
}

// Kept boxes per class (ascending class) of one image; `boxes` [M, 4],
// `scores` [C, M].
template <class T>
std::map<int, std::vector<int>> nms_one_image(const T* boxes, const T* scores, int64_t c, int64_t m,
                                              const MulticlassNmsAttrs& a) {
  std::map<int, std::vector<int>> kept;
  size_t total = 0;
  for (int64_t cls = 0; cls < c; ++cls) {
    if (cls == a.background_label) continue;
    auto k = nms_one_class(boxes, scores + cls * m, m, a);
    total += k.size();
    kept[static_cast<int>(cls)] = std::move(k);
  }
  if (a.keep_top_k > -1 && total > static_cast<size_t>(a.keep_top_k)) {
    std::vector<std::pair<T, std::pair<int, int>>> all;
    for (const auto& [cls, idx] : kept)
      for (int i : idx) all.push_back({scores[cls * m + i], {cls, i}});
    std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    all.resize(static_cast<size_t>(a.keep_top_k));
    std::map<int, std::vector<int>> cut;
    for (const auto& [s, ci] : all) cut[ci.first].push_back(ci.second);
    return cut;
  }
  return kept;
}

enum class Version { kV1, kV2, kV3 };

void run(const char* op, Version v, const Tensor& bboxes, const Tensor& scores, Tensor& out, Tensor* index,
         Tensor* nms_rois_num, const MulticlassNmsAttrs& a) {
  require_init(op, "BBoxes", bboxes);
  require_init(op, "Scores", scores);
  require_same_dtype(op, "Scores", scores, "BBoxes", bboxes);
  Shape os, rs;
  require_rule(op, shapes::multiclass_nms_shape(bboxes.shape(), scores.shape(), os, rs));
  if (aliases(&out, {&bboxes, &scores}) || aliases(index, {&bboxes, &scores}) ||
      aliases(nms_rois_num, {&bboxes, &scores}))
    rt::fail(fmt::format("{}: outputs must not alias the inputs", op));
  const int64_t n = scores.dim(0), c = scores.dim(1), m = scores.dim(2);
  visit_float(op, "BBoxes", bboxes.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<std::map<int, std::vector<int>>> per_image(static_cast<size_t>(n));
    std::vector<uint64_t> starts{0};
    for (int64_t i = 0; i < n; ++i) {
      per_image[static_cast<size_t>(i)] =
          nms_one_image(bboxes.data<T>() + i * m * 4, scores.data<T>() + i * c * m, c, m, a);
      size_t rows = 0;
      for (const auto& [cls, idx] : per_image[static_cast<size_t>(i)]) rows += idx.size();
      starts.push_back(starts.back() + rows);
    }
    const int64_t total = static_cast<int64_t>(starts.back());
    if (nms_rois_num) {
      nms_rois_num->resize(rs, DType::kInt32);
      for (int64_t i = 0; i < n; ++i)
        nms_rois_num->data<int32_t>()[i] = static_cast<int32_t>(starts[static_cast<size_t>(i + 1)] - starts[static_cast<size_t>(i)]);
    }
    out.clear_lod();
    if (index) index->clear_lod();
    if (total == 0 && !index) {
      // Paddle's "nothing detected" marker when no Index is asked for.
      out.resize(Shape{1, 1}, bboxes.dtype());
      out.data<T>()[0] = T(-1);
      starts = {0, 1};
    } else {
      out.resize(Shape{total, 6}, bboxes.dtype());
      if (index) index->resize(Shape{total, 1}, DType::kInt32);
      T* o = out.data<T>();
      int32_t* ix = index ? index->data<int32_t>() : nullptr;
      for (int64_t i = 0; i < n; ++i) {
        const T* b = bboxes.data<T>() + i * m * 4;
        const T* s = scores.data<T>() + i * c * m;
        for (const auto& [cls, idx] : per_image[static_cast<size_t>(i)])
          for (int k : idx) {
            o[0] = static_cast<T>(cls);
            o[1] = s[cls * m + k];
            std::copy(b + 4 * k, b + 4 * k + 4, o + 2);
            o += 6;
            if (ix) *ix++ = static_cast<int32_t>(i * m + k);
          }
      }
    }
    // multiclass_nms3 (phi) leaves its outputs without LoD; the older two
    // carry each image's row offsets.
    if (v != Version::kV3) {
      out.mutable_lod() = {starts};
      if (index) index->mutable_lod() = {starts};
    }
  });
}

}  // namespace

void multiclass_nms(const Tensor& bboxes, const Tensor& scores, Tensor& out, const MulticlassNmsAttrs& attrs) {
  run("multiclass_nms", Version::kV1, bboxes, scores, out, nullptr, nullptr, attrs);
}

void multiclass_nms2(const Tensor& bboxes, const Tensor& scores, Tensor& out, Tensor* index,
                     const MulticlassNmsAttrs& attrs) {
  run("multiclass_nms2", Version::kV2, bboxes, scores, out, index, nullptr, attrs);
}

void multiclass_nms3(const Tensor& bboxes, const Tensor& scores, const Tensor* rois_num, Tensor& out, Tensor* index,
                     Tensor* nms_rois_num, const MulticlassNmsAttrs& attrs) {
  if (rois_num) require_init("multiclass_nms3", "RoisNum", *rois_num);  // ignored with 3-D Scores, as in Paddle
  run("multiclass_nms3", Version::kV3, bboxes, scores, out, index, nms_rois_num, attrs);
}

}  // namespace fluidc::kernels
