// kernels/cpu/generate_proposals.cc - generate_proposals_v2 and v1 (generate_proposals): RPN anchors decoded, clipped, filtered and suppressed, per image.
//
// The arithmetic follows Paddle's kernel step by step and in its types (the
// anchor centre is formed in double and rounded to T, as `a + 0.5 * w` is in
// C++), so that boxes near a clip, size or IoU threshold fall on the same side.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/nms_iou.h"
#include "kernels/detection_rpn.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The largest log-scale a delta may give a box's width or height: log(1000 / 16).
const double kMaxLogScale = std::log(1000.0 / 16.0);

template <class T>
struct Image {
  const T* score;     // [A, H, W]
  const T* delta;     // [4A, H, W]
  T height, width;    // ImShape's row (ImInfo's first two for v1)
  T scale;            // v1: ImInfo's scale, by which the size filter divides; 1 for v2
  int64_t a, hw;      // anchors per position, positions
  // Candidate m (position p = m / a, anchor k = m % a) in the [H, W, A] order of Anchors.
  T score_of(int64_t m) const { return score[(m % a) * hw + m / a]; }
  T delta_of(int64_t m, int c) const { return delta[((m % a) * 4 + c) * hw + m / a]; }
};

// Decodes candidate m against its anchor and variance into box[4], then clips it to the image.
template <class T>
void decode_clipped(const Image<T>& im, int64_t m, const T* anchor, const T* var, T offset, T* box) {
  const T aw = anchor[2] - anchor[0] + offset, ah = anchor[3] - anchor[1] + offset;
  const T acx = static_cast<T>(anchor[0] + 0.5 * aw), acy = static_cast<T>(anchor[1] + 0.5 * ah);
  const T cx = var[0] * im.delta_of(m, 0) * aw + acx;
  const T cy = var[1] * im.delta_of(m, 1) * ah + acy;
  const T w = std::exp(std::min<T>(var[2] * im.delta_of(m, 2), static_cast<T>(kMaxLogScale))) * aw;
  const T h = std::exp(std::min<T>(var[3] * im.delta_of(m, 3), static_cast<T>(kMaxLogScale))) * ah;
  box[0] = cx - w / 2;
  box[1] = cy - h / 2;
  box[2] = cx + w / 2 - offset;
  box[3] = cy + h / 2 - offset;
  for (int c = 0; c < 4; ++c)
    box[c] = std::max(std::min(box[c], (c % 2 == 0 ? im.width : im.height) - offset), T(0));
}

// Paddle's size filter: both sides (v1: at the original image's scale) at least max(min_size, 1) and, with
// pixel_offset, the centre inside the image.
template <class T>
bool big_enough(const T* b, const Image<T>& im, float min_size, bool pixel_offset) {
  const T offset = pixel_offset ? T(1) : T(0);
  const float least = std::max(min_size, 1.0f);
  const T ws = b[2] - b[0] + offset, hs = b[3] - b[1] + offset;
  // Divided even when the scale is 1 (v2): x / 1 is x, so v2's sizes are unchanged.
  const T ws_scaled = (b[2] - b[0]) / im.scale + offset, hs_scaled = (b[3] - b[1]) / im.scale + offset;
  if (!(ws_scaled >= least && hs_scaled >= least)) return false;
  return !pixel_offset || (b[0] + ws / 2 <= im.width && b[1] + hs / 2 <= im.height);
}

// Greedy NMS over boxes [n, 4] visited by score descending (equal scores: the later box first, as
// Paddle's stable ascending sort popped from the back gives). Returns the kept indices in visit order.
template <class T>
std::vector<int64_t> suppress(const std::vector<T>& boxes, const std::vector<T>& scores, const GenerateProposalsAttrs& a) {
  std::vector<int64_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return scores[x] < scores[y]; });
  std::reverse(order.begin(), order.end());
  std::vector<int64_t> kept;
  T threshold = static_cast<T>(a.nms_thresh);
  const bool normalized = !a.pixel_offset;
  for (const int64_t i : order) {
    bool keep = true;
    for (const int64_t k : kept)
      if (!(nms_detail::iou(&boxes[4 * i], &boxes[4 * k], normalized) <= threshold)) {
        keep = false;
        break;
      }
    if (!keep) continue;
    kept.push_back(i);
    if (a.eta < 1 && threshold > T(0.5)) threshold *= a.eta;
  }
  return kept;
}

// One image's proposals, appended to rois / probs.
template <class T>
void one_image(const Image<T>& im, const T* anchors, const T* variances, const GenerateProposalsAttrs& a,
               std::vector<T>& rois, std::vector<T>& probs) {
  const int64_t m = im.a * im.hw;
  // The pre_nms_topN best candidates, by score descending (ties by index).
  std::vector<int64_t> cand(m);
  std::iota(cand.begin(), cand.end(), 0);
  const int64_t take = a.pre_nms_topN <= 0 ? m : std::min<int64_t>(a.pre_nms_topN, m);
  std::partial_sort(cand.begin(), cand.begin() + take, cand.end(), [&](int64_t x, int64_t y) {
    const T sx = im.score_of(x), sy = im.score_of(y);
    return sx > sy || (sx == sy && x < y);
  });
  cand.resize(take);
  const T offset = a.pixel_offset ? T(1) : T(0);
  std::vector<T> boxes, scores;
  for (const int64_t c : cand) {
    T box[4];
    decode_clipped(im, c, anchors + 4 * c, variances + 4 * c, offset, box);
    if (!big_enough(box, im, a.min_size, a.pixel_offset)) continue;
    boxes.insert(boxes.end(), box, box + 4);
    scores.push_back(im.score_of(c));
  }
  if (scores.empty()) {  // Paddle's stand-in: one zero box of score 0
    rois.insert(rois.end(), 4, T(0));
    probs.push_back(T(0));
    return;
  }
  std::vector<int64_t> kept(scores.size());
  std::iota(kept.begin(), kept.end(), 0);
  if (a.nms_thresh > 0) kept = suppress(boxes, scores, a);
  if (a.post_nms_topN > 0 && static_cast<int64_t>(kept.size()) > a.post_nms_topN) kept.resize(a.post_nms_topN);
  for (const int64_t k : kept) {
    rois.insert(rois.end(), boxes.begin() + 4 * k, boxes.begin() + 4 * k + 4);
    probs.push_back(scores[k]);
  }
}

}  // namespace

namespace {

// Both versions: v1 (im_info) reads ImInfo [N, 3] and scales the size filter by its third column, and gives
// RpnRois and RpnRoiProbs the per-image LoD; v2 reads ImShape [N, 2] and gives them none.
void proposals(const char* op, bool im_info, const Tensor& scores, const Tensor& bbox_deltas, const Tensor& im_shape,
               const Tensor& anchors, const Tensor& variances, Tensor& rpn_rois, Tensor& rpn_roi_probs,
               Tensor* rpn_rois_num, const GenerateProposalsAttrs& attrs) {
  const char* im_role = im_info ? "ImInfo" : "ImShape";
  const Tensor* inputs[] = {&scores, &bbox_deltas, &im_shape, &anchors, &variances};
  const char* roles[] = {"Scores", "BboxDeltas", im_role, "Anchors", "Variances"};
  for (int i = 0; i < 5; ++i) {
    require_init(op, roles[i], *inputs[i]);
    if (i) require_same_dtype(op, "Scores", scores, roles[i], *inputs[i]);
  }
  for (const Tensor* o : std::initializer_list<const Tensor*>{&rpn_rois, &rpn_roi_probs, rpn_rois_num})
    if (o && aliases(o, {&scores, &bbox_deltas, &im_shape, &anchors, &variances}))
      rt::fail(fmt::format("{}: an output may not be an input", op));
  if (scores.rank() != 4) rt::fail(fmt::format("{}: Scores must be [N, A, H, W], got {}", op, scores.shape().str()));
  const int64_t n = scores.dim(0), a = scores.dim(1), h = scores.dim(2), w = scores.dim(3);
  if (bbox_deltas.shape() != Shape{n, 4 * a, h, w})
    rt::fail(fmt::format("{}: BboxDeltas must be [N, 4A, H, W] = [{}, {}, {}, {}], got {}", op, n, 4 * a, h, w,
                         bbox_deltas.shape().str()));
  const int64_t cols = im_info ? 3 : 2;
  if (im_shape.rank() != 2 || im_shape.dim(0) != n || im_shape.dim(1) < cols)
    rt::fail(fmt::format("{}: {} must be [N, {}] ({}) with N = {}, got {}", op, im_role, cols,
                         im_info ? "height, width, scale" : "height, width", n, im_shape.shape().str()));
  for (const Tensor* t : {&anchors, &variances})
    if (t->numel() != h * w * a * 4 || t->dim(t->rank() - 1) != 4)
      rt::fail(fmt::format("{}: {} must hold [H, W, A, 4] = [{}, {}, {}, 4] boxes, got {}", op,
                           t == &anchors ? "Anchors" : "Variances", h, w, a, t->shape().str()));
  std::vector<int64_t> counts(n);
  visit_float(op, "Scores", scores.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> rois, probs;
    const int64_t stride = im_shape.dim(1);
    for (int64_t i = 0; i < n; ++i) {
      const T* info = im_shape.data<T>() + i * stride;
      const T scale = im_info ? info[2] : T(1);
      if (!(scale > T(0)) || !std::isfinite(scale))
        rt::fail(fmt::format("{}: ImInfo's scale of image {} must be positive, got {}", op, i,
                             static_cast<double>(scale)));
      const Image<T> im{scores.data<T>() + i * a * h * w, bbox_deltas.data<T>() + i * 4 * a * h * w, info[0], info[1],
                        scale, a, h * w};
      const size_t before = probs.size();
      one_image(im, anchors.data<T>(), variances.data<T>(), attrs, rois, probs);
      counts[i] = static_cast<int64_t>(probs.size() - before);
    }
    const int64_t total = static_cast<int64_t>(probs.size());
    rpn_rois.resize(Shape{total, 4}, scores.dtype());
    rpn_roi_probs.resize(Shape{total, 1}, scores.dtype());
    std::copy(rois.begin(), rois.end(), rpn_rois.data<T>());
    std::copy(probs.begin(), probs.end(), rpn_roi_probs.data<T>());
  });
  if (im_info) {
    std::vector<uint64_t> lod{0};
    for (int64_t c : counts) lod.push_back(lod.back() + static_cast<uint64_t>(c));
    rpn_rois.mutable_lod() = rt::Lod{lod};
    rpn_roi_probs.mutable_lod() = rt::Lod{lod};
  } else {
    // No LoD on v2's RpnRois / RpnRoiProbs: Paddle 2.6.2's kernel sets none (RpnRoisNum says which image each
    // row is of).
    rpn_rois.clear_lod();
    rpn_roi_probs.clear_lod();
  }
  if (rpn_rois_num) {
    rpn_rois_num->resize(Shape{n}, DType::kInt32);
    for (int64_t i = 0; i < n; ++i) rpn_rois_num->data<int32_t>()[i] = static_cast<int32_t>(counts[i]);
  }
}

}  // namespace

void generate_proposals_v2(const Tensor& scores, const Tensor& bbox_deltas, const Tensor& im_shape,
                           const Tensor& anchors, const Tensor& variances, Tensor& rpn_rois, Tensor& rpn_roi_probs,
                           Tensor* rpn_rois_num, const GenerateProposalsAttrs& attrs) {
  proposals("generate_proposals_v2", false, scores, bbox_deltas, im_shape, anchors, variances, rpn_rois,
            rpn_roi_probs, rpn_rois_num, attrs);
}

void generate_proposals(const Tensor& scores, const Tensor& bbox_deltas, const Tensor& im_info, const Tensor& anchors,
                        const Tensor& variances, Tensor& rpn_rois, Tensor& rpn_roi_probs, Tensor* rpn_rois_num,
                        const GenerateProposalsV1Attrs& attrs) {
  // v1 always counts both edge pixels (v2's pixel_offset true).
  const GenerateProposalsAttrs v2{attrs.pre_nms_topN, attrs.post_nms_topN, attrs.nms_thresh, attrs.min_size, attrs.eta,
                                  true};
  proposals("generate_proposals", true, scores, bbox_deltas, im_info, anchors, variances, rpn_rois, rpn_roi_probs,
            rpn_rois_num, v2);
}

}  // namespace fluidc::kernels
