// kernels/cpu/conv_unfold.cc - unfold (im2col as an op), fold (col2im) and their gradients, on the convolutions' lowering.
//
// unfold's gradient is fold of Y@GRAD and fold's is unfold of Y@GRAD: each
// is the other's adjoint, so two loops (im2col, col2im_add) serve all four.
#include <fmt/format.h>

#include "kernels/conv.h"
#include "kernels/cpu/conv_lowering.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels {
namespace {

using detail::Lowering;
using rt::Shape;

// A 2-D window over one image as the convolutions' lowering (depth 1); the
// padding after shows only in the window counts.
Lowering lowering(const shapes::UnfoldGeometry& g) {
  Lowering l{};
  l.img[0] = l.col[0] = l.k[0] = l.s[0] = l.d[0] = 1;
  l.p[0] = 0;
  for (int i = 0; i < 2; ++i) {
    l.img[i + 1] = i == 0 ? g.H : g.W;
    l.col[i + 1] = g.out[i];
    l.k[i + 1] = g.k[i];
    l.s[i + 1] = g.s[i];
    l.d[i + 1] = g.d[i];
    l.p[i + 1] = g.before[i];
  }
  return l;
}

// cols [N, C*kh*kw, L] from images [N, C, H, W].
void to_columns(const char* op, const shapes::UnfoldGeometry& g, const Tensor& images, Tensor& cols) {
  const Lowering l = lowering(g);
  cols.resize(Shape{g.N, g.rows(), g.positions()}, images.dtype());
  detail::visit_float(op, "X", images.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t per_image = g.C * g.H * g.W, per_cols = g.rows() * g.positions();
    for (int64_t n = 0; n < g.N; ++n)
      detail::im2col(l, g.C, images.data<T>() + n * per_image, cols.data<T>() + n * per_cols);
  });
}

// images [N, C, H, W] = the columns summed back onto their pixels.
void to_images(const char* op, const shapes::UnfoldGeometry& g, const Tensor& cols, Tensor& images) {
  const Lowering l = lowering(g);
  images.resize(Shape{g.N, g.C, g.H, g.W}, cols.dtype());
  detail::visit_float(op, "X", cols.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* img = images.data<T>();
    std::fill(img, img + images.numel(), T(0));
    const int64_t per_image = g.C * g.H * g.W, per_cols = g.rows() * g.positions();
    for (int64_t n = 0; n < g.N; ++n) detail::col2im_add(l, g.C, cols.data<T>() + n * per_cols, img + n * per_image);
  });
}

shapes::UnfoldGeometry unfold_geometry(const char* op, const Tensor& x, const UnfoldAttrs& a) {
  detail::require_init(op, "X", x);
  shapes::UnfoldGeometry g;
  Shape y;
  if (std::string e = shapes::unfold_shape(x.shape(), a, g, y); !e.empty()) rt::fail(fmt::format("{}: {}", op, e));
  return g;
}

shapes::UnfoldGeometry fold_geometry(const char* op, const Tensor& x, const UnfoldAttrs& a) {
  detail::require_init(op, "X", x);
  shapes::UnfoldGeometry g;
  Shape y;
  if (std::string e = shapes::fold_shape(x.shape(), a, g, y); !e.empty()) rt::fail(fmt::format("{}: {}", op, e));
  return g;
}

// A gradient shaped like the op's output, or the op fails naming it.
void require_grad_shape(const char* op, const Tensor& grad, const Shape& want) {
  detail::require_init(op, "Y@GRAD", grad);
  if (grad.shape() != want)
    rt::fail(fmt::format("{}: Y@GRAD has shape {} but Y has {}", op, grad.shape().str(), want.str()));
}

}  // namespace

using rt::Shape;

void unfold(const Tensor& x, Tensor& y, const UnfoldAttrs& a) {
  const auto g = unfold_geometry("unfold", x, a);
  detail::OutBuf buf(&y, detail::Slot::kOut0, detail::aliases(&y, {&x}));
  to_columns("unfold", g, x, buf.get());
  buf.finish();
}

void unfold_grad(const Tensor& x, const Tensor& y_grad, Tensor* x_grad, const UnfoldAttrs& a) {
  const auto g = unfold_geometry("unfold_grad", x, a);
  require_grad_shape("unfold_grad", y_grad, Shape{g.N, g.rows(), g.positions()});
  detail::OutBuf buf(x_grad, detail::Slot::kOut0, detail::aliases(x_grad, {&x, &y_grad}));
  if (!buf.wanted()) return;
  to_images("unfold_grad", g, y_grad, buf.get());
  buf.finish();
}

void fold(const Tensor& x, Tensor& y, const UnfoldAttrs& a) {
  const auto g = fold_geometry("fold", x, a);
  detail::OutBuf buf(&y, detail::Slot::kOut0, detail::aliases(&y, {&x}));
  to_images("fold", g, x, buf.get());
  buf.finish();
}

void fold_grad(const Tensor& x, const Tensor& y_grad, Tensor* x_grad, const UnfoldAttrs& a) {
  const auto g = fold_geometry("fold_grad", x, a);
  require_grad_shape("fold_grad", y_grad, Shape{g.N, g.C, g.H, g.W});
  detail::OutBuf buf(x_grad, detail::Slot::kOut0, detail::aliases(x_grad, {&x, &y_grad}));
  if (!buf.wanted()) return;
  to_columns("fold_grad", g, y_grad, buf.get());
  buf.finish();
}

}  // namespace fluidc::kernels
