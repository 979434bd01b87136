// kernels/cpu/label_smooth.cc - label_smooth and its grad: a scaled copy plus a per-class (or uniform) offset.
#include "kernels/cpu/kernel_util.h"
#include "kernels/loss.h"
#include "kernels/shapes/loss.h"

namespace fluidc::kernels {

using namespace detail;

void label_smooth(const Tensor& x, const Tensor* prior_dist, Tensor& out, const LabelSmoothAttrs& a) {
  const char* op = "label_smooth";
  require_init(op, "X", x);
  if (prior_dist) {
    require_init(op, "PriorDist", *prior_dist);
    require_same_dtype(op, "X", x, "PriorDist", *prior_dist);
  }
  require_rule(op, shapes::label_smooth_shape(x.shape(), prior_dist ? &prior_dist->shape() : nullptr));
  const int64_t c = x.dim(x.rank() - 1);
  const int64_t rows = c == 0 ? 0 : x.numel() / c;
  const Shape xs = x.shape();  // copied: out may be x (same index read then written, safe in place)
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T keep = static_cast<T>(1 - static_cast<double>(a.epsilon));
    const T eps = static_cast<T>(a.epsilon);
    const T uniform = c > 0 ? static_cast<T>(static_cast<double>(a.epsilon) / static_cast<double>(c)) : T(0);
    const T* px = x.data<T>();
    const T* pp = prior_dist ? prior_dist->data<T>() : nullptr;
    out.resize(xs, x.dtype());
    T* po = out.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = px + r * c;
      T* orow = po + r * c;
      if (pp)
        for (int64_t j = 0; j < c; ++j) orow[j] = keep * xr[j] + eps * pp[j];
      else
        for (int64_t j = 0; j < c; ++j) orow[j] = keep * xr[j] + uniform;
    }
  });
}

void label_smooth_grad(const Tensor& out_grad, Tensor* x_grad, const LabelSmoothAttrs& a) {
  const char* op = "label_smooth_grad";
  if (!x_grad) return;
  require_init(op, "Out@GRAD", out_grad);
  const Shape s = out_grad.shape();
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T keep = static_cast<T>(1 - static_cast<double>(a.epsilon));
    const T* pg = out_grad.data<T>();
    x_grad->resize(s, out_grad.dtype());  // same shape: an aliased Out@GRAD keeps its data
    T* pd = x_grad->data<T>();
    for (int64_t i = 0, n = s.numel(); i < n; ++i) pd[i] = keep * pg[i];
  });
}

}  // namespace fluidc::kernels
