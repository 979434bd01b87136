// kernels/cpu/row_conv.cc - row_conv (lookahead convolution over each sequence's future steps) and its gradient.
#include <cstdint>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy2.h"
#include "kernels/vision_legacy2.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The sequences' row offsets: LoD level 0 for a [T, D] X, B runs of T rows
// for a dense [B, T, D] X.
std::vector<uint64_t> sequences(const char* op, const Tensor& x) {
  if (x.rank() == 3) {
    std::vector<uint64_t> s;
    for (int64_t b = 0; b <= x.dim(0); ++b) s.push_back(static_cast<uint64_t>(b * x.dim(1)));
    return s;
  }
  if (!x.lod()) rt::fail(fmt::format("{}: a 2-D X {} needs a LoD (its sequences)", op, x.shape().str()));
  const auto& s = x.lod()->front();
  if (s.empty() || s.front() != 0 || s.back() != static_cast<uint64_t>(x.dim(0)))
    rt::fail(fmt::format("{}: X's LoD level 0 does not cover its {} rows", op, x.dim(0)));
  return s;
}

void check(const char* op, const Tensor& x, const Tensor& filter) {
  require_init(op, "X", x);
  require_init(op, "Filter", filter);
  require_rule(op, shapes::row_conv_check(x.shape(), filter.shape()));
  require_same_dtype(op, "X", x, "Filter", filter);
}

// f(t, u, w) for each pair of rows t <= u = t + w < the end of t's sequence, w < context.
template <class F>
void pairs(const std::vector<uint64_t>& seq, int64_t context, F f) {
  for (size_t s = 0; s + 1 < seq.size(); ++s)
    for (uint64_t t = seq[s]; t < seq[s + 1]; ++t)
      for (int64_t w = 0; w < context && t + w < seq[s + 1]; ++w) f(static_cast<int64_t>(t), t + w, w);
}

}  // namespace

void row_conv(const Tensor& x, const Tensor& filter, Tensor& out) {
  constexpr const char* kOp = "row_conv";
  check(kOp, x, filter);
  const std::vector<uint64_t> seq = sequences(kOp, x);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &filter}));
  Tensor& o = buf.get();
  o.resize(x.shape(), x.dtype());
  o.zero();
  const int64_t d = filter.dim(1);
  visit_float(kOp, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xv = x.data<T>(), *fv = filter.data<T>();
    T* ov = o.data<T>();
    pairs(seq, filter.dim(0), [&](int64_t t, uint64_t u, int64_t w) {
      for (int64_t j = 0; j < d; ++j) ov[t * d + j] += xv[u * d + j] * fv[w * d + j];
    });
  });
  buf.finish();
}

void row_conv_grad(const Tensor& x, const Tensor& filter, const Tensor& out_grad, Tensor* x_grad,
                   Tensor* filter_grad) {
  constexpr const char* kOp = "row_conv_grad";
  check(kOp, x, filter);
  require_init(kOp, "Out@GRAD", out_grad);
  require_same_shape(kOp, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(kOp, "X", x, "Out@GRAD", out_grad);
  const std::vector<uint64_t> seq = sequences(kOp, x);
  OutBuf gx(x_grad, Slot::kOut0, aliases(x_grad, {&x, &filter, &out_grad}));
  OutBuf gf(filter_grad, Slot::kOut1, aliases(filter_grad, {&x, &filter, &out_grad}));
  if (gx.wanted()) gx.get().resize(x.shape(), x.dtype()), gx.get().zero();
  if (gf.wanted()) gf.get().resize(filter.shape(), filter.dtype()), gf.get().zero();
  const int64_t d = filter.dim(1);
  visit_float(kOp, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xv = x.data<T>(), *fv = filter.data<T>(), *g = out_grad.data<T>();
    T* dx = gx.wanted() ? gx.get().data<T>() : nullptr;
    T* df = gf.wanted() ? gf.get().data<T>() : nullptr;
    pairs(seq, filter.dim(0), [&](int64_t t, uint64_t u, int64_t w) {
      for (int64_t j = 0; j < d; ++j) {
        if (dx) dx[u * d + j] += g[t * d + j] * fv[w * d + j];
        if (df) df[w * d + j] += g[t * d + j] * xv[u * d + j];
      }
    });
  });
  gx.finish();
  gf.finish();
}

}  // namespace fluidc::kernels
