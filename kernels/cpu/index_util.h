// kernels/cpu/index_util.h - reading index tensors for the index family: dtype dispatch and bounds checks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::detail {

/// The values of an int32/int64 index tensor, each checked to lie in
/// [0, bound), copied to a per-thread scratch buffer (grow-only, so a step
/// loop allocates nothing). An index is program data: an out-of-range one
/// fails naming the op, the role and the value instead of reading out of
/// bounds. `skip` (e.g. a padding id) is accepted whatever the bound.
inline const int64_t* checked_indices(const char* op, const char* role, const Tensor& index, int64_t bound,
                                      int64_t skip = INT64_MIN) {
  require_init(op, role, index);
  Tensor& buf = scratch(Slot::kTmp1);
  const int64_t n = index.numel();
  buf.resize(Shape{n}, DType::kInt64);
  int64_t* v = buf.data<int64_t>();
  auto check = [&](auto tag) {
    using I = decltype(tag);
    const I* p = index.data<I>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(p[i]);
      if ((id < 0 || id >= bound) && id != skip)
        rt::fail(fmt::format("{}: {} value {} (entry {}) is out of range [0, {})", op, role, id, i, bound));
      v[i] = id;
    }
  };
  switch (index.dtype()) {
    case DType::kInt32: check(int32_t{}); break;
    case DType::kInt64: check(int64_t{}); break;
    default: rt::fail(fmt::format("{}: {} must be int32 or int64, got {}", op, role, rt::dtype_name(index.dtype())));
  }
  return v;
}

/// Out's row i = W's row idx[i], or zeros where idx[i] is the padding id
/// `pad` (which may lie outside the table: Paddle allows it, and it only ever
/// reads as zeros). The embedding lookups' forward (lookup_table, _v2); the
/// indices are already checked.
inline void copy_embedding_rows(const Tensor& w, const int64_t* idx, int64_t n, int64_t pad, Tensor& out) {
  const size_t row = static_cast<size_t>(w.dim(1)) * rt::dtype_size(w.dtype());
  const char* src = static_cast<const char*>(w.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t i = 0; i < n; ++i, dst += row) {
    if (idx[i] == pad) std::memset(dst, 0, row);
    else std::memcpy(dst, src + idx[i] * row, row);
  }
}

/// X viewed as [outer, mid, inner] around `axis`.
struct AxisView {
  int64_t outer = 1, mid = 1, inner = 1;
};
inline AxisView axis_view(const Shape& s, int axis) {
  AxisView v;
  v.outer = prod(s, 0, axis);
  v.mid = s.rank ? s.d[axis] : 1;
  v.inner = prod(s, axis + 1, s.rank);
  return v;
}

// Out[o, i, :] = X[o, idx[i], :] as byte copies of whole inner rows (any dtype).
inline void take_rows(const Tensor& x, const AxisView& v, const int64_t* idx, int64_t n, Tensor& out) {
  const size_t row = static_cast<size_t>(v.inner) * rt::dtype_size(x.dtype());
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < n; ++i, dst += row) std::memcpy(dst, src + (o * v.mid + idx[i]) * row, row);
}

// G = zeros like X (or, with zero_first false, G as it is); G[o, idx[i], :] += dOut[o, i, :].
template <class T>
void add_rows(const T* dout, const AxisView& v, const int64_t* idx, int64_t n, T* g, bool zero_first = true) {
  if (zero_first) std::fill(g, g + v.outer * v.mid * v.inner, T(0));
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < n; ++i) {
      T* dst = g + (o * v.mid + idx[i]) * v.inner;
      const T* src = dout + (o * n + i) * v.inner;
      for (int64_t j = 0; j < v.inner; ++j) dst[j] += src[j];
    }
}

}  // namespace fluidc::kernels::detail
