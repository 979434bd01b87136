// kernels/cpu/detection.cc - prior_box and box_coder, in Paddle's arithmetic order.
#include "kernels/detection.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/detection.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

template <class T>
void fill_priors(const Shape& in, const Shape& img, const PriorBoxAttrs& a, T* b, T* v) {
  const std::vector<float> ratios = shapes::prior_box_ratios(a);
  const int64_t fh = in.d[2], fw = in.d[3];
  const T img_h = static_cast<T>(img.d[2]), img_w = static_cast<T>(img.d[3]);
  T step_w, step_h;
  if (a.step_w == 0 || a.step_h == 0) {
    step_w = img_w / static_cast<T>(fw);
    step_h = img_h / static_cast<T>(fh);
  } else {
    step_w = static_cast<T>(a.step_w);
    step_h = static_cast<T>(a.step_h);
  }
  const T off = static_cast<T>(a.offset);
  T* out = b;
  for (int64_t h = 0; h < fh; ++h)
    for (int64_t w = 0; w < fw; ++w) {
      const T cx = (static_cast<T>(w) + off) * step_w, cy = (static_cast<T>(h) + off) * step_h;
      auto push = [&](T half_w, T half_h) {
        out[0] = (cx - half_w) / img_w;
        out[1] = (cy - half_h) / img_h;
        out[2] = (cx + half_w) / img_w;
        out[3] = (cy + half_h) / img_h;
        out += 4;
      };
      for (size_t s = 0; s < a.min_sizes.size(); ++s) {
        const T mn = static_cast<T>(a.min_sizes[s]);
        // The square of sqrt(min * max), when max sizes are given.
        auto push_max = [&] {
          if (a.max_sizes.empty()) return;
          const T half = static_cast<T>(std::sqrt(mn * static_cast<T>(a.max_sizes[s])) / 2.);
          push(half, half);
        };
        auto push_ratio = [&](float ar) {
          const T sr = static_cast<T>(std::sqrt(ar));
          push(static_cast<T>(mn * sr / 2.), static_cast<T>(mn / sr / 2.));
        };
        if (a.min_max_aspect_ratios_order) {
          push(static_cast<T>(mn / 2.), static_cast<T>(mn / 2.));
          push_max();
          for (float ar : ratios)
            if (std::fabs(ar - 1.) >= 1e-6) push_ratio(ar);
        } else {
          for (float ar : ratios) push_ratio(ar);
          push_max();
        }
      }
    }
  const int64_t n = out - b;
  if (a.clip)
    for (int64_t i = 0; i < n; ++i) b[i] = std::min<T>(std::max<T>(b[i], T(0)), T(1));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(a.variances[static_cast<size_t>(i % 4)]);
}

// Width, height and centre of box p ([xmin, ymin, xmax, ymax]); unnormalised
// boxes count both edge pixels.
template <class T>
struct Geo {
  T w, h, cx, cy;
};
template <class T>
Geo<T> prior_geo(const T* p, T one) {
  Geo<T> g;
  g.w = p[2] - p[0] + one;
  g.h = p[3] - p[1] + one;
  g.cx = p[0] + g.w / 2;
  g.cy = p[1] + g.h / 2;
  return g;
}

template <class T>
void encode(const Tensor& prior, const Tensor* var, const Tensor& target, const BoxCoderAttrs& a, Tensor& out) {
  const int64_t N = target.dim(0), M = prior.dim(0);
  const T one = a.box_normalized ? T(0) : T(1);
  const T* pb = prior.data<T>();
  const T* tb = target.data<T>();
  const T* pv = var ? var->data<T>() : nullptr;
  T* o = out.data<T>();
  for (int64_t i = 0; i < N; ++i) {
    const T* t = tb + i * 4;
    const T tcx = (t[2] + t[0]) / 2, tcy = (t[3] + t[1]) / 2;
    const T tw = t[2] - t[0] + one, th = t[3] - t[1] + one;
    for (int64_t j = 0; j < M; ++j) {
      const Geo<T> p = prior_geo(pb + j * 4, one);
      T* r = o + (i * M + j) * 4;
      r[0] = (tcx - p.cx) / p.w;
      r[1] = (tcy - p.cy) / p.h;
      r[2] = std::log(std::fabs(tw / p.w));
      r[3] = std::log(std::fabs(th / p.h));
      for (int k = 0; k < 4; ++k) {
        if (pv) r[k] /= pv[j * 4 + k];
        else if (!a.variance.empty()) r[k] /= static_cast<T>(a.variance[k]);
      }
    }
  }
}

template <class T>
void decode(const Tensor& prior, const Tensor* var, const Tensor& target, const BoxCoderAttrs& a, Tensor& out) {
  const int64_t N = target.dim(0), M = target.dim(1);
  const T one = a.box_normalized ? T(0) : T(1);
  const T* pb = prior.data<T>();
  const T* tb = target.data<T>();
  const T* pv = var ? var->data<T>() : nullptr;
  T* o = out.data<T>();
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < M; ++j) {
      const int64_t po = (a.axis == 0 ? j : i) * 4;  // the prior this offset is relative to
      const Geo<T> p = prior_geo(pb + po, one);
      T vr[4] = {1, 1, 1, 1};
      for (int k = 0; k < 4; ++k) {
        if (pv) vr[k] = pv[po + k];
        else if (!a.variance.empty()) vr[k] = static_cast<T>(a.variance[k]);
      }
      const T* t = tb + (i * M + j) * 4;
      const T cx = vr[0] * t[0] * p.w + p.cx, cy = vr[1] * t[1] * p.h + p.cy;
      const T w = std::exp(vr[2] * t[2]) * p.w, h = std::exp(vr[3] * t[3]) * p.h;
      T* r = o + (i * M + j) * 4;
      r[0] = cx - w / 2;
      r[1] = cy - h / 2;
      r[2] = cx + w / 2 - one;
      r[3] = cy + h / 2 - one;
    }
}

template <class T>
T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

// Paddle's decoding, one batch item at a time; channel c of anchor j at
// cell p sits at base + (j * per_anchor + c) * cells + p (after the IoU
// channels when iou_aware).
template <class T>
void yolo_decode(const Shape& xs, const int32_t* img, const YoloBoxAttrs& a, const T* x, T* boxes, T* scores) {
  const int64_t N = xs.d[0], H = xs.d[2], W = xs.d[3], cells = H * W;
  const int64_t an = static_cast<int64_t>(a.anchors.size() / 2), cls = a.class_num;
  const int64_t per_anchor = 5 + cls;
  const int64_t box_num = an * cells;
  const int in_h = a.downsample_ratio * static_cast<int>(H), in_w = a.downsample_ratio * static_cast<int>(W);
  const T scale = static_cast<T>(a.scale_x_y), bias = static_cast<T>(-0.5 * (a.scale_x_y - 1.));
  const int64_t iou_channels = a.iou_aware ? an : 0;
  for (int64_t n = 0; n < N; ++n) {
    const int img_h = img[2 * n], img_w = img[2 * n + 1];
    const T* xb = x + n * (an * per_anchor + iou_channels) * cells;
    for (int64_t j = 0; j < an; ++j) {
      const T* xa = xb + (iou_channels + j * per_anchor) * cells;
      for (int64_t k = 0; k < H; ++k)
        for (int64_t l = 0; l < W; ++l) {
          const int64_t p = k * W + l;
          T conf = sigmoid(xa[4 * cells + p]);
          if (a.iou_aware) {
            const T iou = sigmoid(xb[j * cells + p]);
            conf = static_cast<T>(std::pow(conf, static_cast<T>(1. - a.iou_aware_factor)) *
                                  std::pow(iou, static_cast<T>(a.iou_aware_factor)));
          }
          if (conf < static_cast<T>(a.conf_thresh)) continue;  // left zero
          const T cx = (static_cast<T>(l) + sigmoid(xa[p]) * scale + bias) * static_cast<T>(img_w) / static_cast<T>(W);
          const T cy =
              (static_cast<T>(k) + sigmoid(xa[cells + p]) * scale + bias) * static_cast<T>(img_h) / static_cast<T>(H);
          const T bw = std::exp(xa[2 * cells + p]) * static_cast<T>(a.anchors[2 * j]) * static_cast<T>(img_w) /
                       static_cast<T>(in_w);
          const T bh = std::exp(xa[3 * cells + p]) * static_cast<T>(a.anchors[2 * j + 1]) * static_cast<T>(img_h) /
                       static_cast<T>(in_h);
          const int64_t o = n * box_num + j * cells + p;
          T* b = boxes + o * 4;
          b[0] = cx - bw / 2;
          b[1] = cy - bh / 2;
          b[2] = cx + bw / 2;
          b[3] = cy + bh / 2;
          if (a.clip_bbox) {
            b[0] = b[0] > 0 ? b[0] : T(0);
            b[1] = b[1] > 0 ? b[1] : T(0);
            b[2] = b[2] < static_cast<T>(img_w - 1) ? b[2] : static_cast<T>(img_w - 1);
            b[3] = b[3] < static_cast<T>(img_h - 1) ? b[3] : static_cast<T>(img_h - 1);
          }
          T* s = scores + o * cls;
          for (int64_t c = 0; c < cls; ++c) s[c] = conf * sigmoid(xa[(5 + c) * cells + p]);
        }
    }
  }
}

}  // namespace

void yolo_box(const Tensor& x, const Tensor& img_size, Tensor& boxes, Tensor& scores, const YoloBoxAttrs& attrs) {
  constexpr const char* op = "yolo_box";
  require_init(op, "X", x);
  require_init(op, "ImgSize", img_size);
  Shape bs, ss;
  require_rule(op, shapes::yolo_box_shape(x.shape(), img_size.shape(), attrs, bs, ss));
  if (img_size.dtype() != DType::kInt32)
    rt::fail(fmt::format("{}: ImgSize must be int32, got {}", op, rt::dtype_name(img_size.dtype())));
  if (img_size.dim(0) != x.dim(0))
    rt::fail(fmt::format("{}: ImgSize has {} rows for a batch of {}", op, img_size.dim(0), x.dim(0)));
  if (aliases(&boxes, {&x, &img_size}) || aliases(&scores, {&x, &img_size}))
    rt::fail(fmt::format("{}: outputs must not alias the inputs", op));
  boxes.resize(bs, x.dtype());
  scores.resize(ss, x.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    boxes.zero();
    scores.zero();
    yolo_decode<T>(x.shape(), img_size.data<int32_t>(), attrs, x.data<T>(), boxes.data<T>(), scores.data<T>());
  });
}

void prior_box(const Tensor& input, const Tensor& image, Tensor& boxes, Tensor& variances,
               const PriorBoxAttrs& attrs) {
  constexpr const char* op = "prior_box";
  require_init(op, "Input", input);
  require_init(op, "Image", image);
  Shape os;
  require_rule(op, shapes::prior_box_shape(input.shape(), image.shape(), attrs, os));
  if (&boxes == &input || &boxes == &image || &variances == &input || &variances == &image)
    rt::fail(fmt::format("{}: outputs must not alias the inputs", op));
  // Paddle's priors take Input's float type (Image's is not read).
  const DType dt = input.dtype() == DType::kFP64 ? DType::kFP64 : DType::kFP32;
  boxes.resize(os, dt);
  variances.resize(os, dt);
  visit_float(op, "Boxes", dt, [&](auto tag) {
    using T = decltype(tag);
    fill_priors<T>(input.shape(), image.shape(), attrs, boxes.data<T>(), variances.data<T>());
  });
}

void box_coder(const Tensor& prior_box, const Tensor* prior_box_var, const Tensor& target_box, Tensor& output_box,
               const BoxCoderAttrs& attrs) {
  constexpr const char* op = "box_coder";
  require_init(op, "PriorBox", prior_box);
  require_init(op, "TargetBox", target_box);
  if (prior_box_var) {
    require_init(op, "PriorBoxVar", *prior_box_var);
    require_same_shape(op, "PriorBoxVar", *prior_box_var, "PriorBox", prior_box);
    require_same_dtype(op, "PriorBoxVar", *prior_box_var, "PriorBox", prior_box);
  }
  require_same_dtype(op, "TargetBox", target_box, "PriorBox", prior_box);
  Shape os;
  const Shape pvs = prior_box_var ? prior_box_var->shape() : Shape{};
  require_rule(op, shapes::box_coder_shape(prior_box.shape(), prior_box_var ? &pvs : nullptr, target_box.shape(),
                                           attrs, os));
  if (aliases(&output_box, {&prior_box, prior_box_var, &target_box}))
    rt::fail(fmt::format("{}: OutputBox must not alias an input", op));
  output_box.resize(os, target_box.dtype());
  visit_float(op, "TargetBox", target_box.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (attrs.code_type == "encode_center_size") encode<T>(prior_box, prior_box_var, target_box, attrs, output_box);
    else decode<T>(prior_box, prior_box_var, target_box, attrs, output_box);
  });
}

}  // namespace fluidc::kernels
