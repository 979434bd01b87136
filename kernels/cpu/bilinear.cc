// kernels/cpu/bilinear.cc - bilinear_tensor_product and its gradient.
#include <vector>

#include "kernels/bilinear.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/bilinear.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

struct Dims {
  int64_t B, M, N, K;
};

Dims check(const char* op, const Tensor& x, const Tensor& y, const Tensor& w, const Tensor* bias, Shape& os) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_init(op, "Weight", w);
  require_same_dtype(op, "X", x, "Y", y);
  require_same_dtype(op, "X", x, "Weight", w);
  if (bias) {
    require_init(op, "Bias", *bias);
    require_same_dtype(op, "X", x, "Bias", *bias);
  }
  require_rule(op, shapes::bilinear_tensor_product_shape(x.shape(), y.shape(), w.shape(),
                                                         bias ? &bias->shape() : nullptr, os));
  return {x.dim(0), x.dim(1), y.dim(1), w.dim(0)};
}

}  // namespace

void bilinear_tensor_product(const Tensor& x, const Tensor& y, const Tensor& weight, const Tensor* bias, Tensor& out) {
  constexpr const char* op = "bilinear_tensor_product";
  Shape os;
  const Dims d = check(op, x, y, weight, bias, os);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &y, &weight, bias}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    const T* wp = weight.data<T>();
    T* op_ = ob.get().data<T>();
    for (int64_t b = 0; b < d.B; ++b)
      for (int64_t k = 0; k < d.K; ++k) {
        T acc = bias ? bias->data<T>()[k] : T(0);
        for (int64_t m = 0; m < d.M; ++m) {
          const T* wr = wp + (k * d.M + m) * d.N;
          T t = T(0);
          for (int64_t n = 0; n < d.N; ++n) t += wr[n] * yp[b * d.N + n];
          acc += xp[b * d.M + m] * t;
        }
        op_[b * d.K + k] = acc;
      }
  });
  ob.finish();
}

void bilinear_tensor_product_grad(const Tensor& x, const Tensor& y, const Tensor& weight, const Tensor& out_grad,
                                  Tensor* x_grad, Tensor* y_grad, Tensor* weight_grad, Tensor* bias_grad) {
  constexpr const char* op = "bilinear_tensor_product_grad";
  Shape os;
  const Dims d = check(op, x, y, weight, nullptr, os);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD is {} but Out is {}", op, out_grad.shape().str(), os.str()));
  const std::initializer_list<const Tensor*> ins = {&x, &y, &weight, &out_grad};
  // Four outputs, three kOut slots: Bias@GRAD takes a free temporary slot.
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, ins));
  OutBuf yb(y_grad, Slot::kOut1, aliases(y_grad, ins));
  OutBuf wb(weight_grad, Slot::kOut2, aliases(weight_grad, ins));
  OutBuf bb(bias_grad, Slot::kTmp0, aliases(bias_grad, ins));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    const T* wp = weight.data<T>();
    const T* gp = out_grad.data<T>();
    auto zeroed = [&](OutBuf& b, const Shape& s) -> T* {
      if (!b.wanted()) return nullptr;
      b.get().resize(s, x.dtype());
      b.get().zero();
      return b.get().data<T>();
    };
    T* dx = zeroed(xb, x.shape());
    T* dy = zeroed(yb, y.shape());
    T* dw = zeroed(wb, weight.shape());
    T* db = zeroed(bb, Shape{1, d.K});
    for (int64_t b = 0; b < d.B; ++b)
      for (int64_t k = 0; k < d.K; ++k) {
        const T g = gp[b * d.K + k];
        if (db) db[k] += g;
        for (int64_t m = 0; m < d.M; ++m) {
          const T* wr = wp + (k * d.M + m) * d.N;
          const T gx = g * xp[b * d.M + m];
          T t = T(0);
          for (int64_t n = 0; n < d.N; ++n) {
            t += wr[n] * yp[b * d.N + n];
            if (dy) dy[b * d.N + n] += gx * wr[n];
            if (dw) dw[(k * d.M + m) * d.N + n] += gx * yp[b * d.N + n];
          }
          if (dx) dx[b * d.M + m] += g * t;
        }
      }
  });
  xb.finish();
  yb.finish();
  wb.finish();
  bb.finish();
}

}  // namespace fluidc::kernels
