// kernels/cuda/activation.cc - unary activations (and gradients), scale, fill_constant, assign, sum.
#include <cstring>
#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/fill.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

void unary_op(const char* op, dev::Unary kind, const DTensor& x, DTensor& out) {
  require_f32(op, "X", x);
  out.dresize(x.dshape(), rt::DType::kFP32);
  dev::unary(kind, f(x), f(out), x.dnumel(), stream());
  cu::launched(op);
}

void unary_grad_op(const char* op, dev::Unary kind, const DTensor& ref, const DTensor& out_grad, DTensor* x_grad) {
  if (!x_grad) return;
  require_f32(op, "Out", ref);
  require_f32(op, "Out@GRAD", out_grad);
  if (ref.dshape() != out_grad.dshape())
    rt::fail(std::string(op) + ": Out@GRAD " + out_grad.dshape().str() + " differs from " + ref.dshape().str());
  x_grad->dresize(ref.dshape(), rt::DType::kFP32);
  dev::unary_grad(kind, f(ref), f(out_grad), f(*x_grad), ref.dnumel(), stream());
  cu::launched(op);
}

}  // namespace

void relu(const DTensor& x, DTensor& out) { unary_op("relu", dev::Unary::kRelu, x, out); }
void relu_grad(const DTensor& out, const DTensor& g, DTensor* dx) { unary_grad_op("relu_grad", dev::Unary::kRelu, out, g, dx); }
void sigmoid(const DTensor& x, DTensor& out) { unary_op("sigmoid", dev::Unary::kSigmoid, x, out); }
void sigmoid_grad(const DTensor& out, const DTensor& g, DTensor* dx) {
  unary_grad_op("sigmoid_grad", dev::Unary::kSigmoid, out, g, dx);
}
void tanh(const DTensor& x, DTensor& out) { unary_op("tanh", dev::Unary::kTanh, x, out); }
void tanh_grad(const DTensor& out, const DTensor& g, DTensor* dx) { unary_grad_op("tanh_grad", dev::Unary::kTanh, out, g, dx); }
void square(const DTensor& x, DTensor& out) { unary_op("square", dev::Unary::kSquare, x, out); }
void square_grad(const DTensor& x, const DTensor& g, DTensor* dx) {
  unary_grad_op("square_grad", dev::Unary::kSquare, x, g, dx);
}

void sqrt(const DTensor& x, DTensor& out) { unary_op("sqrt", dev::Unary::kSqrt, x, out); }
void sqrt_grad(const DTensor& out, const DTensor& g, DTensor* dx) { unary_grad_op("sqrt_grad", dev::Unary::kSqrt, out, g, dx); }
void exp(const DTensor& x, DTensor& out) { unary_op("exp", dev::Unary::kExp, x, out); }
void exp_grad(const DTensor& out, const DTensor& g, DTensor* dx) { unary_grad_op("exp_grad", dev::Unary::kExp, out, g, dx); }
void log(const DTensor& x, DTensor& out) { unary_op("log", dev::Unary::kLog, x, out); }
void log_grad(const DTensor& x, const DTensor& g, DTensor* dx) { unary_grad_op("log_grad", dev::Unary::kLog, x, g, dx); }
void abs(const DTensor& x, DTensor& out) { unary_op("abs", dev::Unary::kAbs, x, out); }
void abs_grad(const DTensor& x, const DTensor& g, DTensor* dx) { unary_grad_op("abs_grad", dev::Unary::kAbs, x, g, dx); }

void scale(const DTensor& x, const DTensor* scale_tensor, DTensor& out, const ScaleAttrs& attrs) {
  const char* op = "scale";
  require_f32(op, "X", x);
  if (scale_tensor) {
    require_f32(op, "ScaleTensor", *scale_tensor);
    if (scale_tensor->dnumel() != 1) rt::fail("scale: ScaleTensor must hold one value");
  }
  out.dresize(x.dshape(), rt::DType::kFP32);
  dev::scale(f(x), f(out), x.dnumel(), attrs.scale, attrs.bias, attrs.bias_after_scale, f_or_null(scale_tensor),
             stream());
  cu::launched(op);
}

void fill_constant(const DTensor* value_tensor, const DTensor* shape_tensor, const DTensor* const* shape_list,
                   int num_shape_list, DTensor& out, const FillConstantAttrs& attrs) {
  const char* op = "fill_constant";
  // Those inputs would be read on the host: a synchronisation inside the step.
  if (value_tensor || shape_tensor || num_shape_list > 0)
    rt::fail("fill_constant: ValueTensor, ShapeTensor and ShapeTensorList have no CUDA kernel yet (use the attributes)");
  rt::Shape shape;
  require_rule(op, shapes::shape_attr_shape(attrs.shape, shape));
  if (!rt::dtype_is_valid(attrs.dtype)) rt::fail("fill_constant: dtype " + std::to_string(attrs.dtype) + " is not a tensor type");
  const rt::DType dt = static_cast<rt::DType>(attrs.dtype);
  const double v = attrs.str_value.empty() ? attrs.value : std::stod(attrs.str_value);
  uint64_t bits = 0;
  switch (dt) {
    case rt::DType::kFP32: { const float x = static_cast<float>(v); std::memcpy(&bits, &x, 4); break; }
    case rt::DType::kFP64: std::memcpy(&bits, &v, 8); break;
    case rt::DType::kInt32: { const int32_t x = static_cast<int32_t>(v); std::memcpy(&bits, &x, 4); break; }
    case rt::DType::kInt64: { const int64_t x = static_cast<int64_t>(v); std::memcpy(&bits, &x, 8); break; }
    case rt::DType::kInt16: { const int16_t x = static_cast<int16_t>(v); std::memcpy(&bits, &x, 2); break; }
    case rt::DType::kBool: bits = v != 0; break;
    case rt::DType::kUInt8: bits = static_cast<uint8_t>(v); break;
    case rt::DType::kInt8: bits = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
    default: rt::fail(std::string("fill_constant: dtype ") + rt::dtype_name(dt) + " has no CUDA kernel");
  }
  out.dresize(shape, dt);
  if (shape.numel() == 0) return;
  dev::fill(out.dptr<unsigned char>(), static_cast<int>(rt::dtype_size(dt)),
            shape.numel(), bits, stream());
  cu::launched(op);
}

void fill_any_like(const DTensor& x, DTensor& out, const FillAnyLikeAttrs& attrs) {
  require_dev("fill_any_like", "X", x);
  FillConstantAttrs fa;
  fa.dtype = attrs.dtype == -1 ? static_cast<int>(x.ddtype()) : attrs.dtype;
  fa.value = attrs.value;
  const rt::Shape s = x.dshape();  // copied: out may be x
  fa.shape.assign(s.d, s.d + s.rank);
  fill_constant(nullptr, nullptr, nullptr, 0, out, fa);
}

void fill_zeros_like(const DTensor& x, DTensor& out) {
  require_dev("fill_zeros_like", "X", x);
  const rt::Shape s = x.dshape();
  out.dresize(s, x.ddtype());
  const size_t bytes = static_cast<size_t>(s.numel()) * rt::dtype_size(x.ddtype());
  // All-zero bytes are 0 / 0.0 / false in every dtype.
  if (bytes) cu::check(cudaMemsetAsync(out.dptr<unsigned char>(), 0, bytes, stream()), "fill_zeros_like (cudaMemsetAsync)");
}

void cast(const DTensor& x, DTensor& out, const CastAttrs& attrs) {
  const char* op = "cast";
  require_dev(op, "X", x);
  if (!rt::dtype_is_valid(attrs.out_dtype)) rt::fail("cast: out_dtype " + std::to_string(attrs.out_dtype) + " is not a dtype");
  const rt::DType to = static_cast<rt::DType>(attrs.out_dtype);
  if (to == x.ddtype()) return assign(x, out);
  // Element sizes may differ: converting in place would overwrite elements not yet read.
  if (same_storage(out, x)) rt::fail("cast: Out shares storage with X (no in-place cast on CUDA)");
  out.dresize(x.dshape(), to);
  if (!dev::cast(x.dev().raw(), static_cast<int>(x.ddtype()), out.dptr<unsigned char>(), attrs.out_dtype, x.dnumel(),
                 stream()))
    rt::fail(std::string("cast: ") + rt::dtype_name(x.ddtype()) + " to " + rt::dtype_name(to) +
             " has no CUDA kernel (bool, int32, int64, float32, float64 have)");
  cu::launched(op);
}

void assign(const DTensor& x, DTensor& out) {
  require_dev("assign", "X", x);
  if (same_storage(out, x)) return;
  out.dresize(x.dshape(), x.ddtype());
  const size_t bytes = static_cast<size_t>(x.dnumel()) * rt::dtype_size(x.ddtype());
  if (bytes)
    cu::check(cudaMemcpyAsync(out.dptr<unsigned char>(), x.dev().raw(), bytes, cudaMemcpyDeviceToDevice,
                              stream()),
              "assign (cudaMemcpyAsync)");
}

void sum(const DTensor* const* xs, int n, DTensor& out) {
  const char* op = "sum";
  if (n < 1) rt::fail("sum: no inputs");
  for (int i = 0; i < n; ++i) {
    require_f32(op, "X", *xs[i]);
    if (xs[i]->dshape() != xs[0]->dshape())
      rt::fail("sum: input " + std::to_string(i) + " has shape " + xs[i]->dshape().str() + ", input 0 " +
               xs[0]->dshape().str());
  }
  // An input that is Out's own storage goes first, before Out is written.
  int first = 0;
  for (int i = 0; i < n; ++i)
    if (same_storage(out, *xs[i])) first = i;
  out.dresize(xs[0]->dshape(), rt::DType::kFP32);
  const int64_t count = xs[0]->dnumel();
  dev::accumulate(f(out), f(*xs[first]), count, true, stream());
  cu::launched(op);
  for (int i = 0; i < n; ++i) {
    if (i == first) continue;
    dev::accumulate(f(out), f(*xs[i]), count, false, stream());
    cu::launched(op);
  }
}

}  // namespace fluidc::kernels::cuda
