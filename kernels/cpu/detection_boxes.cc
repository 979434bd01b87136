// kernels/cpu/detection_boxes.cc - box_clip, iou_similarity and anchor_generator.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/detection_boxes.h"
#include "kernels/shapes/detection_boxes.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Image i's rows of Input: [first[i], first[i+1]) of the rows of Input
// flattened to [R, 4k] (see box_clip in kernels/detection_boxes.h).
std::vector<int64_t> image_rows(const char* op, const Tensor& input, int64_t images) {
  const Shape& s = input.shape();
  std::vector<int64_t> first;
  if (const rt::Lod* lod = input.lod()) {
    const auto& level = lod->back();
    if (static_cast<int64_t>(level.size()) != images + 1)
      rt::fail(fmt::format("{}: Input's LoD has {} sequences but ImInfo describes {} images", op,
                           static_cast<int64_t>(level.size()) - 1, images));
    if (level.front() != 0 || static_cast<int64_t>(level.back()) != s[0])
      rt::fail(fmt::format("{}: Input's LoD does not cover its {} rows", op, s[0]));
    const int64_t per = s.rank == 3 ? s[1] : 1;  // rows of the flattened view per LoD entry
    for (uint64_t o : level) first.push_back(static_cast<int64_t>(o) * per);
    for (size_t i = 1; i < first.size(); ++i)
      if (first[i] < first[i - 1]) rt::fail(fmt::format("{}: Input's LoD offsets decrease", op));
  } else if (s.rank == 3) {
    for (int64_t i = 0; i <= images; ++i) first.push_back(i * s[1]);
  } else {
    if (images != 1)
      rt::fail(fmt::format("{}: a 2-D Input without LoD belongs to one image, but ImInfo describes {}", op, images));
    first = {0, s[0]};
  }
  return first;
}

}  // namespace

void box_clip(const Tensor& input, const Tensor& im_info, Tensor& output) {
  const char* op = "box_clip";
  require_init(op, "Input", input);
  require_init(op, "ImInfo", im_info);
  require_same_dtype(op, "Input", input, "ImInfo", im_info);
  require_rule(op, shapes::box_clip_check(input.shape(), im_info.shape()));
  const int64_t images = im_info.shape()[0];
  const std::vector<int64_t> first = image_rows(op, input, images);
  const int64_t width = input.shape()[input.shape().rank - 1];
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Same-index reads and writes: Output may be Input. ImInfo is read
    // through a copy in case Output is bound to it.
    std::vector<T> info(im_info.data<T>(), im_info.data<T>() + im_info.numel());
    if (&output != &input) output.resize(input.shape(), input.dtype());
    const T* in = input.data<T>();
    T* out = output.data<T>();
    for (int64_t i = 0; i < images; ++i) {
      const T* im = info.data() + i * 3;
      // Paddle scales the image back to the input's size and rounds it.
      const T w = std::round(im[1] / im[2]) - T(1), h = std::round(im[0] / im[2]) - T(1);
      for (int64_t e = first[i] * width; e < first[i + 1] * width; ++e) {
        const T hi = e % 2 == 0 ? w : h;
        out[e] = std::max(std::min(in[e], hi), T(0));
      }
    }
  });
  if (&output != &input) output.share_lod(input);
}

void iou_similarity(const Tensor& x, const Tensor& y, Tensor& out, const IouSimilarityAttrs& attrs) {
  const char* op = "iou_similarity";
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  Shape os;
  require_rule(op, shapes::iou_similarity_shape(x.shape(), y.shape(), os));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &y}));
    ob.get().resize(os, x.dtype());
    const T* a = x.data<T>();
    const T* b = y.data<T>();
    T* o = ob.get().data<T>();
    const T one = attrs.box_normalized ? T(0) : T(1);
    for (int64_t i = 0; i < os[0]; ++i) {
      const T* p = a + i * 4;
      const T area_p = (p[2] - p[0] + one) * (p[3] - p[1] + one);
      for (int64_t j = 0; j < os[1]; ++j) {
        const T* q = b + j * 4;
        const T area_q = (q[2] - q[0] + one) * (q[3] - q[1] + one);
        const T iw = std::max(std::min(p[2], q[2]) - std::max(p[0], q[0]) + one, T(0));
        const T ih = std::max(std::min(p[3], q[3]) - std::max(p[1], q[1]) + one, T(0));
        const T inter = iw * ih;
        o[i * os[1] + j] = inter / (area_p + area_q - inter);
      }
    }
    ob.finish();
  });
  if (&out != &x) out.share_lod(x);
}

void anchor_generator(const Tensor& input, Tensor& anchors, Tensor& variances, const AnchorGeneratorAttrs& a) {
  const char* op = "anchor_generator";
  require_init(op, "Input", input);
  Shape os;
  require_rule(op, shapes::anchor_generator_shape(input.shape(), a, os));
  if (&anchors == &variances) rt::fail(fmt::format("{}: Anchors and Variances are the same variable", op));
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Only Input's dims are read (taken above), so either output may be Input.
    anchors.resize(os, input.dtype());
    variances.resize(os, input.dtype());
    T* pa = anchors.data<T>();
    T* pv = variances.data<T>();
    const T sw = a.stride[0], sh = a.stride[1], off = a.offset;
    for (int64_t h = 0; h < os[0]; ++h)
      for (int64_t w = 0; w < os[1]; ++w) {
        const T xc = static_cast<T>(w) * sw + off * (sw - 1), yc = static_cast<T>(h) * sh + off * (sh - 1);
        for (float r : a.aspect_ratios)
          for (float s : a.anchor_sizes) {
            const T base_w = std::round(std::sqrt(sw * sh / static_cast<T>(r)));
            const T base_h = std::round(base_w * static_cast<T>(r));
            const T aw = static_cast<T>(s) / sw * base_w, ah = static_cast<T>(s) / sh * base_h;
            *pa++ = xc - T(0.5) * (aw - 1);
            *pa++ = yc - T(0.5) * (ah - 1);
            *pa++ = xc + T(0.5) * (aw - 1);
            *pa++ = yc + T(0.5) * (ah - 1);
            for (float v : a.variances) *pv++ = static_cast<T>(v);
          }
      }
  });
}

}  // namespace fluidc::kernels
