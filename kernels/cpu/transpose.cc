// kernels/cpu/transpose.cc - transpose2 and its gradient as a strided copy over element-sized words.
#include "kernels/transpose.h"

#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/transpose.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// dst (row-major, dims out_dims) = src read with strides src_stride (in
/// elements) per output dim. The last output dim runs innermost with its
/// input stride; the dims above it advance like an odometer.
template <class Word>
void permute_words(const Word* src, Word* dst, const Shape& out_dims, const int64_t* src_stride) {
  const int r = out_dims.rank;
  const int64_t inner = out_dims.d[r - 1], inner_stride = src_stride[r - 1];
  const int64_t outer = out_dims.numel() / (inner ? inner : 1);
  int64_t idx[Shape::kMaxRank] = {};
  int64_t base = 0;
  for (int64_t o = 0; o < outer && inner > 0; ++o) {
    const Word* s = src + base;
    for (int64_t i = 0; i < inner; ++i) dst[i] = s[i * inner_stride];
    dst += inner;
    for (int k = r - 2; k >= 0; --k) {  // advance the odometer over dims 0..r-2
      base += src_stride[k];
      if (++idx[k] < out_dims.d[k]) break;
      base -= src_stride[k] * out_dims.d[k];
      idx[k] = 0;
    }
  }
}

/// Out = X permuted by `perm` (a checked permutation), for any dtype.
void permute(const Tensor& x, const int* perm, const Shape& out_dims, Tensor& out) {
  int64_t x_stride[Shape::kMaxRank];
  for (int k = x.rank() - 1, s = 1; k >= 0; --k) {
    x_stride[k] = s;
    s *= x.dim(k);
  }
  out.resize(out_dims, x.dtype());
  if (x.rank() == 0 || x.numel() == 0) {
    std::memcpy(out.raw(), x.raw(), x.nbytes());
    return;
  }
  int64_t src_stride[Shape::kMaxRank];
  for (int k = 0; k < out_dims.rank; ++k) src_stride[k] = x_stride[perm[k]];
  const size_t esz = rt::dtype_size(x.dtype());
  switch (esz) {
    case 1: permute_words(static_cast<const uint8_t*>(x.raw()), static_cast<uint8_t*>(out.raw()), out_dims, src_stride); break;
    case 2: permute_words(static_cast<const uint16_t*>(x.raw()), static_cast<uint16_t*>(out.raw()), out_dims, src_stride); break;
    case 4: permute_words(static_cast<const uint32_t*>(x.raw()), static_cast<uint32_t*>(out.raw()), out_dims, src_stride); break;
    case 8: permute_words(static_cast<const uint64_t*>(x.raw()), static_cast<uint64_t*>(out.raw()), out_dims, src_stride); break;
    default: rt::fail(fmt::format("transpose2: elements of {} bytes are not supported", esz));
  }
}

/// The canonical (non-negative) permutation of a checked `axis`.
void canonical_perm(const TransposeAttrs& a, int rank, int* perm) {
  for (int k = 0; k < rank; ++k) perm[k] = a.axis[k] < 0 ? a.axis[k] + rank : a.axis[k];
}

void transpose_forward(const char* op, const Tensor& x, Tensor& out, Tensor* x_shape, const TransposeAttrs& a) {
  require_init(op, "X", x);
  Shape s;
  require_rule(op, shapes::transpose_shape(x.shape(), a, s));
  record_xshape(x, x_shape);
  int perm[Shape::kMaxRank];
  canonical_perm(a, x.rank(), perm);
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  permute(x, perm, s, buf.get());
  buf.finish();
}

// X@GRAD of X's dims `x_dims` (from XShape or from X itself).
void transpose_backward(const char* op, const Shape& x_dims, const Tensor& out_grad, Tensor* x_grad,
                        const TransposeAttrs& a) {
  if (!x_grad) return;
  require_init(op, "Out@GRAD", out_grad);
  Shape check;
  require_rule(op, shapes::transpose_shape(out_grad.shape(), a, check));
  // Out's dim k is X's dim perm[k], so X@GRAD's dim perm[k] is Out@GRAD's dim k.
  int perm[Shape::kMaxRank], inverse[Shape::kMaxRank];
  canonical_perm(a, out_grad.rank(), perm);
  Shape s;
  s.rank = out_grad.rank();
  for (int k = 0; k < s.rank; ++k) {
    inverse[perm[k]] = k;
    s.d[perm[k]] = out_grad.dim(k);
  }
  if (s != x_dims)
    rt::fail(fmt::format("{}: Out@GRAD {} does not fit X {}", op, out_grad.shape().str(), x_dims.str()));
  OutBuf buf(x_grad, Slot::kOut0, x_grad == &out_grad);
  permute(out_grad, inverse, s, buf.get());
  buf.finish();
}

}  // namespace

void transpose2(const Tensor& x, Tensor& out, Tensor* x_shape, const TransposeAttrs& a) {
  transpose_forward("transpose2", x, out, x_shape, a);
}

void transpose2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad, const TransposeAttrs& a) {
  if (x_shape.rank() < 1) rt::fail("transpose2_grad: XShape must have rank >= 1");
  Shape x_dims;
  x_dims.rank = x_shape.rank() - 1;
  for (int k = 0; k < x_dims.rank; ++k) x_dims.d[k] = x_shape.dim(k + 1);
  transpose_backward("transpose2_grad", x_dims, out_grad, x_grad, a);
}

void transpose(const Tensor& x, Tensor& out, const TransposeAttrs& a) { transpose_forward("transpose", x, out, nullptr, a); }

void transpose_grad(const Tensor& x, const Tensor*, const Tensor& out_grad, Tensor* x_grad, const TransposeAttrs& a) {
  transpose_backward("transpose_grad", x.shape(), out_grad, x_grad, a);
}

}  // namespace fluidc::kernels
