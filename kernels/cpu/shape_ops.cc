// kernels/cpu/shape_ops.cc - shape, size and fill_constant_batch_size_like: outputs made from an input's dims.
#include "kernels/cpu/kernel_util.h"
#include "kernels/fill.h"
#include "kernels/shapes/expand.h"
#include "kernels/tensor_manip.h"

namespace fluidc::kernels {

using namespace detail;

void shape(const Tensor& input, Tensor& out) {
  // Only the dims are read, so an input that holds no data yet is fine.
  const Shape s = input.shape();  // copied: out may be input
  out.resize(Shape{s.rank}, DType::kInt32);
  int32_t* p = out.data<int32_t>();
  for (int i = 0; i < s.rank; ++i) p[i] = static_cast<int32_t>(s.d[i]);
}

void size(const Tensor& input, Tensor& out) {
  const int64_t n = input.shape().numel();
  out.resize(Shape{}, DType::kInt64);
  out.data<int64_t>()[0] = n;
}

void fill_constant_batch_size_like(const Tensor& input, Tensor& out, const FillConstantBatchSizeLikeAttrs& a) {
  const char* op = "fill_constant_batch_size_like";
  Shape s;
  require_rule(op, shapes::batch_size_like_shape(input.shape(), a.shape, a.input_dim_idx, a.output_dim_idx, s));
  // fill_constant does the dtype and value rules; its attributes are kept
  // per thread so that steady-state calls do not allocate.
  thread_local FillConstantAttrs f;
  f.shape.assign(s.d, s.d + s.rank);
  f.dtype = a.dtype;
  f.value = a.value;
  f.str_value = a.str_value;
  fill_constant(nullptr, nullptr, nullptr, 0, out, f);
}

}  // namespace fluidc::kernels
