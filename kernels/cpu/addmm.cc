// kernels/cpu/addmm.cc - addmm (paddle.addmm): Beta * Input broadcast + Alpha * X @ Y, and its gradient, over matmul_v2.
#include "kernels/cpu/kernel_util.h"
#include "kernels/matmul.h"
#include "kernels/shapes/matmul.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Input's strides over Out's [rows, cols]: 0 along a broadcast (size-1 or missing) dim.
struct InputStrides {
  int64_t row = 0, col = 0;
};

InputStrides strides_of(const Tensor& input, int64_t rows, int64_t cols) {
  InputStrides s;
  const int64_t in_cols = input.dim(input.rank() - 1);
  s.col = in_cols == cols && cols != 1 ? 1 : 0;
  if (input.rank() == 2 && input.dim(0) == rows && rows != 1) s.row = in_cols;
  return s;
}

void check(const char* op, const Tensor& input, const Tensor& x, const Tensor& y, Shape& out) {
  require_init(op, "Input", input);
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  require_same_dtype(op, "X", x, "Input", input);
  require_rule(op, shapes::addmm_shape(input.shape(), x.shape(), y.shape(), out));
}

}  // namespace

void addmm(const Tensor& input, const Tensor& x, const Tensor& y, Tensor& out, const AddmmAttrs& attrs) {
  const char* op = "addmm";
  Shape os;
  check(op, input, x, y, os);
  // The product goes to scratch first: Out may be any of the inputs.
  Tensor& prod = scratch(Slot::kTmp0);
  matmul_v2(x, y, prod, MatmulV2Attrs{});
  const int64_t rows = os.d[0], cols = os.d[1];
  const InputStrides st = strides_of(input, rows, cols);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Input's element for (i, j) is read before Out's (i, j) is written, but a broadcast Input is read again
    // for later rows: write aside when Out is Input.
    OutBuf buf(&out, Slot::kOut0, &out == &input);
    Tensor& o = buf.get();
    o.resize(os, x.dtype());
    const T* pi = input.data<T>();
    const T* pp = prod.data<T>();
    T* po = o.data<T>();
    const T alpha = static_cast<T>(attrs.Alpha), beta = static_cast<T>(attrs.Beta);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        po[i * cols + j] = beta * pi[i * st.row + j * st.col] + alpha * pp[i * cols + j];
    buf.finish();
  });
}

void addmm_grad(const Tensor& input, const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* input_grad,
                Tensor* x_grad, Tensor* y_grad, const AddmmAttrs& attrs) {
  const char* op = "addmm_grad";
  Shape os;
  check(op, input, x, y, os);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.shape() != os) rt::fail(fmt::format("{}: Out@GRAD {} must be {}", op, out_grad.shape().str(), os.str()));
  const int64_t rows = os.d[0], cols = os.d[1];
  const InputStrides st = strides_of(input, rows, cols);
  const Shape in_shape = input.shape();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Input@GRAD first, into scratch (it may be any input the products below still read).
    Tensor& gi = scratch(Slot::kTmp1);
    if (input_grad) {
      gi.resize(in_shape, x.dtype());
      T* pg = gi.data<T>();
      for (int64_t k = 0; k < gi.numel(); ++k) pg[k] = T(0);
      const T* pd = out_grad.data<T>();
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) pg[i * st.row + j * st.col] += pd[i * cols + j];
      const T beta = static_cast<T>(attrs.Beta);
      for (int64_t k = 0; k < gi.numel(); ++k) pg[k] *= beta;
    }
    // X@GRAD and Y@GRAD: matmul_v2's gradients (they handle aliasing), then scaled by Alpha.
    matmul_v2_grad(x, y, out_grad, x_grad, y_grad, MatmulV2Attrs{});
    const T alpha = static_cast<T>(attrs.Alpha);
    for (Tensor* g : {x_grad, y_grad})
      if (g) {
        T* p = g->data<T>();
        for (int64_t k = 0; k < g->numel(); ++k) p[k] *= alpha;
      }
    if (input_grad) input_grad->copy_from(gi);
  });
}

}  // namespace fluidc::kernels
