// kernels/cpu/index_sort.cc - argsort along any axis, with Paddle's tie order, and its gradient.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/index_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

AxisView sort_view(const char* op, const Tensor& x, int axis_attr, int& axis) {
  require_init(op, "X", x);
  const int rank = x.shape().rank;
  require_rule(op, shapes::index_axis("axis", axis_attr, rank == 0 ? 1 : rank, axis));
  return axis_view(x.shape(), rank == 0 ? 0 : axis);
}

// NaN compares as the largest value. Paddle sorts (value, index) pairs with
// std::sort on values alone; the same call over the same sequence gives the
// same order of ties, so the pairs are built and compared exactly that way.
template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

template <class T>
void sort_rows(const AxisView& v, bool descending, const T* x, T* out, int64_t* idx) {
  const int64_t n = v.mid, inner = v.inner;
  auto rows = [&](int64_t begin, int64_t end) {
    std::vector<std::pair<T, int64_t>> col;
    col.reserve(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / inner, k = r % inner;
      const int64_t base = o * n * inner + k;
      col.clear();
      for (int64_t j = 0; j < n; ++j) col.emplace_back(x[base + j * inner], j);
      if (descending)
        std::sort(col.begin(), col.end(), [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
          return (is_nan(a.first) && !is_nan(b.first)) || a.first > b.first;
        });
      else
        std::sort(col.begin(), col.end(), [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
          return (!is_nan(a.first) && is_nan(b.first)) || a.first < b.first;
        });
      for (int64_t j = 0; j < n; ++j) {
        out[base + j * inner] = col[static_cast<size_t>(j)].first;
        idx[base + j * inner] = col[static_cast<size_t>(j)].second;
      }
    }
  };
  const int64_t total = v.outer * inner;
  const int64_t parts = std::min<int64_t>(rt::num_threads(), std::max<int64_t>(1, total * n / (16 * 1024)));
  if (parts <= 1) rows(0, total);
  else rt::parallel_slices(total, parts, 1, [&](int64_t, int64_t b, int64_t e) { rows(b, e); });
}

}  // namespace

void argsort(const Tensor& x, Tensor& out, Tensor& indices, const ArgsortAttrs& attrs) {
  constexpr const char* op = "argsort";
  int axis = 0;
  const AxisView v = sort_view(op, x, attrs.axis, axis);
  if (&out == &x || &indices == &x) rt::fail(fmt::format("{}: outputs must not alias X", op));
  out.resize(x.shape(), x.dtype());
  indices.resize(x.shape(), DType::kInt64);
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    sort_rows<T>(v, attrs.descending, x.data<T>(), out.data<T>(), indices.data<int64_t>());
  });
}

void argsort_grad(const Tensor& indices, const Tensor& x, const Tensor& out_grad, Tensor* x_grad,
                  const ArgsortAttrs& attrs) {
  constexpr const char* op = "argsort_grad";
  if (!x_grad) return;
  int axis = 0;
  const AxisView v = sort_view(op, x, attrs.axis, axis);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "Indices", indices, "X", x);
  require_same_shape(op, "Out@GRAD", out_grad, "X", x);
  const int64_t* ids = checked_indices(op, "Indices", indices, v.mid);
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&indices, &x, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  g.zero();
  visit_numeric(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = out_grad.data<T>();
    T* dst = g.data<T>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t j = 0; j < v.mid; ++j) {
        const int64_t row = (o * v.mid + j) * v.inner;
        T* base = dst + o * v.mid * v.inner;
        for (int64_t k = 0; k < v.inner; ++k) base[ids[row + k] * v.inner + k] += src[row + k];
      }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
