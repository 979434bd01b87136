// kernels/cpu/nll_loss.cc - nll_loss and its gradient: one class per position, weighted, ignored labels skipped.
#include "kernels/cpu/kernel_util.h"
#include "kernels/nll_loss.h"
#include "kernels/shapes/nll_loss.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// X as [N, C, inner]: position p = (n, k) reads X at n * C * inner + c * inner + k.
struct NllLayout {
  int64_t n = 0, classes = 0, inner = 1;
  int64_t at(int64_t pos, int64_t c) const { return (pos / inner) * classes * inner + c * inner + pos % inner; }
};

NllLayout checked(const char* op, const Tensor& x, const Tensor& label, const Tensor* weight,
                  const NllLossAttrs& a, Shape& out) {
  require_init(op, "X", x);
  require_init(op, "Label", label);
  if (weight) {
    require_init(op, "Weight", *weight);
    require_same_dtype(op, "X", x, "Weight", *weight);
  }
  visit_float(op, "X", x.dtype(), [](auto) {});
  if (label.dtype() != DType::kInt64) rt::fail(fmt::format("{}: Label must be int64, not {}", op, rt::dtype_name(label.dtype())));
  require_rule(op, shapes::nll_loss_shape(x.shape(), label.shape(), weight ? &weight->shape() : nullptr, a, out));
  NllLayout l;
  l.n = label.numel();
  l.classes = x.shape().d[1];
  l.inner = prod(x.shape(), 2, x.shape().rank);
  const int64_t* lv = label.data<int64_t>();
  for (int64_t p = 0; p < l.n; ++p)
    if (lv[p] != a.ignore_index && (lv[p] < 0 || lv[p] >= l.classes))
      rt::fail(fmt::format("{}: Label value {} (entry {}) is out of range [0, {})", op, lv[p], p, l.classes));
  return l;
}

template <class T>
T weight_of(const Tensor* weight, int64_t c) {
  return weight ? weight->data<T>()[c] : T(1);
}

}  // namespace

void nll_loss(const Tensor& x, const Tensor& label, const Tensor* weight, Tensor& out, Tensor& total_weight,
              const NllLossAttrs& a) {
  constexpr const char* op = "nll_loss";
  Shape os;
  const NllLayout l = checked(op, x, label, weight, a, os);
  OutBuf bo(&out, Slot::kOut0, aliases(&out, {&x, &label, weight}));
  OutBuf bt(&total_weight, Slot::kOut1, aliases(&total_weight, {&x, &label, weight}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    bo.get().resize(os, x.dtype());
    bt.get().resize(Shape{}, x.dtype());
    const T* xv = x.data<T>();
    const int64_t* lv = label.data<int64_t>();
    T* o = bo.get().data<T>();
    const bool each = a.reduction == "none";
    double sum = 0.0, total = 0.0;
    for (int64_t p = 0; p < l.n; ++p) {
      double loss = 0.0;
      if (lv[p] != a.ignore_index) {
        const double w = weight_of<T>(weight, lv[p]);
        loss = -w * xv[l.at(p, lv[p])];
        total += w;
      }
      if (each) o[p] = static_cast<T>(loss);
      sum += loss;
    }
    if (a.reduction == "sum") o[0] = static_cast<T>(sum);
    if (a.reduction == "mean") o[0] = static_cast<T>(sum / total);
    bt.get().data<T>()[0] = static_cast<T>(each ? 0.0 : total);
  });
  bo.finish();
  bt.finish();
}

void nll_loss_grad(const Tensor& x, const Tensor& label, const Tensor* weight, const Tensor& total_weight,
                   const Tensor& out_grad, Tensor* x_grad, const NllLossAttrs& a) {
  constexpr const char* op = "nll_loss_grad";
  Shape os;
  const NllLayout l = checked(op, x, label, weight, a, os);
  require_init(op, "Out@GRAD", out_grad);
  require_init(op, "Total_weight", total_weight);
  if (out_grad.numel() != os.numel() || out_grad.dtype() != x.dtype() || total_weight.numel() != 1)
    rt::fail(fmt::format("{}: Out@GRAD {} must be {} {} and Total_weight one value", op, out_grad.shape().str(),
                         rt::dtype_name(x.dtype()), os.str()));
  if (!x_grad) return;
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &label, weight, &total_weight, &out_grad}));
  Tensor& g = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    g.resize(x.shape(), x.dtype());
    g.zero();
    const int64_t* lv = label.data<int64_t>();
    const T* gv = out_grad.data<T>();
    const double scale = a.reduction == "mean" ? 1.0 / static_cast<double>(total_weight.data<T>()[0]) : 1.0;
    const bool each = a.reduction == "none";
    T* d = g.data<T>();
    for (int64_t p = 0; p < l.n; ++p) {
      if (lv[p] == a.ignore_index) continue;
      const double up = each ? gv[p] : gv[0] * scale;
      d[l.at(p, lv[p])] = static_cast<T>(-static_cast<double>(weight_of<T>(weight, lv[p])) * up);
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
