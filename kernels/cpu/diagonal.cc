// kernels/cpu/diagonal.cc - diagonal (paddle.diagonal) and its gradient: the diagonals of the (axis1, axis2) planes; diag_embed, which builds them.
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/flip_tril.h"
#include "kernels/tensor_manip_more.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Calls f(out_index, input_index) for every diagonal element, Out in row-major order.
template <class F>
void each_diagonal(const Shape& in, const DiagonalAttrs& at, int a1, int a2, const Shape& out, F f) {
  int64_t stride[Shape::kMaxRank];
  int64_t s = 1;
  for (int i = in.rank - 1; i >= 0; --i) stride[i] = s, s *= in.d[i];
  const int64_t len = out.d[out.rank - 1];
  // The dims Out keeps, in order, with their Input strides.
  int64_t kept_dim[Shape::kMaxRank], kept_stride[Shape::kMaxRank];
  int kept = 0;
  for (int i = 0; i < in.rank; ++i)
    if (i != a1 && i != a2) kept_dim[kept] = in.d[i], kept_stride[kept++] = stride[i];
  int64_t outer = 1;
  for (int k = 0; k < kept; ++k) outer *= kept_dim[k];
  const int64_t start = (at.offset < 0 ? -static_cast<int64_t>(at.offset) : 0) * stride[a1] +
                        (at.offset > 0 ? static_cast<int64_t>(at.offset) : 0) * stride[a2];
  const int64_t step = stride[a1] + stride[a2];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t base = 0, rest = o;
    for (int k = kept - 1; k >= 0; --k) base += (rest % kept_dim[k]) * kept_stride[k], rest /= kept_dim[k];
    for (int64_t t = 0; t < len; ++t) f(o * len + t, base + start + t * step);
  }
}

}  // namespace

void diagonal(const Tensor& input, Tensor& out, const DiagonalAttrs& attrs) {
  const char* op = "diagonal";
  require_init(op, "Input", input);
  int a1 = 0, a2 = 0;
  Shape os;
  require_rule(op, shapes::diagonal_shape(input.shape(), attrs, a1, a2, os));
  // Out is gathered from anywhere in Input: write aside when it is Input.
  OutBuf buf(&out, Slot::kOut0, &out == &input);
  Tensor& o = buf.get();
  o.resize(os, input.dtype());
  visit_all(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pi = input.data<T>();
    T* po = o.data<T>();
    each_diagonal(input.shape(), attrs, a1, a2, os, [&](int64_t k, int64_t at) { po[k] = pi[at]; });
  });
  buf.finish();
}

void diagonal_grad(const Tensor& input, const Tensor& out_grad, Tensor* input_grad, const DiagonalAttrs& attrs) {
  const char* op = "diagonal_grad";
  require_init(op, "Out@GRAD", out_grad);
  int a1 = 0, a2 = 0;
  Shape os;
  const Shape in_shape = input.shape();
  require_rule(op, shapes::diagonal_shape(in_shape, attrs, a1, a2, os));
  if (out_grad.shape() != os) rt::fail(fmt::format("{}: Out@GRAD {} must be {}", op, out_grad.shape().str(), os.str()));
  if (!input_grad) return;
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    OutBuf buf(input_grad, Slot::kOut0, input_grad == &out_grad);
    Tensor& g = buf.get();
    g.resize(in_shape, out_grad.dtype());
    T* pg = g.data<T>();
    for (int64_t i = 0; i < g.numel(); ++i) pg[i] = T(0);
    const T* pd = out_grad.data<T>();
    each_diagonal(in_shape, attrs, a1, a2, os, [&](int64_t k, int64_t at) { pg[at] = pd[k]; });
    buf.finish();
  });
}

void diag_embed(const Tensor& input, Tensor& out, const DiagEmbedAttrs& attrs) {
  const char* op = "diag_embed";
  require_init(op, "Input", input);
  int a1 = 0, a2 = 0;
  Shape os;
  require_rule(op, shapes::diag_embed_shape(input.shape(), attrs, a1, a2, os));
  // Out's diagonals, walked as diagonal() walks them, come in Input's row-major order.
  const DiagonalAttrs as_diagonal{.offset = attrs.offset, .axis1 = a1, .axis2 = a2};
  Shape diag_shape;
  int d1 = 0, d2 = 0;
  require_rule(op, shapes::diagonal_shape(os, as_diagonal, d1, d2, diag_shape));
  OutBuf buf(&out, Slot::kOut0, &out == &input);
  Tensor& o = buf.get();
  o.resize(os, input.dtype());
  visit_numeric(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pi = input.data<T>();
    T* po = o.data<T>();
    for (int64_t i = 0; i < o.numel(); ++i) po[i] = T(0);
    each_diagonal(os, as_diagonal, d1, d2, diag_shape, [&](int64_t k, int64_t at) { po[at] = pi[k]; });
  });
  buf.finish();
}

}  // namespace fluidc::kernels
