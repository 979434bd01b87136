// kernels/cpu/repeat_put.cc - repeat_interleave and put_along_axis with their gradients.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/cpu/index_util.h"
#include "kernels/repeat_put.h"
#include "kernels/shapes/repeat_put.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// X as [outer, n, inner] around `dim`, the count of each of the n slices,
// and Out's dim (their sum).
struct Repeats {
  int64_t outer = 1, n = 1, inner = 1, total = 0;
  std::vector<int64_t> count;

  Repeats(const char* op, const Tensor& x, const Tensor* repeats, const RepeatInterleaveAttrs& a, Shape& out) {
    require_init(op, "X", x);
    Shape rs;
    if (repeats) {
      require_init(op, "RepeatsTensor", *repeats);
      rs = repeats->shape();
    }
    int axis = 0;
    require_rule(op, shapes::repeat_interleave_shape(x.shape(), repeats ? &rs : nullptr, a, axis, out));
    outer = prod(out, 0, axis), n = x.shape().rank == 0 ? 1 : x.shape().d[axis], inner = prod(out, axis + 1, out.rank);
    count.assign(static_cast<size_t>(n), a.Repeats);
    if (repeats) {
      // Counts are program data: a negative one is an error, not a huge allocation.
      const int64_t* c = checked_indices(op, "RepeatsTensor", *repeats, INT64_MAX);
      count.assign(c, c + n);
    }
    total = std::accumulate(count.begin(), count.end(), int64_t{0});
    out.d[axis] = total;
  }
};

// Index position p's target element in Input, in row-major order of Index.
std::vector<int64_t> put_targets(const char* op, const Tensor& input, const Tensor& index, const Tensor& value,
                                 const PutAlongAxisAttrs& a) {
  require_init(op, "Input", input);
  require_init(op, "Value", value);
  require_same_dtype(op, "Value", value, "Input", input);
  int axis = 0;
  const Shape& is = input.shape();
  const Shape& xs = index.shape();
  require_init(op, "Index", index);
  require_rule(op, shapes::put_along_axis_check(is, xs, value.shape(), a, axis));
  const int64_t* ids = checked_indices(op, "Index", index, is.d[axis]);
  int64_t stride[Shape::kMaxRank];
  int64_t s = 1;
  for (int d = is.rank - 1; d >= 0; --d) stride[d] = s, s *= is.d[d];
  std::vector<int64_t> tgt(static_cast<size_t>(index.numel()));
  int64_t idx[Shape::kMaxRank] = {};
  for (size_t p = 0; p < tgt.size(); ++p) {
    int64_t t = 0;
    for (int d = 0; d < xs.rank; ++d) t += (d == axis ? ids[p] : idx[d]) * stride[d];
    tgt[p] = t;
    for (int d = xs.rank - 1; d >= 0; --d) {
      if (++idx[d] < xs.d[d]) break;
      idx[d] = 0;
    }
  }
  return tgt;
}

bool is_mul(const PutAlongAxisAttrs& a) { return a.Reduce == "mul" || a.Reduce == "multiply"; }

}  // namespace

void repeat_interleave(const Tensor& x, const Tensor* repeats, Tensor& out, const RepeatInterleaveAttrs& attrs) {
  constexpr const char* op = "repeat_interleave";
  Shape os;
  const Repeats r(op, x, repeats, attrs, os);
  if (&out == &x) rt::fail("repeat_interleave: Out must not be X");
  const size_t es = rt::dtype_size(x.dtype());
  visit_numeric(op, "X", x.dtype(), [](auto) {});
  out.resize(os, x.dtype());
  const char* src = x.data<char>();
  char* dst = out.data<char>();
  const size_t row = static_cast<size_t>(r.inner) * es;
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t j = 0; j < r.n; ++j)
      for (int64_t c = 0; c < r.count[static_cast<size_t>(j)]; ++c, dst += row)
        std::memcpy(dst, src + (o * r.n + j) * row, row);
}

void repeat_interleave_grad(const Tensor& x, const Tensor* repeats, const Tensor& out_grad, Tensor* x_grad,
                            const RepeatInterleaveAttrs& attrs) {
  constexpr const char* op = "repeat_interleave_grad";
  if (!x_grad) return;
  Shape os;
  const Repeats r(op, x, repeats, attrs, os);
  require_init(op, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {}, expected {}", op, out_grad.shape().str(), os.str()));
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<Acc<T>> acc(static_cast<size_t>(x.numel()), 0);
    const T* g = out_grad.data<T>();
    for (int64_t o = 0; o < r.outer; ++o)
      for (int64_t j = 0; j < r.n; ++j)
        for (int64_t c = 0; c < r.count[static_cast<size_t>(j)]; ++c, g += r.inner)
          for (int64_t k = 0; k < r.inner; ++k) acc[static_cast<size_t>((o * r.n + j) * r.inner + k)] += g[k];
    x_grad->resize(x.shape(), out_grad.dtype());
    T* dx = x_grad->data<T>();
    for (size_t i = 0; i < acc.size(); ++i) dx[i] = static_cast<T>(acc[i]);
  });
}

void put_along_axis(const Tensor& input, const Tensor& index, const Tensor& value, Tensor& result,
                    const PutAlongAxisAttrs& attrs) {
  constexpr const char* op = "put_along_axis";
  const std::vector<int64_t> tgt = put_targets(op, input, index, value, attrs);
  OutBuf buf(&result, Slot::kOut0, aliases(&result, {&index, &value}));
  visit_numeric(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& r = buf.get();
    if (&r != &input) r.copy_from(input);
    T* o = r.data<T>();
    const T* v = value.data<T>();
    const bool mul = is_mul(attrs);
    if (!attrs.Include_self && attrs.Reduce != "assign")
      for (int64_t t : tgt) o[t] = mul ? T(1) : T(0);
    for (size_t p = 0; p < tgt.size(); ++p) {
      if (attrs.Reduce == "assign") o[tgt[p]] = v[p];
      else if (mul) o[tgt[p]] *= v[p];
      else o[tgt[p]] += v[p];
    }
  });
  buf.finish();
}

void put_along_axis_grad(const Tensor& input, const Tensor& index, const Tensor& value, const Tensor& result,
                         const Tensor& result_grad, Tensor* input_grad, Tensor* value_grad,
                         const PutAlongAxisAttrs& attrs) {
  constexpr const char* op = "put_along_axis_grad";
  const std::vector<int64_t> tgt = put_targets(op, input, index, value, attrs);
  require_init(op, "Result@GRAD", result_grad);
  require_same_shape(op, "Result@GRAD", result_grad, "Input", input);
  require_same_dtype(op, "Result@GRAD", result_grad, "Input", input);
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* g = result_grad.data<T>();
    const T* in = input.data<T>();
    const T* v = value.data<T>();
    const bool mul = is_mul(attrs), assign = attrs.Reduce == "assign";
    // Index positions grouped by target, each group in put order.
    std::vector<size_t> order(tgt.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tgt[a] < tgt[b]; });
    std::vector<T> dv(tgt.size(), T(0));
    std::vector<T> din(g, g + input.numel());
    for (size_t b = 0; b < order.size();) {
      size_t e = b;
      const int64_t t = tgt[order[b]];
      while (e < order.size() && tgt[order[e]] == t) ++e;
      const T base = mul && attrs.Include_self ? in[t] : T(1);
      if (assign) {
        dv[order[e - 1]] = g[t];  // only the value that stayed reaches Result
        din[t] = T(0);
      } else if (mul) {
        // Each factor's gradient is the product of every other factor: prefix x suffix.
        std::vector<T> suffix(e - b + 1, T(1));
        for (size_t k = e; k-- > b;) suffix[k - b] = suffix[k - b + 1] * v[order[k]];
        T prefix = base;
        for (size_t k = b; k < e; ++k) {
          dv[order[k]] = g[t] * prefix * suffix[k - b + 1];
          prefix *= v[order[k]];
        }
        din[t] = attrs.Include_self ? g[t] * suffix[0] : T(0);
      } else {
        for (size_t k = b; k < e; ++k) dv[order[k]] = g[t];
        if (!attrs.Include_self) din[t] = T(0);
      }
      b = e;
    }
    if (input_grad) {
      input_grad->resize(input.shape(), input.dtype());
      std::copy(din.begin(), din.end(), input_grad->template data<T>());
    }
    if (value_grad) {
      value_grad->resize(value.shape(), value.dtype());
      std::copy(dv.begin(), dv.end(), value_grad->template data<T>());
    }
  });
}

}  // namespace fluidc::kernels
