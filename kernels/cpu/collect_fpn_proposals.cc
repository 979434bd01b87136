// kernels/cpu/collect_fpn_proposals.cc - collect_fpn_proposals: the best-scoring boxes of every FPN level, grouped by image.
#include <algorithm>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/roi_images.h"
#include "kernels/detection_rpn.h"

namespace fluidc::kernels {

using namespace detail;

void collect_fpn_proposals(const Tensor* const* rois, int levels, const Tensor* const* scores, int scored,
                           const Tensor* const* counts, int counted, Tensor& fpn_rois, Tensor* rois_num,
                           const CollectFpnProposalsAttrs& a) {
  const char* op = "collect_fpn_proposals";
  if (levels < 1 || scored != levels || (counted != 0 && counted != levels))
    rt::fail(fmt::format("{}: {} MultiLevelRois need as many MultiLevelScores (got {}) and MultiLevelRoIsNum (got {}, "
                         "or none)", op, levels, scored, counted));
  if (a.post_nms_topN < 0) rt::fail(fmt::format("{}: post_nms_topN must not be negative, got {}", op, a.post_nms_topN));
  // One candidate per box: its score's level and row, and its image.
  struct Box {
    int level;
    int64_t row, image;
  };
  std::vector<Box> boxes;
  int64_t images = -1;
  for (int l = 0; l < levels; ++l) {
    const Tensor& r = *rois[l];
    const Tensor& s = *scores[l];
    require_init(op, "MultiLevelRois", r);
    require_init(op, "MultiLevelScores", s);
    if (r.rank() != 2 || r.dim(1) != 4)
      rt::fail(fmt::format("{}: MultiLevelRois {} must be [boxes, 4], got {}", op, l, r.shape().str()));
    if (s.numel() != r.dim(0) || (s.rank() == 2 && s.dim(1) != 1) || s.rank() > 2)
      rt::fail(fmt::format("{}: MultiLevelScores {} must be [{}, 1], got {}", op, l, r.dim(0), s.shape().str()));
    require_same_dtype(op, "MultiLevelRois", *rois[0], "MultiLevelRois", r);
    require_same_dtype(op, "MultiLevelRois", r, "MultiLevelScores", s);
    // Without counts, the images come from the scores' LoD in Paddle; the boxes' LoD is the same one.
    const std::vector<uint64_t> off = roi_offsets(op, "MultiLevelRois", r, counted ? counts[l] : nullptr);
    const int64_t n = static_cast<int64_t>(off.size()) - 1;
    if (images >= 0 && n != images)
      rt::fail(fmt::format("{}: level {} has {} images, level 0 has {}", op, l, n, images));
    images = n;
    for (int64_t i = 0; i < n; ++i)
      for (uint64_t b = off[static_cast<size_t>(i)]; b < off[static_cast<size_t>(i) + 1]; ++b)
        boxes.push_back({l, static_cast<int64_t>(b), i});
  }
  for (int l = 0; l < levels; ++l)
    if (aliases(&fpn_rois, {rois[l], scores[l], counted ? counts[l] : nullptr}) ||
        (rois_num && aliases(rois_num, {rois[l], scores[l], counted ? counts[l] : nullptr})))
      rt::fail(fmt::format("{}: an output may not be an input", op));
  const int64_t kept = std::min<int64_t>(a.post_nms_topN, static_cast<int64_t>(boxes.size()));
  std::vector<int64_t> per_image(static_cast<size_t>(images), 0);
  visit_float(op, "MultiLevelRois", rois[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto score = [&](const Box& b) { return scores[b.level]->template data<T>()[b.row]; };
    // Paddle: a stable sort by descending score, the cut, a stable sort by image.
    std::stable_sort(boxes.begin(), boxes.end(), [&](const Box& p, const Box& q) { return score(p) > score(q); });
    boxes.resize(static_cast<size_t>(kept));
    std::stable_sort(boxes.begin(), boxes.end(), [](const Box& p, const Box& q) { return p.image < q.image; });
    fpn_rois.resize(Shape{kept, 4}, rois[0]->dtype());
    T* dst = fpn_rois.template data<T>();
    for (const Box& b : boxes) {
      const T* src = rois[b.level]->template data<T>() + 4 * b.row;
      std::copy(src, src + 4, dst);
      dst += 4;
      ++per_image[static_cast<size_t>(b.image)];
    }
  });
  std::vector<uint64_t> lod{0};
  for (int64_t c : per_image) lod.push_back(lod.back() + static_cast<uint64_t>(c));
  fpn_rois.mutable_lod() = rt::Lod{lod};
  if (rois_num) {
    rois_num->resize(Shape{images}, DType::kInt32);
    for (int64_t i = 0; i < images; ++i) rois_num->data<int32_t>()[i] = static_cast<int32_t>(per_image[static_cast<size_t>(i)]);
  }
}

}  // namespace fluidc::kernels
