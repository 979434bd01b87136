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

// Kept boxes per class (ascending class) of one image; `scores` [C, M],
// class c's boxes [M, 4] at boxes + c * class_stride (0: one box per index
// for every class). `by_index`: each class's kept boxes in index order
// rather than selection order (Paddle's per-RoI form).
template <class T>
std::map<int, std::vector<int>> nms_one_image(const T* boxes, int64_t class_stride, const T* scores, int64_t c,
                                              int64_t m, bool by_index, const MulticlassNmsAttrs& a) {
  std::map<int, std::vector<int>> kept;
  size_t total = 0;
  for (int64_t cls = 0; cls < c; ++cls) {
    if (cls == a.background_label) continue;
    auto k = nms_one_class(boxes + cls * class_stride, scores + cls * m, m, a);
    if (by_index) std::stable_sort(k.begin(), k.end());
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

// One image's inputs in the 3-D layout: scores [C, m], class c's boxes at
// boxes + c * class_stride.
template <class T>
struct ImageView {
  const T* boxes;
  int64_t class_stride;
  const T* scores;
  int64_t m;
  bool by_index;
};

// Per-image row offsets of the per-RoI form from RoisNum (or BBoxes' LoD);
// checked to cover the M rows exactly.
std::vector<int64_t> roi_offsets(const char* op, const Tensor& bboxes, const Tensor* rois_num, int64_t m) {
  std::vector<int64_t> off{0};
  if (rois_num) {
    require_init(op, "RoisNum", *rois_num);
    if (rois_num->dtype() != DType::kInt32 && rois_num->dtype() != DType::kInt64)
      rt::fail(fmt::format("{}: RoisNum must be int32 or int64, got {}", op, rt::dtype_name(rois_num->dtype())));
    for (int64_t i = 0; i < rois_num->numel(); ++i) {
      const int64_t v = rois_num->dtype() == DType::kInt32 ? rois_num->data<int32_t>()[i] : rois_num->data<int64_t>()[i];
      if (v < 0 || v > m - off.back())
        rt::fail(fmt::format("{}: RoisNum[{}] = {} is negative or runs past the {} RoIs", op, i, v, m));
      off.push_back(off.back() + v);
    }
  } else if (const rt::Lod* lod = bboxes.lod()) {
    for (size_t i = 1; i < lod->back().size(); ++i) {
      const int64_t e = static_cast<int64_t>(lod->back()[i]);
      if (e < off.back() || e > m) rt::fail(fmt::format("{}: BBoxes' LoD offset {} = {} is out of order", op, i, e));
      off.push_back(e);
    }
  } else {
    rt::fail(fmt::format("{}: the per-RoI form (2-D Scores) needs RoisNum or a LoD on BBoxes", op));
  }
  if (off.back() != m)
    rt::fail(fmt::format("{}: RoisNum / LoD covers {} RoIs but BBoxes has {}", op, off.back(), m));
  return off;
}

void run(const char* op, Version v, const Tensor& bboxes, const Tensor& scores, const Tensor* rois_num, Tensor& out,
         Tensor* index, Tensor* nms_rois_num, const MulticlassNmsAttrs& a) {
  require_init(op, "BBoxes", bboxes);
  require_init(op, "Scores", scores);
  require_same_dtype(op, "Scores", scores, "BBoxes", bboxes);
  Shape os, rs;
  require_rule(op, shapes::multiclass_nms_shape(bboxes.shape(), scores.shape(), os, rs));
  if (aliases(&out, {&bboxes, &scores, rois_num}) || aliases(index, {&bboxes, &scores, rois_num}) ||
      aliases(nms_rois_num, {&bboxes, &scores, rois_num}))
    rt::fail(fmt::format("{}: outputs must not alias the inputs", op));
  const bool per_roi = scores.shape().rank == 2;
  // 3-D: N images of M boxes shared by the C classes. Per-RoI: Scores [M, C],
  // BBoxes [M, C, 4], images split by RoisNum.
  const int64_t c = scores.dim(1);
  const int64_t m_all = per_roi ? scores.dim(0) : scores.dim(2);
  const std::vector<int64_t> off = per_roi ? roi_offsets(op, bboxes, rois_num, m_all) : std::vector<int64_t>{};
  const int64_t n = per_roi ? static_cast<int64_t>(off.size()) - 1 : scores.dim(0);
  if (per_roi) rs = Shape{n};
  visit_float(op, "BBoxes", bboxes.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // The per-RoI form is transposed per image into the 3-D layout.
    std::vector<std::vector<T>> tb(static_cast<size_t>(n)), ts(static_cast<size_t>(n));
    auto view = [&](int64_t i) -> ImageView<T> {
      if (!per_roi)
        return {bboxes.data<T>() + i * m_all * 4, 0, scores.data<T>() + i * c * m_all, m_all, false};
      const int64_t s = off[static_cast<size_t>(i)], m = off[static_cast<size_t>(i + 1)] - s;
      auto& b = tb[static_cast<size_t>(i)];
      auto& sc = ts[static_cast<size_t>(i)];
      if (b.empty() && m > 0) {
        b.resize(static_cast<size_t>(c * m * 4));
        sc.resize(static_cast<size_t>(c * m));
        for (int64_t k = 0; k < m; ++k)
          for (int64_t cls = 0; cls < c; ++cls) {
            sc[static_cast<size_t>(cls * m + k)] = scores.data<T>()[(s + k) * c + cls];
            std::copy_n(bboxes.data<T>() + ((s + k) * c + cls) * 4, 4, b.data() + (cls * m + k) * 4);
          }
      }
      return {b.data(), m * 4, sc.data(), m, true};
    };
    // Index of kept box k of class cls in image i: image * M + box, or (RoI) * C + class.
    auto index_of = [&](int64_t i, int cls, int k) -> int64_t {
      return per_roi ? (off[static_cast<size_t>(i)] + k) * c + cls : i * m_all + k;
    };
    std::vector<std::map<int, std::vector<int>>> per_image(static_cast<size_t>(n));
    std::vector<uint64_t> starts{0};
    for (int64_t i = 0; i < n; ++i) {
      const ImageView<T> iv = view(i);
      if (iv.m > 0)
        per_image[static_cast<size_t>(i)] = nms_one_image(iv.boxes, iv.class_stride, iv.scores, c, iv.m, iv.by_index, a);
      size_t rows = 0;
      for (const auto& [cls, idx] : per_image[static_cast<size_t>(i)]) rows += idx.size();
      starts.push_back(starts.back() + rows);
    }
    const int64_t total = static_cast<int64_t>(starts.back());
    if (nms_rois_num) {
      nms_rois_num->resize(rs, DType::kInt32);
      for (int64_t i = 0; i < n; ++i)
        nms_rois_num->data<int32_t>()[i] =
            static_cast<int32_t>(starts[static_cast<size_t>(i + 1)] - starts[static_cast<size_t>(i)]);
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
        if (per_image[static_cast<size_t>(i)].empty()) continue;
        const ImageView<T> iv = view(i);
        for (const auto& [cls, idx] : per_image[static_cast<size_t>(i)])
          for (int k : idx) {
            o[0] = static_cast<T>(cls);
            o[1] = iv.scores[cls * iv.m + k];
            const T* b = iv.boxes + cls * iv.class_stride + 4 * k;
            std::copy(b, b + 4, o + 2);
            o += 6;
            if (ix) *ix++ = static_cast<int32_t>(index_of(i, cls, k));
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
  run("multiclass_nms", Version::kV1, bboxes, scores, nullptr, out, nullptr, nullptr, attrs);
}

void multiclass_nms2(const Tensor& bboxes, const Tensor& scores, Tensor& out, Tensor* index,
                     const MulticlassNmsAttrs& attrs) {
  run("multiclass_nms2", Version::kV2, bboxes, scores, nullptr, out, index, nullptr, attrs);
}

void multiclass_nms3(const Tensor& bboxes, const Tensor& scores, const Tensor* rois_num, Tensor& out, Tensor* index,
                     Tensor* nms_rois_num, const MulticlassNmsAttrs& attrs) {
  run("multiclass_nms3", Version::kV3, bboxes, scores, rois_num, out, index, nms_rois_num, attrs);
}

}  // namespace fluidc::kernels
