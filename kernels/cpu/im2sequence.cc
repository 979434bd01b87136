// kernels/cpu/im2sequence.cc - im2sequence: each image's patches as one sequence of rows, and the gradient.
#include <cstdint>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy2.h"
#include "kernels/vision_legacy2.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

using shapes::Im2SeqGeom;

// Visits every (output value, input pixel) pair of image `img` for an
// oh x ow grid of patches: f(out_index, in_index), in_index -1 in the padding.
// Rows are (oh, ow); features (c, i, j).
template <class F>
void walk(const Im2SeqGeom& g, int64_t c, int64_t h, int64_t w, int64_t oh, int64_t ow, F f) {
  const int64_t feat = c * g.kh * g.kw;
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      const int64_t row = (y * ow + x) * feat;
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t iy = y * g.sh - g.up + i;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t ix = x * g.sw - g.left + j;
            const bool in = iy >= 0 && iy < h && ix >= 0 && ix < w;
            f(row + (ch * g.kh + i) * g.kw + j, in ? (ch * h + iy) * w + ix : -1);
          }
        }
    }
}

Im2SeqGeom geometry(const char* op, const Tensor& x, const Im2SequenceAttrs& a) {
  require_init(op, "X", x);
  Im2SeqGeom g;
  require_rule(op, shapes::im2sequence_geom(x.shape(), a, g));
  return g;
}

// Real size / out_stride, rounded up (Paddle's rule for Y); -1 for a value
// Paddle's int cast cannot hold (NaN, negative, past int32).
int64_t strided(double real, int s) {
  if (!(real >= 0 && real < 2147483648.0)) return -1;
  const int64_t v = static_cast<int64_t>(real);
  return v % s == 0 ? v / s : v / s + 1;
}

}  // namespace

void im2sequence(const Tensor& x, const Tensor* y, Tensor& out, const Im2SequenceAttrs& attrs) {
  constexpr const char* kOp = "im2sequence";
  const Im2SeqGeom g = geometry(kOp, x, attrs);
  if (&out == &x || &out == y) rt::fail(fmt::format("{}: Out must not be an input", kOp));
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  std::vector<int64_t> oh(static_cast<size_t>(n), g.grid(h, true)), ow(static_cast<size_t>(n), g.grid(w, false));
  if (y && n > 1) {  // Paddle reads Y only for a batch of several images
    require_init(kOp, "Y", *y);
    require_same_dtype(kOp, "X", x, "Y", *y);
    if (y->numel() != 2 * n)
      rt::fail(fmt::format("{}: Y {} must hold a (height, width) per image of X {}", kOp, y->shape().str(),
                           x.shape().str()));
    visit_float(kOp, "Y", y->dtype(), [&](auto tag) {
      const auto* v = y->data<decltype(tag)>();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t rh = strided(v[2 * i], attrs.out_stride[0]), rw = strided(v[2 * i + 1], attrs.out_stride[1]);
        oh[i] = g.grid(rh, true);
        ow[i] = g.grid(rw, false);
        // The patches are read from the whole image (zeros past its edge),
        // so any grid is readable; a negative one is not a grid.
        if (rh < 0 || rw < 0 || oh[i] < 0 || ow[i] < 0)
          rt::fail(fmt::format("{}: Y's size ({}, {}) of image {} gives no patch grid", kOp, v[2 * i],
                               v[2 * i + 1], i));
      }
    });
  }
  const int64_t feat = g.features(c);
  if (feat < 0)
    rt::fail(fmt::format("{}: X {} has too many channels for {}x{} patches", kOp, x.shape().str(), g.kh, g.kw));
  std::vector<uint64_t> offsets(1, 0);
  for (int64_t i = 0; i < n; ++i) offsets.push_back(offsets.back() + static_cast<uint64_t>(oh[i] * ow[i]));
  const Shape os{static_cast<int64_t>(offsets.back()), feat};
  size_t bytes = 0;
  if (offsets.back() > (uint64_t{1} << 40) || !os.checked_bytes(rt::dtype_size(x.dtype()), &bytes))
    rt::fail(fmt::format("{}: Out {} is too large (Y's sizes or the paddings)", kOp, os.str()));
  out.resize(os, x.dtype());
  visit_float(kOp, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      const T* img = x.data<T>() + i * c * h * w;
      T* o = out.data<T>() + offsets[i] * feat;
      walk(g, c, h, w, oh[i], ow[i], [&](int64_t oi, int64_t ii) { o[oi] = ii < 0 ? T(0) : img[ii]; });
    }
  });
  out.mutable_lod().assign(1, std::move(offsets));
}

void im2sequence_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const Im2SequenceAttrs& attrs) {
  constexpr const char* kOp = "im2sequence_grad";
  if (!x_grad) return;
  const Im2SeqGeom g = geometry(kOp, x, attrs);
  require_init(kOp, "Out@GRAD", out_grad);
  require_same_dtype(kOp, "X", x, "Out@GRAD", out_grad);
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  const int64_t oh = g.grid(h, true), ow = g.grid(w, false), feat = g.features(c);
  // Out@GRAD's rows and width (not their product, which could overflow).
  if (out_grad.rank() != 2 || out_grad.dim(1) != feat || out_grad.dim(0) != n * oh * ow)
    rt::fail(fmt::format("{}: Out@GRAD {} must be [{}, {}] (the whole images' patches of X {})", kOp,
                         out_grad.shape().str(), n * oh * ow, feat, x.shape().str()));
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&out_grad}));
  Tensor& dx = buf.get();
  dx.resize(x.shape(), x.dtype());
  dx.zero();
  visit_float(kOp, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      T* img = dx.data<T>() + i * c * h * w;
      const T* go = out_grad.data<T>() + i * oh * ow * feat;
      walk(g, c, h, w, oh, ow, [&](int64_t oi, int64_t ii) {
        if (ii >= 0) img[ii] += go[oi];
      });
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
