// kernels/cpu/unpool.cc - unpool and its gradient: values scattered to (and gradients gathered from) their pooling indices.
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/unpool.h"
#include "kernels/unpool.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// Checks the inputs and reads Indices into idx (64-bit), each checked to
/// lie in its channel's output plane of `plane` positions.
Shape check(const char* op, const Tensor& x, const Tensor& indices, const UnpoolAttrs& a, std::vector<int64_t>& idx) {
  require_init(op, "X", x);
  require_init(op, "Indices", indices);
  Shape os;
  require_rule(op, shapes::unpool_shape(x.shape(), indices.shape(), a, os));
  const int64_t plane = os.d[2] * os.d[3], n = indices.numel();
  idx.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = 0;
    switch (indices.dtype()) {
      case DType::kInt32: v = indices.data<int32_t>()[i]; break;
      case DType::kInt64: v = indices.data<int64_t>()[i]; break;
      default: fail_dtype(op, "Indices", indices.dtype());
    }
    if (v < 0 || v >= plane)
      rt::fail(fmt::format("{}: Indices holds {}, outside the {} x {} output plane", op, v, os.d[2], os.d[3]));
    idx[static_cast<size_t>(i)] = v;
  }
  return os;
}

}  // namespace

void unpool(const Tensor& x, const Tensor& indices, Tensor& out, const UnpoolAttrs& a) {
  constexpr const char* op = "unpool";
  std::vector<int64_t> idx;
  const Shape os = check(op, x, indices, a, idx);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &indices}));
  const int64_t planes = os.d[0] * os.d[1], in_plane = x.dim(2) * x.dim(3), out_plane = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    ob.get().zero();
    const T* xd = x.data<T>();
    T* od = ob.get().data<T>();
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t i = 0; i < in_plane; ++i) od[p * out_plane + idx[static_cast<size_t>(p * in_plane + i)]] = xd[p * in_plane + i];
  });
  ob.finish();
}

void unpool_grad(const Tensor& x, const Tensor& indices, const Tensor* /*out*/, const Tensor& out_grad, Tensor* x_grad,
                 const UnpoolAttrs& a) {
  constexpr const char* op = "unpool_grad";
  if (!x_grad) return;
  std::vector<int64_t> idx;
  const Shape os = check(op, x, indices, a, idx);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD is {} but Out is {}", op, out_grad.shape().str(), os.str()));
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, {&x, &indices, &out_grad}));
  const int64_t planes = os.d[0] * os.d[1], in_plane = x.dim(2) * x.dim(3), out_plane = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    xb.get().resize(x.shape(), x.dtype());
    const T* gd = out_grad.data<T>();
    T* dx = xb.get().data<T>();
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t i = 0; i < in_plane; ++i)
        dx[p * in_plane + i] = gd[p * out_plane + idx[static_cast<size_t>(p * in_plane + i)]];
  });
  xb.finish();
}

}  // namespace fluidc::kernels
