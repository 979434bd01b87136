// kernels/cpu/index_along.cc - take_along_axis and its gradient: gathering / scattering along one axis by an index tensor.
#include "kernels/cpu/index_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Input and Index viewed as [outer, mid, inner] around the axis; only mid differs.
struct Along {
  AxisView in, idx;
  int axis = 0;
};

Along along(const char* op, const Tensor& input, const Tensor& index, int axis_attr) {
  require_init(op, "Input", input);
  require_init(op, "Index", index);
  Shape os;
  require_rule(op, shapes::take_along_axis_shape(input.shape(), index.shape(), axis_attr, os));
  Along a;
  a.axis = axis_attr < 0 ? axis_attr + input.shape().rank : axis_attr;
  a.in = axis_view(input.shape(), a.axis);
  a.idx = axis_view(index.shape(), a.axis);
  return a;
}

}  // namespace

void take_along_axis(const Tensor& input, const Tensor& index, Tensor& result, const TakeAlongAxisAttrs& attrs) {
  constexpr const char* op = "take_along_axis";
  const Along a = along(op, input, index, attrs.Axis);
  const int64_t* ids = checked_indices(op, "Index", index, a.in.mid);
  if (&result == &input || &result == &index) rt::fail(fmt::format("{}: Result must not alias an input", op));
  result.resize(index.shape(), input.dtype());
  visit_numeric(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = input.data<T>();
    T* dst = result.data<T>();
    const int64_t inner = a.in.inner, mid_in = a.in.mid, mid_idx = a.idx.mid;
    for (int64_t o = 0; o < a.in.outer; ++o)
      for (int64_t j = 0; j < mid_idx; ++j) {
        const int64_t row = (o * mid_idx + j) * inner;
        const T* base = src + o * mid_in * inner;
        for (int64_t k = 0; k < inner; ++k) dst[row + k] = base[ids[row + k] * inner + k];
      }
  });
}

void take_along_axis_grad(const Tensor& input, const Tensor& index, const Tensor& result_grad, Tensor* input_grad,
                          const TakeAlongAxisAttrs& attrs) {
  constexpr const char* op = "take_along_axis_grad";
  if (!input_grad) return;
  const Along a = along(op, input, index, attrs.Axis);
  require_init(op, "Result@GRAD", result_grad);
  require_same_shape(op, "Result@GRAD", result_grad, "Index", index);
  const int64_t* ids = checked_indices(op, "Index", index, a.in.mid);
  OutBuf buf(input_grad, Slot::kOut0, aliases(input_grad, {&input, &index, &result_grad}));
  Tensor& g = buf.get();
  g.resize(input.shape(), result_grad.dtype());
  g.zero();
  visit_numeric(op, "Result@GRAD", result_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = result_grad.data<T>();
    T* dst = g.data<T>();
    const int64_t inner = a.in.inner, mid_in = a.in.mid, mid_idx = a.idx.mid;
    for (int64_t o = 0; o < a.in.outer; ++o)
      for (int64_t j = 0; j < mid_idx; ++j) {
        const int64_t row = (o * mid_idx + j) * inner;
        T* base = dst + o * mid_in * inner;
        for (int64_t k = 0; k < inner; ++k) base[ids[row + k] * inner + k] += src[row + k];
      }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
