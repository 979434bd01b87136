// kernels/cpu/roi_images.h - which image each region of a ROIs tensor belongs to (RoisNum or ROIs' LoD), for the region-pooling kernels.
#pragma once

#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "runtime/lod.h"

namespace fluidc::kernels::detail {

/// Fills image[r], the image (of N) region r of `rois` belongs to: from
/// RoisNum (int32/int64 [N], regions per image) when given, else from ROIs'
/// last LoD level. Refuses counts that are negative, that overrun the ROIs
/// or that do not add up to them: they come from the feed.
inline void roi_images(const char* op, const Tensor& rois, const Tensor* rois_num, int64_t N,
                       std::vector<int64_t>& image) {
  const int64_t R = rois.dim(0);
  std::vector<int64_t> counts(static_cast<size_t>(N));
  if (rois_num) {
    require_init(op, "RoisNum", *rois_num);
    if (rois_num->numel() != N)
      rt::fail(fmt::format("{}: RoisNum has {} values for {} images", op, rois_num->numel(), N));
    for (int64_t n = 0; n < N; ++n) {
      if (rois_num->dtype() == DType::kInt32) counts[static_cast<size_t>(n)] = rois_num->data<int32_t>()[n];
      else if (rois_num->dtype() == DType::kInt64) counts[static_cast<size_t>(n)] = rois_num->data<int64_t>()[n];
      else fail_dtype(op, "RoisNum", rois_num->dtype());
    }
  } else {
    const rt::Lod* lod = rois.lod();
    if (!lod || lod->empty())
      rt::fail(fmt::format("{}: without RoisNum, ROIs must carry a LoD giving each image's regions", op));
    const auto& level = lod->back();
    if (static_cast<int64_t>(level.size()) != N + 1)
      rt::fail(fmt::format("{}: ROIs' LoD has {} images but X has {}", op, static_cast<int64_t>(level.size()) - 1, N));
    for (int64_t n = 0; n < N; ++n)
      counts[static_cast<size_t>(n)] = static_cast<int64_t>(level[static_cast<size_t>(n) + 1]) -
                                       static_cast<int64_t>(level[static_cast<size_t>(n)]);
  }
  image.assign(static_cast<size_t>(R), 0);
  int64_t start = 0;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t c = counts[static_cast<size_t>(n)];
    if (c < 0 || c > R - start)
      rt::fail(fmt::format("{}: image {} claims {} regions but only {} of the {} ROIs remain", op, n, c, R - start, R));
    for (int64_t i = start; i < start + c; ++i) image[static_cast<size_t>(i)] = n;
    start += c;
  }
  if (start != R) rt::fail(fmt::format("{}: the images claim {} regions but ROIs has {}", op, start, R));
}

/// Offsets of each image's rows in `rois` (slot `slot`): from RoisNum
/// (int32/int64, one count per image) or, without it, from rois' LoD of one
/// level. The counts must be non-negative and add up to rois' rows.
inline std::vector<uint64_t> roi_offsets(const char* op, const char* slot, const Tensor& rois, const Tensor* rois_num) {
  std::vector<uint64_t> off{0};
  if (!rois_num) {
    const rt::Lod* lod = rois.lod();
    if (!lod || lod->size() != 1)
      rt::fail(fmt::format("{}: {} needs RoisNum or a LoD of one level (got {} levels)", op, slot, lod ? lod->size() : 0));
    off = rt::last_lod_level(rois, op, slot);
  } else {
    require_init(op, "RoisNum", *rois_num);
    for (int64_t i = 0; i < rois_num->numel(); ++i) {
      int64_t c = 0;
      switch (rois_num->dtype()) {
        case DType::kInt32: c = rois_num->data<int32_t>()[i]; break;
        case DType::kInt64: c = rois_num->data<int64_t>()[i]; break;
        default: rt::fail(fmt::format("{}: RoisNum must be int32 or int64, got {}", op, rt::dtype_name(rois_num->dtype())));
      }
      if (c < 0) rt::fail(fmt::format("{}: RoisNum value {} (image {}) is negative", op, c, i));
      // A sum of huge counts could wrap around to the row count.
      if (off.back() + static_cast<uint64_t>(c) < off.back())
        rt::fail(fmt::format("{}: RoisNum's counts overflow (image {})", op, i));
      off.push_back(off.back() + static_cast<uint64_t>(c));
    }
  }
  if (off.back() != static_cast<uint64_t>(rois.dim(0)))
    rt::fail(fmt::format("{}: the images hold {} boxes but {} has {} rows", op, off.back(), slot, rois.dim(0)));
  return off;
}

}  // namespace fluidc::kernels::detail
