// kernels/cpu/unique.cc - unique: distinct values (or slices along an axis), sorted or in first-appearance order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/vision_legacy2.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

constexpr const char* kOp = "unique";

// X seen as `rows` slices of `width` elements along `axis` (outer x rows x inner).
struct Slices {
  int64_t outer = 1, rows = 1, inner = 1;
  template <class T>
  T at(const T* x, int64_t row, int64_t k) const {  // element k of slice `row`
    const int64_t o = k / inner, i = k % inner;
    return x[(o * rows + row) * inner + i];
  }
  int64_t width() const { return outer * inner; }
};

// A strict weak order even with NaNs (data from a program may hold them:
// sorting by plain < would then be undefined): NaNs after every number,
// all in one group.
template <class T>
bool lt(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return !std::isnan(a);
    if (std::isnan(a)) return false;
  }
  return a < b;
}

// The results before they are written: the distinct slices' first rows in
// Out's order, each row's group, each group's count.
struct Groups {
  std::vector<int64_t> first, inverse, counts;
};

template <class T>
Groups sorted_groups(const T* x, const Slices& s) {
  std::vector<int64_t> order(static_cast<size_t>(s.rows));
  std::iota(order.begin(), order.end(), 0);
  auto cmp = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < s.width(); ++k) {
      const T l = s.at(x, a, k), r = s.at(x, b, k);
      if (lt(l, r)) return -1;
      if (lt(r, l)) return 1;
    }
    return 0;
  };
  // Stable: the first row of a group is the first occurrence (Indices).
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  Groups g;
  g.inverse.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || cmp(order[i - 1], order[i]) != 0) {
      g.first.push_back(order[i]);
      g.counts.push_back(0);
    }
    g.inverse[order[i]] = static_cast<int64_t>(g.first.size()) - 1;
    ++g.counts.back();
  }
  return g;
}

// Fluid 1.x's form: 1-D, in order of first appearance.
template <class T>
Groups appearance_groups(const T* x, int64_t n) {
  Groups g;
  g.inverse.resize(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lt(x[a], x[b]); });
  // Group ids by first appearance: walk the sorted runs, then renumber.
  std::vector<int64_t> run_of(static_cast<size_t>(n)), run_first;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || lt(x[order[i - 1]], x[order[i]])) run_first.push_back(order[i]);
    run_of[order[i]] = static_cast<int64_t>(run_first.size()) - 1;
  }
  std::vector<int64_t> id(run_first.size(), -1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t& r = id[run_of[i]];
    if (r < 0) {
      r = static_cast<int64_t>(g.first.size());
      g.first.push_back(i);
      g.counts.push_back(0);
    }
    g.inverse[i] = r;
    ++g.counts[r];
  }
  return g;
}

void write_ints(const std::vector<int64_t>& v, DType dt, Tensor& t) {
  t.resize(Shape{static_cast<int64_t>(v.size())}, dt);
  if (dt == DType::kInt64) std::copy(v.begin(), v.end(), t.data<int64_t>());
  else for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  t.clear_lod();
}

}  // namespace

void unique(const Tensor& x, Tensor& out, Tensor* indices, Tensor& index, Tensor* counts, const UniqueAttrs& attrs) {
  require_init(kOp, "X", x);
  if (attrs.dtype != 2 && attrs.dtype != 3)
    rt::fail(fmt::format("{}: dtype {} must be 2 (int32) or 3 (int64)", kOp, attrs.dtype));
  const DType it = attrs.dtype == 2 ? DType::kInt32 : DType::kInt64;
  const Tensor* outs[] = {&out, &index, indices, counts};
  for (const Tensor* o : outs)
    if (o == &x) rt::fail(fmt::format("{}: an output may not be X", kOp));
  if (!attrs.is_sorted && x.rank() > 1)
    rt::fail(fmt::format("{}: without is_sorted X {} must be 1-D (Fluid 1.x's unique)", kOp, x.shape().str()));
  if (attrs.axis.size() > 1) rt::fail(fmt::format("{}: axis takes one value, got {}", kOp, attrs.axis.size()));
  Slices s;
  int axis = -1;
  if (attrs.is_sorted && !attrs.axis.empty()) {
    axis = canonical_axis(kOp, "axis", attrs.axis[0], x.rank());
    s.outer = prod(x.shape(), 0, axis), s.rows = x.dim(axis), s.inner = prod(x.shape(), axis + 1, x.rank());
  } else {
    s.rows = x.numel();
  }
  visit_numeric(kOp, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xv = x.data<T>();
    const Groups g = attrs.is_sorted ? sorted_groups(xv, s) : appearance_groups(xv, s.rows);
    const int64_t k = static_cast<int64_t>(g.first.size());
    Shape os = axis < 0 ? Shape{k} : x.shape();
    if (axis >= 0) os.d[axis] = k;
    out.resize(os, x.dtype());
    T* ov = out.data<T>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t r = 0; r < k; ++r)
        for (int64_t i = 0; i < s.inner; ++i)
          ov[(o * k + r) * s.inner + i] = xv[(o * s.rows + g.first[r]) * s.inner + i];
    out.clear_lod();
    write_ints(g.inverse, it, index);
    // Fluid 1.x's form writes Out and Index only.
    if (attrs.is_sorted && indices) write_ints(g.first, it, *indices);
    if (attrs.is_sorted && counts) write_ints(g.counts, it, *counts);
  });
}

}  // namespace fluidc::kernels
