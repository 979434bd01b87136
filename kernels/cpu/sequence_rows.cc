// kernels/cpu/sequence_rows.cc - row-moving sequence ops: sequence_softmax, sequence_reverse, sequence_expand_as, sequence_concat.
#include <cmath>
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/sequence.h"
#include "runtime/lod.h"

namespace fluidc::kernels {

using namespace detail;

void sequence_softmax(const Tensor& x, Tensor& out) {
  require_init("sequence_softmax", "X", x);
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_softmax", "X");
  if (x.numel() != x.dim(0))
    rt::fail(fmt::format("sequence_softmax: X must hold one value per row ([rows] or [rows, 1]), got {}",
                         x.shape().str()));
  // In place is safe: each sequence reads its rows before writing them.
  out.resize(x.shape(), x.dtype());
  visit_float("sequence_softmax", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    T* od = out.data<T>();
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      const uint64_t b = lod[i], e = lod[i + 1];
      if (b == e) continue;
      T mx = xd[b];
      for (uint64_t r = b + 1; r < e; ++r) mx = std::max(mx, xd[r]);
      T sum = 0;
      for (uint64_t r = b; r < e; ++r) sum += (od[r] = std::exp(xd[r] - mx));
      for (uint64_t r = b; r < e; ++r) od[r] /= sum;
    }
  });
  out.share_lod(x);
}

void sequence_softmax_grad(const Tensor& out, const Tensor& out_grad, const Tensor& x, Tensor* x_grad) {
  if (!x_grad) return;
  require_init("sequence_softmax_grad", "Out", out);
  require_init("sequence_softmax_grad", "Out@GRAD", out_grad);
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_softmax_grad", "X");
  if (out.numel() != x.numel() || out_grad.numel() != x.numel())
    rt::fail(fmt::format("sequence_softmax_grad: Out {} and Out@GRAD {} must match X {}", out.shape().str(),
                         out_grad.shape().str(), x.shape().str()));
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&out, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float("sequence_softmax_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* y = out.data<T>();
    const T* dy = out_grad.data<T>();
    T* gd = g.data<T>();
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      T dot = 0;  // dX = Y * (dY - sum(dY * Y)) within the sequence
      for (uint64_t r = lod[i]; r < lod[i + 1]; ++r) dot += dy[r] * y[r];
      for (uint64_t r = lod[i]; r < lod[i + 1]; ++r) gd[r] = y[r] * (dy[r] - dot);
    }
  });
  buf.finish();
}

void sequence_reverse(const Tensor& x, Tensor& y) {
  require_init("sequence_reverse", "X", x);
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_reverse", "X");
  OutBuf buf(&y, Slot::kOut0, aliases(&y, {&x}));
  Tensor& o = buf.get();
  o.resize(x.shape(), x.dtype());
  const size_t row = row_bytes(x);
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(o.raw());
  for (size_t i = 0; i + 1 < lod.size(); ++i)
    for (uint64_t r = lod[i], m = lod[i + 1]; r < lod[i + 1]; ++r) std::memcpy(dst + r * row, src + (--m) * row, row);
  buf.finish();
  y.share_lod(x);
}

void sequence_expand_as(const Tensor& x, const Tensor& y, Tensor& out) {
  require_init("sequence_expand_as", "X", x);
  const std::vector<uint64_t>& lod = rt::last_lod_level(y, "sequence_expand_as", "Y");
  const int64_t n = static_cast<int64_t>(lod.size()) - 1;
  if (x.rank() == 0 || x.dim(0) != n)
    rt::fail(fmt::format("sequence_expand_as: X {} must have one row per sequence of Y ({})", x.shape().str(), n));
  Shape s = x.shape();
  s[0] = static_cast<int64_t>(lod.back());
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &y}));
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  const size_t row = row_bytes(x);
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(o.raw());
  for (int64_t i = 0; i < n; ++i)
    for (uint64_t r = lod[i]; r < lod[i + 1]; ++r) std::memcpy(dst + r * row, src + i * row, row);
  buf.finish();
  out.share_lod(y);
}

void sequence_expand_as_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad) {
  if (!x_grad) return;
  require_init("sequence_expand_as_grad", "Out@GRAD", out_grad);
  const std::vector<uint64_t>& lod = rt::last_lod_level(y, "sequence_expand_as_grad", "Y");
  const int64_t n = static_cast<int64_t>(lod.size()) - 1;
  const int64_t width = x.dim(0) ? x.numel() / x.dim(0) : 0;
  if (x.dim(0) != n || out_grad.numel() != static_cast<int64_t>(lod.back()) * width)
    rt::fail(fmt::format("sequence_expand_as_grad: Out@GRAD {} does not match X {} expanded by Y's LoD",
                         out_grad.shape().str(), x.shape().str()));
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &y, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float("sequence_expand_as_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* dy = out_grad.data<T>();
    T* gd = g.data<T>();
    std::fill(gd, gd + g.numel(), T(0));
    for (int64_t i = 0; i < n; ++i)
      for (uint64_t r = lod[i]; r < lod[i + 1]; ++r)
        for (int64_t j = 0; j < width; ++j) gd[i * width + j] += dy[r * width + j];
  });
  buf.finish();
}

void sequence_concat(const Tensor* const* x, int nx, Tensor& out) {
  if (nx < 1) rt::fail("sequence_concat: needs at least one input");
  int64_t n = -1, rows = 0;
  for (int k = 0; k < nx; ++k) {
    require_init("sequence_concat", "X", *x[k]);
    const auto& lod = rt::last_lod_level(*x[k], "sequence_concat", "X");
    if (n >= 0 && static_cast<int64_t>(lod.size()) - 1 != n)
      rt::fail(fmt::format("sequence_concat: X[{}] has {} sequences, X[0] has {}", k, lod.size() - 1, n));
    n = static_cast<int64_t>(lod.size()) - 1;
    if (x[k]->dtype() != x[0]->dtype() || x[k]->rank() != x[0]->rank() || row_bytes(*x[k]) != row_bytes(*x[0]))
      rt::fail(fmt::format("sequence_concat: X[{}] {} {} does not match X[0] {} {} beyond the row axis", k,
                           rt::dtype_name(x[k]->dtype()), x[k]->shape().str(), rt::dtype_name(x[0]->dtype()),
                           x[0]->shape().str()));
    rows += x[k]->dim(0);
  }
  for (int k = 0; k < nx; ++k)
    if (x[k] == &out) rt::fail("sequence_concat: Out may not be one of its inputs");
  Shape s = x[0]->shape();
  s[0] = rows;
  out.resize(s, x[0]->dtype());
  const size_t row = row_bytes(*x[0]);
  char* dst = static_cast<char*>(out.raw());
  std::vector<uint64_t>& olod = (out.mutable_lod().resize(1), out.mutable_lod()[0]);
  olod.assign(1, 0);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    for (int k = 0; k < nx; ++k) {
      const auto& lod = x[k]->lod()->back();
      const size_t bytes = (lod[i + 1] - lod[i]) * row;
      if (bytes) std::memcpy(dst, static_cast<const char*>(x[k]->raw()) + lod[i] * row, bytes);
      dst += bytes;
      len += lod[i + 1] - lod[i];
    }
    olod.push_back(olod.back() + len);
  }
}

void sequence_concat_grad(const Tensor* const* x, int nx, const Tensor& out_grad, Tensor* const* x_grad, int ngrad) {
  require_init("sequence_concat_grad", "Out@GRAD", out_grad);
  if (ngrad != nx) rt::fail(fmt::format("sequence_concat_grad: {} inputs but {} gradients", nx, ngrad));
  const int64_t n = static_cast<int64_t>(rt::last_lod_level(*x[0], "sequence_concat_grad", "X").size()) - 1;
  int64_t rows = 0;
  for (int k = 0; k < nx; ++k) {
    if (static_cast<int64_t>(rt::last_lod_level(*x[k], "sequence_concat_grad", "X").size()) - 1 != n)
      rt::fail(fmt::format("sequence_concat_grad: X[{}] and X[0] differ in sequences", k));
    rows += x[k]->dim(0);
  }
  if (out_grad.rank() == 0 || out_grad.dim(0) != rows)
    rt::fail(fmt::format("sequence_concat_grad: Out@GRAD {} does not have the inputs' {} rows", out_grad.shape().str(),
                         rows));
  const size_t row = row_bytes(out_grad);
  for (int k = 0; k < nx; ++k) {
    if (!x_grad[k]) continue;
    if (x_grad[k] == &out_grad) rt::fail("sequence_concat_grad: X@GRAD may not be Out@GRAD");
    x_grad[k]->resize(x[k]->shape(), out_grad.dtype());
    if (row_bytes(*x_grad[k]) != row)
      rt::fail(fmt::format("sequence_concat_grad: Out@GRAD {} does not match X[{}] {}", out_grad.shape().str(), k,
                           x[k]->shape().str()));
  }
  const char* src = static_cast<const char*>(out_grad.raw());
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < nx; ++k) {
      const auto& lod = x[k]->lod()->back();
      const size_t bytes = (lod[i + 1] - lod[i]) * row;
      if (x_grad[k] && bytes) std::memcpy(static_cast<char*>(x_grad[k]->raw()) + lod[i] * row, src, bytes);
      src += bytes;
    }
}

}  // namespace fluidc::kernels
