// kernels/cpu/masked.cc - where_index, masked_select and masked_select_grad: outputs sized by counting the selected elements first.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/masked.h"
#include "kernels/shapes/masked.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Row-major strides of `aligned` with 0 along its size-1 dims, so an operand
// repeats there when the common shape is larger.
void repeat_strides(const Shape& aligned, int64_t* strides) {
  int64_t s = 1;
  for (int i = aligned.rank - 1; i >= 0; --i) {
    strides[i] = aligned.d[i] == 1 ? 0 : s;
    s *= aligned.d[i];
  }
}

// Walks the common shape of X and Mask in row-major order, calling
// pick(x_offset) for each element whose mask is true.
struct MaskWalk {
  Shape common;
  int64_t xs[Shape::kMaxRank] = {}, ms[Shape::kMaxRank] = {};

  MaskWalk(const char* op, const Tensor& x, const Tensor& mask) {
    require_init(op, "X", x);
    require_init(op, "Mask", mask);
    if (mask.dtype() != DType::kBool)
      rt::fail(fmt::format("{}: Mask must be bool, got {}", op, rt::dtype_name(mask.dtype())));
    Shape xa, ma, y;
    require_rule(op, shapes::masked_select_shape(x.shape(), mask.shape(), xa, ma, common, y));
    repeat_strides(xa, xs);
    repeat_strides(ma, ms);
  }

  template <class Pick>
  void run(const bool* m, Pick pick) const {
    const int64_t n = common.numel();
    int64_t idx[Shape::kMaxRank] = {};
    int64_t xo = 0, mo = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (m[mo]) pick(xo);
      for (int d = common.rank - 1; d >= 0; --d) {  // next index, carrying
        xo += xs[d], mo += ms[d];
        if (++idx[d] < common.d[d]) break;
        xo -= xs[d] * common.d[d], mo -= ms[d] * common.d[d];
        idx[d] = 0;
      }
    }
  }

  int64_t count(const bool* m) const {
    int64_t k = 0;
    run(m, [&](int64_t) { ++k; });
    return k;
  }
};

}  // namespace

void where_index(const Tensor& condition, Tensor& out) {
  constexpr const char* op = "where_index";
  require_init(op, "Condition", condition);
  const Shape& s = condition.shape();
  const int64_t n = condition.numel();
  visit_all(op, "Condition", condition.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* c = condition.data<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) k += c[i] != T(0);
    // Out never aliases Condition: its dtype differs unless Condition is int64,
    // and the plan pairs only in-place ops.
    out.resize(Shape{k, s.rank}, DType::kInt64);
    int64_t* o = out.data<int64_t>();
    int64_t idx[Shape::kMaxRank] = {};
    for (int64_t i = 0; i < n; ++i) {
      if (c[i] != T(0))
        for (int d = 0; d < s.rank; ++d) *o++ = idx[d];
      for (int d = s.rank - 1; d >= 0; --d) {
        if (++idx[d] < s.d[d]) break;
        idx[d] = 0;
      }
    }
  });
}

void masked_select(const Tensor& x, const Tensor& mask, Tensor& y) {
  constexpr const char* op = "masked_select";
  const MaskWalk walk(op, x, mask);
  const bool* m = mask.data<bool>();
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xv = x.data<T>();
    y.resize(Shape{walk.count(m)}, x.dtype());
    T* o = y.data<T>();
    walk.run(m, [&](int64_t xo) { *o++ = xv[xo]; });
  });
}

void masked_select_grad(const Tensor& x, const Tensor& mask, const Tensor& y_grad, Tensor* x_grad) {
  constexpr const char* op = "masked_select_grad";
  if (!x_grad) return;
  const MaskWalk walk(op, x, mask);
  require_init(op, "Y@GRAD", y_grad);
  require_same_dtype(op, "Y@GRAD", y_grad, "X", x);
  const bool* m = mask.data<bool>();
  const int64_t k = walk.count(m);
  if (y_grad.shape() != Shape{k})
    rt::fail(fmt::format("{}: Y@GRAD has shape {} but the mask selects {} elements", op, y_grad.shape().str(), k));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    x_grad->resize(x.shape(), x.dtype());
    T* g = x_grad->data<T>();
    std::fill(g, g + x.numel(), T(0));
    const T* dy = y_grad.data<T>();
    walk.run(m, [&](int64_t xo) { g[xo] += *dy++; });
  });
}

}  // namespace fluidc::kernels
