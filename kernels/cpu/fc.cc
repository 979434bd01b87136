// kernels/cpu/fc.cc - fc as mul's product, then the bias row and relu in place.
#include "kernels/fc.h"

#include "kernels/cpu/kernel_util.h"
#include "kernels/matmul.h"

namespace fluidc::kernels {

using namespace detail;

void fc(const Tensor& input, const Tensor& w, const Tensor* bias, Tensor& out, const FcAttrs& a) {
  constexpr const char* op = "fc";
  require_init(op, "Input", input);
  require_init(op, "W", w);
  if (a.padding_weights) rt::fail("fc: padding_weights (oneDNN's padded W) is not supported");
  const bool relu = a.activation_type == "relu";
  if (!relu && !a.activation_type.empty())
    rt::fail(fmt::format("fc: activation_type '{}' is not supported ('' or 'relu')", a.activation_type));
  if (w.rank() != 2) rt::fail(fmt::format("fc: W must be 2-D, got {}", w.shape().str()));
  if (a.in_num_col_dims < 1 || a.in_num_col_dims >= input.rank())
    rt::fail(fmt::format("fc: in_num_col_dims {} must be in [1, {}) for Input {}", a.in_num_col_dims, input.rank(),
                         input.shape().str()));
  const int64_t n = w.dim(1);
  if (bias) {
    require_init(op, "Bias", *bias);
    require_same_dtype(op, "Input", input, "Bias", *bias);
    if (bias->numel() != n)
      rt::fail(fmt::format("fc: Bias must hold N = {} values, got {}", n, bias->shape().str()));
  }
  if (aliases(&out, {&input, &w, bias})) rt::fail("fc: Out may not be an input");
  MulAttrs m;
  m.x_num_col_dims = a.in_num_col_dims;
  m.y_num_col_dims = 1;
  mul(input, w, out, m);
  if (!bias && !relu) return;
  visit_float(op, "Input", out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    const T* b = bias ? bias->data<T>() : nullptr;
    const int64_t rows = n ? out.numel() / n : 0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        T v = o[r * n + j] + (b ? b[j] : T(0));
        o[r * n + j] = relu && v < T(0) ? T(0) : v;
      }
  });
}

}  // namespace fluidc::kernels
