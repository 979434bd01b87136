// kernels/cpu/kthvalue.cc - kthvalue (the k-th smallest along an axis) and mode (the most frequent), with their positions and gradients.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/index_util.h"
#include "kernels/index_misc.h"
#include "kernels/shapes/index_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The lines along the axis (a 0-D X: one line of one value).
AxisView kth_lines(const char* op, const Shape& xs, const KthvalueAttrs& at, Shape& out) {
  int a = 0;
  require_rule(op, shapes::kthvalue_shape(xs, at, a, out));
  return xs.rank == 0 ? AxisView{} : axis_view(xs, a);
}

// Strictly before: NaN after every number, equal values by position.
template <class T>
bool before(T l, int64_t li, T r, int64_t ri) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool ln = std::isnan(l), rn = std::isnan(r);
    if (ln != rn) return rn;
    if (ln) return li < ri;
  }
  return l < r || (l == r && li < ri);
}

}  // namespace

namespace {

/// Out and Indices of an op that picks one position per line along the
/// axis: pick(base, stride, line, mid) gets the line's values (base[m *
/// stride] for m < mid) and its positions 0..mid-1 in `line` to reorder as it
/// needs, and returns the position it picks (kthvalue, mode).
template <class Pick>
void pick_per_line(const char* op, const Tensor& x, Tensor& out, Tensor& indices, const KthvalueAttrs& attrs,
                   Pick pick) {
  require_init(op, "X", x);
  Shape os;
  const AxisView v = kth_lines(op, x.shape(), attrs, os);
  if (&out == &indices) rt::fail(fmt::format("{}: Out and Indices are the same variable", op));
  OutBuf bo(&out, Slot::kOut0, &out == &x);
  OutBuf bi(&indices, Slot::kOut1, &indices == &x);
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    bo.get().resize(os, x.dtype());
    bi.get().resize(os, DType::kInt64);
    const T* px = x.data<T>();
    T* po = bo.get().data<T>();
    int64_t* pi = bi.get().data<int64_t>();
    // The positions of one line (a scratch slot, grow-only: no thread_local,
    // which the JIT's runtime would need twice).
    Tensor& order = scratch(Slot::kTmp0);
    order.resize(Shape{v.mid}, DType::kInt64);
    int64_t* line = order.data<int64_t>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t j = 0; j < v.inner; ++j) {
        const T* base = px + o * v.mid * v.inner + j;
        for (int64_t m = 0; m < v.mid; ++m) line[m] = m;
        const int64_t at = pick(base, v.inner, line, v.mid);
        po[o * v.inner + j] = base[at * v.inner];
        pi[o * v.inner + j] = at;
      }
  });
  bo.finish();
  bi.finish();
}

}  // namespace

void kthvalue(const Tensor& x, Tensor& out, Tensor& indices, const KthvalueAttrs& attrs) {
  pick_per_line("kthvalue", x, out, indices, attrs, [&](const auto* base, int64_t stride, int64_t* line, int64_t mid) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(base)>>;
    std::nth_element(line, line + (attrs.k - 1), line + mid, [&](int64_t a, int64_t b) {
      return before<T>(base[a * stride], a, base[b * stride], b);
    });
    return line[attrs.k - 1];
  });
}

namespace {

/// X@GRAD of an op that picked one position per line: Out@GRAD placed at
/// Indices, zeros elsewhere (kthvalue_grad and mode_grad).
void place_at_indices(const char* op, const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                      const KthvalueAttrs& attrs) {
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  Shape os;
  const AxisView v = kth_lines(op, x.shape(), attrs, os);
  if (out_grad.numel() != os.numel() || indices.numel() != os.numel())
    rt::fail(fmt::format("{}: Out@GRAD {} / Indices {} do not match X {} reduced to {}", op,
                         out_grad.shape().str(), indices.shape().str(), x.shape().str(), os.str()));
  const int64_t* idx = checked_indices(op, "Indices", indices, v.mid);
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out_grad, &indices}));
  Tensor& g = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    g.resize(x.shape(), x.dtype());
    g.zero();
    const T* pg = out_grad.data<T>();
    T* pd = g.data<T>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t j = 0; j < v.inner; ++j) {
        const int64_t r = o * v.inner + j;
        pd[(o * v.mid + idx[r]) * v.inner + j] = pg[r];
      }
  });
  buf.finish();
}

/// Equal for mode's runs: NaNs are one value.
template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return a == b;
}

/// Mode's shape rule is kthvalue's for k = 1.
KthvalueAttrs as_kth(const ModeAttrs& a) { return KthvalueAttrs{1, a.axis, a.keepdim}; }

}  // namespace

void kthvalue_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                   const KthvalueAttrs& attrs) {
  place_at_indices("kthvalue_grad", x, indices, out_grad, x_grad, attrs);
}

void mode(const Tensor& x, Tensor& out, Tensor& indices, const ModeAttrs& attrs) {
  pick_per_line("mode", x, out, indices, as_kth(attrs), [](const auto* base, int64_t stride, int64_t* line, int64_t mid) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(base)>>;
    std::sort(line, line + mid, [&](int64_t a, int64_t b) { return before<T>(base[a * stride], a, base[b * stride], b); });
    // Runs of equal values in ascending order: the first longest wins (the
    // smallest value), at its run's last (highest) position.
    int64_t best_len = 0, best_last = 0;
    for (int64_t s = 0; s < mid;) {
      int64_t e = s + 1;
      while (e < mid && same<T>(base[line[e] * stride], base[line[s] * stride])) ++e;
      if (e - s > best_len) best_len = e - s, best_last = line[e - 1];
      s = e;
    }
    return best_last;
  });
}

void mode_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
               const ModeAttrs& attrs) {
  place_at_indices("mode_grad", x, indices, out_grad, x_grad, as_kth(attrs));
}

}  // namespace fluidc::kernels
