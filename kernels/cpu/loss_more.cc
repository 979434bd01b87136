// kernels/cpu/loss_more.cc - sigmoid_cross_entropy_with_logits, bce_loss, huber_loss, kldiv_loss, log_loss and their gradients.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/loss_more.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Checks that `b` (role rb) matches `a` in shape and dtype; `a` is initialised and floating.
void require_like(const char* op, const char* ra, const Tensor& a, const char* rb, const Tensor& b) {
  require_init(op, rb, b);
  require_same_shape(op, ra, a, rb, b);
  require_same_dtype(op, ra, a, rb, b);
}

// Calls f(T{}) for X's floating dtype after checking every other input is like X.
template <class F>
void visit_like_x(const char* op, const char* rx, const Tensor& x, std::initializer_list<std::pair<const char*, const Tensor*>> others,
                  F&& f) {
  require_init(op, rx, x);
  for (const auto& [role, t] : others)
    if (t) require_like(op, rx, x, role, *t);
  visit_float(op, rx, x.dtype(), f);
}

// Elements of a sigmoid cross-entropy that count: label not ignore_index.
template <class T>
bool counted(T label, int ignore_index) { return static_cast<int>(label) != ignore_index; }

template <class T>
T sce_norm(const T* label, int64_t n, const SigmoidCrossEntropyWithLogitsAttrs& a) {
  if (!a.normalize) return T(1);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) k += counted(label[i], a.ignore_index);
  return static_cast<T>(std::max<int64_t>(k, 1));
}

}  // namespace

void sigmoid_cross_entropy_with_logits(const Tensor& x, const Tensor& label, const Tensor* pos_weight, Tensor& out,
                                       const SigmoidCrossEntropyWithLogitsAttrs& attrs) {
  constexpr const char* op = "sigmoid_cross_entropy_with_logits";
  visit_like_x(op, "X", x, {{"Label", &label}, {"pos_weight", pos_weight}}, [&](auto tag) {
    using T = decltype(tag);
    const int64_t n = x.numel();
    const T* l = label.data<T>();
    const T norm = sce_norm(l, n, attrs);
    // Same-index reads before the write: Out may be X.
    const T* xv = x.data<T>();
    const T* pw = pos_weight ? pos_weight->data<T>() : nullptr;
    if (&out != &x) out.resize(x.shape(), x.dtype());
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const T xi = xv[i], li = l[i];
      if (!counted(li, attrs.ignore_index)) {
        o[i] = T(0);
        continue;
      }
      const T w = pw ? pw[i] : T(1);
      o[i] = (std::max(xi, T(0)) - xi * li + w * std::log1p(std::exp(-std::abs(xi)))) / norm;
    }
  });
}

void sigmoid_cross_entropy_with_logits_grad(const Tensor& x, const Tensor& label, const Tensor* pos_weight,
                                            const Tensor& out_grad, Tensor* x_grad,
                                            const SigmoidCrossEntropyWithLogitsAttrs& attrs) {
  constexpr const char* op = "sigmoid_cross_entropy_with_logits_grad";
  if (!x_grad) return;
  visit_like_x(op, "X", x, {{"Label", &label}, {"pos_weight", pos_weight}, {"Out@GRAD", &out_grad}}, [&](auto tag) {
    using T = decltype(tag);
    const int64_t n = x.numel();
    const T* l = label.data<T>();
    const T norm = sce_norm(l, n, attrs);
    const T* xv = x.data<T>();
    const T* pw = pos_weight ? pos_weight->data<T>() : nullptr;
    const T* g = out_grad.data<T>();
    OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &label, pos_weight, &out_grad}));
    buf.get().resize(x.shape(), x.dtype());
    T* dx = buf.get().data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const T xi = xv[i], li = l[i];
      if (!counted(li, attrs.ignore_index)) {
        dx[i] = T(0);
        continue;
      }
      const T w = pw ? pw[i] : T(1);
      // d/dx log(1 + exp(-|x|)) = -sign(x) sigmoid(-|x|); at 0 the sides average to 0.
      const T e = std::exp(-std::abs(xi));
      const T soft = xi > 0 ? -e / (1 + e) : (xi < 0 ? e / (1 + e) : T(0));
      const T step = xi > 0 ? T(1) : (xi < 0 ? T(0) : T(0.5));
      dx[i] = (step - li + w * soft) * g[i] / norm;
    }
    buf.finish();
  });
}

void bce_loss(const Tensor& x, const Tensor& label, Tensor& out) {
  constexpr const char* op = "bce_loss";
  visit_like_x(op, "X", x, {{"Label", &label}}, [&](auto tag) {
    using T = decltype(tag);
    const T* xv = x.data<T>();
    const T* l = label.data<T>();
    if (&out != &x && &out != &label) out.resize(x.shape(), x.dtype());
    T* o = out.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T xi = xv[i], li = l[i];
      if (!(xi >= T(0) && xi <= T(1))) rt::fail(fmt::format("{}: X element {} is {}, outside [0, 1]", op, i, static_cast<double>(xi)));
      o[i] = -(li * std::max(std::log(xi), T(-100)) + (T(1) - li) * std::max(std::log(T(1) - xi), T(-100)));
    }
  });
}

void bce_loss_grad(const Tensor& x, const Tensor& label, const Tensor& out_grad, Tensor* x_grad) {
  constexpr const char* op = "bce_loss_grad";
  if (!x_grad) return;
  visit_like_x(op, "X", x, {{"Label", &label}, {"Out@GRAD", &out_grad}}, [&](auto tag) {
    using T = decltype(tag);
    const T* xv = x.data<T>();
    const T* l = label.data<T>();
    const T* g = out_grad.data<T>();
    OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &label, &out_grad}));
    buf.get().resize(x.shape(), x.dtype());
    T* dx = buf.get().data<T>();
    for (int64_t i = 0; i < x.numel(); ++i)
      dx[i] = g[i] * (xv[i] - l[i]) / std::max((T(1) - xv[i]) * xv[i], T(1e-12));
    buf.finish();
  });
}

void huber_loss(const Tensor& x, const Tensor& y, Tensor& out, Tensor& residual, const HuberLossAttrs& attrs) {
  constexpr const char* op = "huber_loss";
  visit_like_x(op, "X", x, {{"Y", &y}}, [&](auto tag) {
    using T = decltype(tag);
    const T delta = static_cast<T>(attrs.delta);
    OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &y}));
    OutBuf rb(&residual, Slot::kOut1, aliases(&residual, {&x, &y}));
    ob.get().resize(x.shape(), x.dtype());
    rb.get().resize(x.shape(), x.dtype());
    const T* xv = x.data<T>();
    const T* yv = y.data<T>();
    T* o = ob.get().data<T>();
    T* r = rb.get().data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T ri = yv[i] - xv[i], a = std::abs(ri);
      r[i] = ri;
      o[i] = a <= delta ? T(0.5) * ri * ri : delta * (a - T(0.5) * delta);
    }
    ob.finish();
    rb.finish();
  });
}

void huber_loss_grad(const Tensor& residual, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad,
                     const HuberLossAttrs& attrs) {
  constexpr const char* op = "huber_loss_grad";
  visit_like_x(op, "Residual", residual, {{"Out@GRAD", &out_grad}}, [&](auto tag) {
    using T = decltype(tag);
    const T delta = static_cast<T>(attrs.delta);
    Tensor& d = scratch(Slot::kTmp0);
    d.resize(residual.shape(), residual.dtype());
    T* dv = d.data<T>();
    const T* r = residual.data<T>();
    const T* g = out_grad.data<T>();
    for (int64_t i = 0; i < residual.numel(); ++i) {
      const T ri = r[i];
      dv[i] = (std::abs(ri) <= delta ? ri : (ri > 0 ? delta : -delta)) * g[i];
    }
    Tensor* grads[2] = {x_grad, y_grad};
    const T signs[2] = {T(-1), T(1)};  // Residual = Y - X
    for (int k = 0; k < 2; ++k) {
      if (!grads[k]) continue;
      grads[k]->resize(residual.shape(), residual.dtype());
      T* o = grads[k]->template data<T>();
      for (int64_t i = 0; i < residual.numel(); ++i) o[i] = signs[k] * dv[i];
    }
  });
}

namespace {

// Divisor of kldiv_loss's sum, or 0 for reduction none.
int64_t kldiv_divisor(const char* op, const Tensor& x, const std::string& reduction) {
  if (reduction == "none") return 0;
  if (reduction == "sum") return 1;
  if (reduction == "mean") return std::max<int64_t>(x.numel(), 1);
  if (reduction == "batchmean") return x.shape().rank == 0 ? 1 : std::max<int64_t>(x.shape().d[0], 1);
  rt::fail(fmt::format("{}: reduction '{}' is not one of none, mean, batchmean, sum", op, reduction));
}

}  // namespace

void kldiv_loss(const Tensor& x, const Tensor& target, Tensor& loss, const KldivLossAttrs& attrs) {
  constexpr const char* op = "kldiv_loss";
  const int64_t div = kldiv_divisor(op, x, attrs.reduction);
  visit_like_x(op, "X", x, {{"Target", &target}}, [&](auto tag) {
    using T = decltype(tag);
    const T* xv = x.data<T>();
    const T* t = target.data<T>();
    auto term = [&](int64_t i) {
      if (attrs.log_target) return std::exp(t[i]) * (t[i] - xv[i]);
      return t[i] > T(0) ? t[i] * (std::log(t[i]) - xv[i]) : T(0);
    };
    if (div == 0) {
      OutBuf buf(&loss, Slot::kOut0, aliases(&loss, {&x, &target}));
      buf.get().resize(x.shape(), x.dtype());
      T* o = buf.get().data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) o[i] = term(i);
      buf.finish();
      return;
    }
    Acc<T> s = 0;
    for (int64_t i = 0; i < x.numel(); ++i) s += term(i);
    loss.resize(Shape{}, x.dtype());
    loss.data<T>()[0] = static_cast<T>(s / static_cast<Acc<T>>(div));
  });
}

void kldiv_loss_grad(const Tensor& x, const Tensor& target, const Tensor& loss_grad, Tensor* x_grad,
                     const KldivLossAttrs& attrs) {
  constexpr const char* op = "kldiv_loss_grad";
  if (!x_grad) return;
  const int64_t div = kldiv_divisor(op, x, attrs.reduction);
  visit_like_x(op, "X", x, {{"Target", &target}}, [&](auto tag) {
    using T = decltype(tag);
    require_init(op, "Loss@GRAD", loss_grad);
    require_same_dtype(op, "Loss@GRAD", loss_grad, "X", x);
    if (div == 0) require_same_shape(op, "Loss@GRAD", loss_grad, "X", x);
    else if (loss_grad.numel() != 1)
      rt::fail(fmt::format("{}: Loss@GRAD has shape {}; reduction {} needs one element", op, loss_grad.shape().str(), attrs.reduction));
    const T* t = target.data<T>();
    const T* g = loss_grad.data<T>();
    OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &target, &loss_grad}));
    buf.get().resize(x.shape(), x.dtype());
    T* dx = buf.get().data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T gi = div == 0 ? g[i] : g[0] / static_cast<T>(div);
      dx[i] = attrs.log_target ? -std::exp(t[i]) * gi : t[i] > T(0) ? -t[i] * gi : T(0);
    }
    buf.finish();
  });
}

void log_loss(const Tensor& predicted, const Tensor& labels, Tensor& loss, const LogLossAttrs& attrs) {
  constexpr const char* op = "log_loss";
  visit_like_x(op, "Predicted", predicted, {{"Labels", &labels}}, [&](auto tag) {
    using T = decltype(tag);
    const T eps = static_cast<T>(attrs.epsilon);
    const T* p = predicted.data<T>();
    const T* l = labels.data<T>();
    // Same-index reads before the write: Loss may be either input.
    if (&loss != &predicted && &loss != &labels) loss.resize(predicted.shape(), predicted.dtype());
    T* o = loss.data<T>();
    for (int64_t i = 0; i < predicted.numel(); ++i)
      o[i] = -l[i] * std::log(p[i] + eps) - (T(1) - l[i]) * std::log(T(1) - p[i] + eps);
  });
}

void log_loss_grad(const Tensor& predicted, const Tensor& labels, const Tensor& loss_grad, Tensor* predicted_grad,
                   const LogLossAttrs& attrs) {
  constexpr const char* op = "log_loss_grad";
  if (!predicted_grad) return;
  visit_like_x(op, "Predicted", predicted, {{"Labels", &labels}, {"Loss@GRAD", &loss_grad}}, [&](auto tag) {
    using T = decltype(tag);
    const T eps = static_cast<T>(attrs.epsilon);
    const T* p = predicted.data<T>();
    const T* l = labels.data<T>();
    const T* g = loss_grad.data<T>();
    OutBuf buf(predicted_grad, Slot::kOut0, aliases(predicted_grad, {&predicted, &labels, &loss_grad}));
    buf.get().resize(predicted.shape(), predicted.dtype());
    T* dp = buf.get().data<T>();
    for (int64_t i = 0; i < predicted.numel(); ++i)
      dp[i] = g[i] * (-l[i] / (p[i] + eps) + (T(1) - l[i]) / (T(1) - p[i] + eps));
    buf.finish();
  });
}

}  // namespace fluidc::kernels
