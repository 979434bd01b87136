// kernels/cpu/loss.cc - cross-entropy losses over a class axis, hard or soft labels, and their gradients.
#include "kernels/loss.h"

#include <cmath>
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/loss.h"
#include "kernels/cpu/softmax_impl.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// log(0) = -inf would poison every later sum; Paddle clamps infinities to
/// +-1e20 ("TolerableValue") and we keep its numbers.
template <class T> T tolerable(T v) {
  const T kBig = static_cast<T>(1e20);
  if (v == std::numeric_limits<T>::infinity()) return kBig;
  if (v == -std::numeric_limits<T>::infinity()) return -kBig;
  return v;
}

/// Reads hard label i as int64 whatever its integer dtype.
struct Labels {
  const int32_t* i32 = nullptr;
  const int64_t* i64 = nullptr;
  int64_t operator[](int64_t i) const { return i64 ? i64[i] : static_cast<int64_t>(i32[i]); }
};

Labels hard_labels(const char* op, const Tensor& label) {
  Labels l;
  if (label.dtype() == DType::kInt64) {
    l.i64 = label.data<int64_t>();
  } else if (label.dtype() == DType::kInt32) {
    l.i32 = label.data<int32_t>();
  } else {
    rt::fail(fmt::format("{}: hard Label must be int64 or int32, got {}", op, rt::dtype_name(label.dtype())));
  }
  return l;
}

/// The class id of a row, checked: an id outside [0, C) would index out of
/// bounds, so it is an error unless it is the ignore_index.
int64_t checked_label(const char* op, int64_t lbl, int64_t classes, int ignore_index) {
  if (lbl != ignore_index && (lbl < 0 || lbl >= classes))
    rt::fail(fmt::format("{}: label {} is out of range [0, {}) (ignore_index {})", op, lbl, classes,
                         ignore_index));
  return lbl;
}

/// Shape checks shared by the forward and backward softmax_with_cross_entropy.
void check_label(const char* op, const Shape& logits, const Tensor& label, int axis, bool soft,
                 DType dtype) {
  if (soft) {
    if (label.shape() != logits)
      rt::fail(fmt::format("{}: soft Label has shape {} but Logits has shape {}", op, label.shape().str(),
                           logits.str()));
    if (label.dtype() != dtype)
      rt::fail(fmt::format("{}: soft Label is {} but Logits is {}", op, rt::dtype_name(label.dtype()),
                           rt::dtype_name(dtype)));
    return;
  }
  bool ok = label.rank() == logits.rank;
  for (int i = 0; ok && i < logits.rank; ++i) ok = label.dim(i) == (i == axis ? 1 : logits.d[i]);
  if (!ok)
    rt::fail(fmt::format("{}: hard Label has shape {} but must equal Logits' shape {} with dim {} set to 1",
                         op, label.shape().str(), logits.str(), axis));
}

Shape with_dim(Shape s, int axis, int64_t v) {
  s.d[axis] = v;
  return s;
}

}  // namespace

void softmax_with_cross_entropy(const Tensor& logits, const Tensor& label, Tensor& softmax, Tensor& loss,
                                const SoftmaxWithCrossEntropyAttrs& attrs) {
  const char* op = "softmax_with_cross_entropy";
  require_init(op, "Logits", logits);
  require_init(op, "Label", label);
  int axis = 0;
  Shape loss_shape;
  require_rule(op, shapes::softmax_xent_shape(logits.shape(), attrs, axis, loss_shape));
  if (&softmax == &loss) rt::fail(fmt::format("{}: Softmax and Loss are the same tensor", op));
  const AxisSplit sp = split_at_axis(op, logits.shape(), attrs.axis);
  check_label(op, logits.shape(), label, axis, attrs.soft_label, logits.dtype());
  // Softmax over Logits in place is fine (softmax_rows reads a line before
  // writing it); every other aliasing goes through scratch.
  OutBuf sbuf(&softmax, Slot::kOut0, aliases(&softmax, {&label}));
  OutBuf lbuf(&loss, Slot::kOut1, aliases(&loss, {&logits, &label, &softmax}));
  Tensor& sm = sbuf.get();
  Tensor& ls = lbuf.get();
  visit_float(op, "Logits", logits.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (attrs.use_softmax) {
      sm.resize(logits.shape(), logits.dtype());
      softmax_rows<T>(logits.data<T>(), sm.data<T>(), sp);
    } else {
      sm.copy_from(logits);  // Logits already holds probabilities
    }
    ls.resize(loss_shape, logits.dtype());
    const T* p = sm.data<T>();
    T* out = ls.data<T>();
    if (attrs.soft_label) {
      const T* lb = label.data<T>();
      for (int64_t o = 0; o < sp.outer; ++o)
        for (int64_t in = 0; in < sp.inner; ++in) {
          Acc<T> s = 0;
          for (int64_t j = 0; j < sp.n; ++j) {
            const int64_t k = (o * sp.n + j) * sp.inner + in;
            s += static_cast<Acc<T>>(lb[k] * tolerable(std::log(p[k])));
          }
          out[o * sp.inner + in] = static_cast<T>(-s);
        }
    } else {
      const Labels lb = hard_labels(op, label);
      for (int64_t o = 0; o < sp.outer; ++o)
        for (int64_t in = 0; in < sp.inner; ++in) {
          const int64_t r = o * sp.inner + in;
          const int64_t c = checked_label(op, lb[r], sp.n, attrs.ignore_index);
          out[r] = c == attrs.ignore_index ? T(0) : -tolerable(std::log(p[(o * sp.n + c) * sp.inner + in]));
        }
    }
  });
  sbuf.finish();
  lbuf.finish();
}

void softmax_with_cross_entropy_grad(const Tensor& label, const Tensor& softmax, const Tensor& loss_grad,
                                     Tensor* logits_grad, const SoftmaxWithCrossEntropyAttrs& attrs) {
  const char* op = "softmax_with_cross_entropy_grad";
  if (!logits_grad) return;
  require_init(op, "Label", label);
  require_init(op, "Softmax", softmax);
  require_init(op, "Loss@GRAD", loss_grad);
  require_same_dtype(op, "Softmax", softmax, "Loss@GRAD", loss_grad);
  int axis = 0;
  Shape loss_shape;
  require_rule(op, shapes::softmax_xent_shape(softmax.shape(), attrs, axis, loss_shape));
  const AxisSplit sp = split_at_axis(op, softmax.shape(), attrs.axis);
  check_label(op, softmax.shape(), label, axis, attrs.soft_label, softmax.dtype());
  if (loss_grad.shape() != loss_shape)
    rt::fail(fmt::format("{}: Loss@GRAD has shape {} but Softmax {} implies {}", op, loss_grad.shape().str(),
                         softmax.shape().str(), loss_shape.str()));
  // Paddle writes Logits@GRAD over Softmax; element k of the result reads
  // only element k of Softmax, so that aliasing needs no copy.
  OutBuf buf(logits_grad, Slot::kOut0, aliases(logits_grad, {&label, &loss_grad}));
  Tensor& dl = buf.get();
  dl.resize(softmax.shape(), softmax.dtype());
  visit_float(op, "Softmax", softmax.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = softmax.data<T>();
    const T* g = loss_grad.data<T>();
    T* d = dl.data<T>();
    Labels lb;
    if (!attrs.soft_label) lb = hard_labels(op, label);
    for (int64_t o = 0; o < sp.outer; ++o)
      for (int64_t in = 0; in < sp.inner; ++in) {
        const int64_t r = o * sp.inner + in;
        const T gr = g[r];
        if (attrs.soft_label) {
          const T* lb = label.data<T>();
          for (int64_t j = 0; j < sp.n; ++j) {
            const int64_t k = (o * sp.n + j) * sp.inner + in;
            d[k] = attrs.use_softmax ? gr * (p[k] - lb[k]) : gr * (-lb[k] / p[k]);
          }
          continue;
        }
        const int64_t c = checked_label(op, lb[r], sp.n, attrs.ignore_index);
        const bool ignored = c == attrs.ignore_index;
        for (int64_t j = 0; j < sp.n; ++j) {
          const int64_t k = (o * sp.n + j) * sp.inner + in;
          if (ignored) {
            d[k] = T(0);
          } else if (attrs.use_softmax) {
            d[k] = j == c ? p[k] * gr - gr : p[k] * gr;
          } else {
            d[k] = j == c ? (T(-1) / p[k]) * gr : T(0);
          }
        }
      }
  });
  buf.finish();
}

void cross_entropy2(const Tensor& x, const Tensor& label, Tensor& y, Tensor& x_shape, Tensor& match_x,
                    const CrossEntropy2Attrs& attrs) {
  const char* op = "cross_entropy2";
  require_init(op, "X", x);
  require_init(op, "Label", label);
  const Shape xs = x.shape();  // kept: XShape may be X itself
  const DType xdt = x.dtype();
  Shape ys, xshape;
  require_rule(op, shapes::cross_entropy2_shape(xs, ys, xshape));
  const int last = xs.rank - 1;
  if (label.shape() != ys)
    rt::fail(fmt::format("{}: Label has shape {} but X {} requires {}", op, label.shape().str(), xs.str(),
                         ys.str()));
  if (&y == &match_x) rt::fail(fmt::format("{}: Y and MatchX are the same tensor", op));
  const int64_t D = xs.d[last];
  const int64_t rows = ys.numel();
  OutBuf ybuf(&y, Slot::kOut0, aliases(&y, {&x, &label}));
  OutBuf mbuf(&match_x, Slot::kOut1, aliases(&match_x, {&x, &label}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ybuf.get().resize(ys, x.dtype());
    mbuf.get().resize(ys, x.dtype());
    const T* px = x.data<T>();
    T* py = ybuf.get().data<T>();
    T* pm = mbuf.get().data<T>();
    const Labels lb = hard_labels(op, label);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t c = checked_label(op, lb[i], D, attrs.ignore_index);
      if (c == attrs.ignore_index) {
        py[i] = T(0);
        pm[i] = T(0);
      } else {
        const T m = px[i * D + c];
        py[i] = -tolerable(std::log(m));
        pm[i] = m;
      }
    }
  });
  ybuf.finish();
  mbuf.finish();
  // XShape last: nothing reads X after this point.
  x_shape.resize(xshape, xdt);
}

void cross_entropy_grad2(const Tensor& label, const Tensor& match_x, const Tensor& x_shape,
                         const Tensor& y_grad, Tensor* x_grad, const CrossEntropy2Attrs& attrs) {
  const char* op = "cross_entropy_grad2";
  if (!x_grad) return;
  require_init(op, "Label", label);
  require_init(op, "MatchX", match_x);
  require_init(op, "XShape", x_shape);
  require_init(op, "Y@GRAD", y_grad);
  require_same_dtype(op, "MatchX", match_x, "Y@GRAD", y_grad);
  Shape xs;
  require_rule(op, shapes::x_from_cross_entropy2_xshape(x_shape.shape(), xs));
  const int last = xs.rank - 1;
  const Shape ys = with_dim(xs, last, 1);
  if (label.shape() != ys || match_x.shape() != ys || y_grad.shape() != ys)
    rt::fail(fmt::format("{}: Label {}, MatchX {} and Y@GRAD {} must all have shape {} (X {})", op,
                         label.shape().str(), match_x.shape().str(), y_grad.shape().str(), ys.str(),
                         xs.str()));
  const int64_t D = xs.d[last];
  const int64_t rows = ys.numel();
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&label, &match_x, &x_shape, &y_grad}));
  Tensor& dx = buf.get();
  dx.resize(xs, y_grad.dtype());
  visit_float(op, "Y@GRAD", y_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pm = match_x.data<T>();
    const T* pg = y_grad.data<T>();
    T* pd = dx.data<T>();
    const Labels lb = hard_labels(op, label);
    dx.zero();
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t c = checked_label(op, lb[i], D, attrs.ignore_index);
      if (c != attrs.ignore_index) pd[i * D + c] = -pg[i] / pm[i];
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
