// kernels/cpu/index_topk.cc - arg_max/arg_min, top_k_v2 and top_k (+grad), accuracy and one_hot_v2: picking positions by value.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/index_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The view arg_min_max reduces: over everything with flatten (or a 0-D X).
AxisView reduced_view(const char* op, const Tensor& x, const ArgMinMaxAttrs& a) {
  if (a.flatten || x.rank() == 0) {
    AxisView v;
    v.mid = x.numel();
    return v;
  }
  return axis_view(x.shape(), canonical_axis(op, "axis", static_cast<int>(a.axis), x.rank()));
}

template <bool kMax>
void arg_min_max(const char* op, const Tensor& x, Tensor& out, const ArgMinMaxAttrs& a) {
  require_init(op, "X", x);
  if (x.numel() == 0) rt::fail(fmt::format("{}: X {} has no elements", op, x.shape().str()));
  Shape s;
  require_rule(op, shapes::arg_min_max_shape(x.shape(), a, s));
  const DType dt = a.dtype == 2 ? DType::kInt32 : DType::kInt64;
  if (a.dtype != 2 && a.dtype != 3 && a.dtype != -1)
    rt::fail(fmt::format("{}: dtype {} is not int32 (2) or int64 (3)", op, a.dtype));
  const AxisView v = reduced_view(op, x, a);
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  buf.get().resize(s, dt);
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    auto run = [&](auto itag) {
      using I = decltype(itag);
      I* od = buf.get().data<I>();
      // Rows of `inner` stay contiguous: the running best index per column,
      // compared against the value it points at. Ties keep the first.
      for (int64_t o = 0; o < v.outer; ++o) {
        const T* base = xd + o * v.mid * v.inner;
        I* best = od + o * v.inner;
        std::fill(best, best + v.inner, I(0));
        for (int64_t m = 1; m < v.mid; ++m) {
          const T* row = base + m * v.inner;
          for (int64_t j = 0; j < v.inner; ++j) {
            const T cur = base[best[j] * v.inner + j];
            if (kMax ? row[j] > cur : row[j] < cur) best[j] = static_cast<I>(m);
          }
        }
      }
    };
    dt == DType::kInt32 ? run(int32_t{}) : run(int64_t{});
  });
  buf.finish();
}

// One line of top_k: value and where it was.
template <class T>
struct Entry {
  T value;
  int64_t index;
};

int64_t k_of(const char* op, const Tensor* k, const TopKV2Attrs& a) { return k ? int_at(op, "K", *k, 0) : a.k; }

}  // namespace

void arg_max(const Tensor& x, Tensor& out, const ArgMinMaxAttrs& a) { arg_min_max<true>("arg_max", x, out, a); }
void arg_min(const Tensor& x, Tensor& out, const ArgMinMaxAttrs& a) { arg_min_max<false>("arg_min", x, out, a); }

void top_k_v2(const Tensor& x, const Tensor* k_tensor, Tensor& out, Tensor& indices, const TopKV2Attrs& a) {
  require_init("top_k_v2", "X", x);
  const int64_t k = k_of("top_k_v2", k_tensor, a);
  Shape s;
  require_rule("top_k_v2", shapes::top_k_v2_shape(x.shape(), k, a.axis, s));
  const AxisView v = x.rank() ? axis_view(x.shape(), canonical_axis("top_k_v2", "axis", a.axis, x.rank())) : AxisView{};
  if (k < 1 || k > v.mid) rt::fail(fmt::format("top_k_v2: k = {} is out of range for {} values", k, v.mid));
  OutBuf ob(&out, Slot::kOut0, &out == &x);
  OutBuf ib(&indices, Slot::kOut1, &indices == &x);
  ob.get().resize(s, x.dtype());
  ib.get().resize(s, DType::kInt64);
  visit_numeric("top_k_v2", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using E = Entry<T>;
    Tensor& tmp = scratch(Slot::kTmp0);
    tmp.resize(Shape{static_cast<int64_t>(v.mid * sizeof(E))}, DType::kUInt8);
    E* line = reinterpret_cast<E*>(tmp.raw());
    const T* xd = x.data<T>();
    T* od = ob.get().data<T>();
    int64_t* id = ib.get().data<int64_t>();
    // Ties go to the lower index; NaN counts as the largest value, as in Paddle.
    auto before = [&](const E& l, const E& r) {
      const bool ln = std::isnan(static_cast<double>(l.value)), rn = std::isnan(static_cast<double>(r.value));
      if (ln || rn) {
        if (ln && rn) return l.index < r.index;
        return a.largest ? ln : rn;
      }
      if (l.value != r.value) return a.largest ? l.value > r.value : l.value < r.value;
      return l.index < r.index;
    };
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t j = 0; j < v.inner; ++j) {
        const T* src = xd + o * v.mid * v.inner + j;
        for (int64_t m = 0; m < v.mid; ++m) line[m] = {src[m * v.inner], m};
        std::partial_sort(line, line + k, line + v.mid, before);
        for (int64_t t = 0; t < k; ++t) {
          const int64_t at = (o * k + t) * v.inner + j;
          od[at] = line[t].value;
          id[at] = line[t].index;
        }
      }
  });
  ob.finish();
  ib.finish();
}

void top_k_v2_grad(const Tensor& x, const Tensor& indices, const Tensor* k_tensor, const Tensor& out_grad,
                   Tensor* x_grad, const TopKV2Attrs& a) {
  if (!x_grad) return;
  require_init("top_k_v2_grad", "Out@GRAD", out_grad);
  require_same_shape("top_k_v2_grad", "Indices", indices, "Out@GRAD", out_grad);
  (void)k_tensor;  // Indices' shape gives k
  const AxisView v = x.rank() ? axis_view(x.shape(), canonical_axis("top_k_v2_grad", "axis", a.axis, x.rank()))
                              : AxisView{};
  const int64_t k = x.rank() ? indices.dim(canonical_axis("top_k_v2_grad", "axis", a.axis, x.rank())) : 1;
  if (indices.numel() != v.outer * k * v.inner)
    rt::fail(fmt::format("top_k_v2_grad: Indices {} does not fit X {}", indices.shape().str(), x.shape().str()));
  const int64_t* idx = checked_indices("top_k_v2_grad", "Indices", indices, v.mid);
  OutBuf buf(x_grad, Slot::kOut0, x_grad == &out_grad);
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float("top_k_v2_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* gd = g.data<T>();
    const T* dy = out_grad.data<T>();
    std::fill(gd, gd + g.numel(), T(0));
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t t = 0; t < k; ++t)
        for (int64_t j = 0; j < v.inner; ++j) {
          const int64_t at = (o * k + t) * v.inner + j;
          gd[(o * v.mid + idx[at]) * v.inner + j] += dy[at];
        }
  });
  buf.finish();
}

void accuracy(const Tensor& out, const Tensor& indices, const Tensor& label, Tensor& accuracy, Tensor& correct,
              Tensor& total) {
  require_init("accuracy", "Out", out);
  require_init("accuracy", "Indices", indices);
  require_init("accuracy", "Label", label);
  if (indices.rank() != 2) rt::fail(fmt::format("accuracy: Indices must be 2-D, got {}", indices.shape().str()));
  const int64_t n = indices.dim(0), k = indices.dim(1);
  if (label.numel() != n)
    rt::fail(fmt::format("accuracy: Label {} does not have one value per row of Indices {}", label.shape().str(),
                         indices.shape().str()));
  int64_t hits = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t want = int_at("accuracy", "Label", label, i);
    for (int64_t j = 0; j < k; ++j)
      if (int_at("accuracy", "Indices", indices, i * k + j) == want) {
        ++hits;
        break;
      }
  }
  accuracy.resize(Shape{}, DType::kFP32);
  correct.resize(Shape{}, DType::kInt32);
  total.resize(Shape{}, DType::kInt32);
  accuracy.data<float>()[0] = n ? static_cast<float>(hits) / static_cast<float>(n) : 0.0f;
  correct.data<int32_t>()[0] = static_cast<int32_t>(hits);
  total.data<int32_t>()[0] = static_cast<int32_t>(n);
}

void one_hot_v2(const Tensor& x, const Tensor* depth_tensor, Tensor& out, const OneHotV2Attrs& a) {
  require_init("one_hot_v2", "X", x);
  const int64_t depth = depth_tensor ? int_at("one_hot_v2", "depth_tensor", *depth_tensor, 0) : a.depth;
  if (depth < 1) rt::fail(fmt::format("one_hot_v2: depth must be positive, got {}", depth));
  if (!rt::dtype_is_valid(a.dtype)) rt::fail(fmt::format("one_hot_v2: dtype {} is not a tensor dtype", a.dtype));
  Shape s;
  require_rule("one_hot_v2", shapes::one_hot_v2_shape(x.shape(), depth, s));
  const int64_t n = x.numel();
  // Out-of-range ids are a zero row when allowed; checked_indices fails on them otherwise.
  const int64_t* idx = a.allow_out_of_range ? nullptr : checked_indices("one_hot_v2", "X", x, depth);
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  Tensor& o = buf.get();
  o.resize(s, static_cast<DType>(a.dtype));
  o.zero();
  visit_all("one_hot_v2", "Out", o.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* od = o.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = idx ? idx[i] : int_at("one_hot_v2", "X", x, i);
      if (id >= 0 && id < depth) od[i * depth + id] = T(1);
    }
  });
  buf.finish();
}

// Fluid 1.x's top_k is top_k_v2 with its defaults (TopKV2Attrs: the last
// axis, largest first, sorted); errors name top_k_v2's checks.
void top_k(const Tensor& x, const Tensor* k, Tensor& out, Tensor& indices, const TopKV2Attrs& a) {
  top_k_v2(x, k, out, indices, a);
}

void top_k_grad(const Tensor& x, const Tensor& indices, const Tensor* k, const Tensor& out_grad, Tensor* x_grad,
                const TopKV2Attrs& a) {
  top_k_v2_grad(x, indices, k, out_grad, x_grad, a);
}

}  // namespace fluidc::kernels
