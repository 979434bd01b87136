// kernels/cpu/distribute_fpn_proposals.cc - distribute_fpn_proposals: each box to the FPN level its size selects.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/nms_iou.h"
#include "kernels/cpu/roi_images.h"
#include "kernels/detection_rpn.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

}  // namespace

void distribute_fpn_proposals(const Tensor& fpn_rois, const Tensor* rois_num, Tensor* const* multi_fpn_rois,
                              int levels, Tensor& restore_index, Tensor* const* multi_level_rois_num, int counted,
                              const DistributeFpnProposalsAttrs& a) {
  const char* op = "distribute_fpn_proposals";
  require_init(op, "FpnRois", fpn_rois);
  if (fpn_rois.rank() != 2 || fpn_rois.dim(1) != 4)
    rt::fail(fmt::format("{}: FpnRois must be [boxes, 4], got {}", op, fpn_rois.shape().str()));
  const int64_t want = int64_t{a.max_level} - a.min_level + 1;  // in 64 bits: the attributes are program data
  if (want < 1 || levels != want || (counted != 0 && counted != levels))
    rt::fail(fmt::format("{}: levels {} to {} need {} MultiFpnRois (and as many MultiLevelRoIsNum, or none), got {} "
                         "and {}", op, a.min_level, a.max_level, want, levels, counted));
  if (a.refer_scale <= 0) rt::fail(fmt::format("{}: refer_scale must be positive, got {}", op, a.refer_scale));
  for (int l = 0; l <= levels + counted; ++l) {
    const Tensor* out = l < levels ? multi_fpn_rois[l] : l == levels ? &restore_index : multi_level_rois_num[l - levels - 1];
    if (aliases(out, {&fpn_rois, rois_num})) rt::fail(fmt::format("{}: an output may not be an input", op));
  }
  const std::vector<uint64_t> off = roi_offsets(op, "FpnRois", fpn_rois, rois_num);
  const int64_t boxes = fpn_rois.dim(0), images = static_cast<int64_t>(off.size()) - 1;
  std::vector<int> level(boxes);
  // per_image[l][i]: boxes of image i at level l.
  std::vector<std::vector<int64_t>> per_image(levels, std::vector<int64_t>(images, 0));
  visit_float(op, "FpnRois", fpn_rois.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* r = fpn_rois.data<T>();
    for (int64_t i = 0; i < images; ++i)
      for (uint64_t b = off[i]; b < off[i + 1]; ++b) {
        // Paddle's types: the scale in T, log2 of T, floor to int.
        const T scale = std::sqrt(nms_detail::box_area(r + 4 * b, !a.pixel_offset));
        const int l = static_cast<int>(std::floor(std::log2(scale / a.refer_scale + static_cast<T>(1e-6)) + a.refer_level));
        level[b] = std::min(a.max_level, std::max(l, a.min_level)) - a.min_level;
        ++per_image[level[b]][i];
      }
    std::vector<T*> dst(levels);
    std::vector<int64_t> start(levels + 1, 0);  // each level's first row in the concatenation
    for (int l = 0; l < levels; ++l) {
      std::vector<uint64_t> lod{0};
      for (int64_t i = 0; i < images; ++i) lod.push_back(lod.back() + static_cast<uint64_t>(per_image[l][i]));
      const int64_t rows = static_cast<int64_t>(lod.back());
      multi_fpn_rois[l]->resize(Shape{rows, 4}, fpn_rois.dtype());
      multi_fpn_rois[l]->mutable_lod() = rt::Lod{lod};
      dst[l] = multi_fpn_rois[l]->template data<T>();
      start[l + 1] = start[l] + rows;
    }
    restore_index.resize(Shape{boxes, 1}, DType::kInt32);
    int32_t* restore = restore_index.data<int32_t>();
    std::vector<int64_t> filled(levels, 0);
    for (int64_t b = 0; b < boxes; ++b) {  // image by image, each image's boxes in order
      const int l = level[b];
      std::copy(r + 4 * b, r + 4 * b + 4, dst[l] + 4 * filled[l]);
      restore[b] = static_cast<int32_t>(start[l] + filled[l]++);
    }
  });
  for (int l = 0; l < counted; ++l) {
    multi_level_rois_num[l]->resize(Shape{images}, DType::kInt32);
    for (int64_t i = 0; i < images; ++i)
      multi_level_rois_num[l]->data<int32_t>()[i] = static_cast<int32_t>(per_image[l][i]);
  }
}

}  // namespace fluidc::kernels
