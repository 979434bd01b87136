// kernels/cpu/sequence_slice_reshape.cc - sequence_slice (a window of each sequence) and sequence_reshape (new row width), with gradients.
#include <cstring>

#include "kernels/cpu/sequence_legacy_util.h"
#include "kernels/sequence_legacy.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The first row of each slice in X, checked against its sequence (Paddle's rules); `out_off` gets Out's offsets.
std::vector<int64_t> slice_starts(const char* op, const Tensor& x, const Tensor& offset, const Tensor& length,
                                  std::vector<uint64_t>& out_off) {
  const std::vector<uint64_t>& off = one_lod_level(x, op, "X");
  const int64_t n = static_cast<int64_t>(off.size()) - 1;
  const int64_t* o = int64_values(op, "Offset", offset, n);
  const int64_t* l = int64_values(op, "Length", length, n);
  std::vector<int64_t> starts(static_cast<size_t>(n));
  out_off.assign(1, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t seq_len = static_cast<int64_t>(off[i + 1] - off[i]);
    if (o[i] < 0 || l[i] < 0)
      rt::fail(fmt::format("{}: Offset[{}] = {} and Length[{}] = {} must not be negative", op, i, o[i], i, l[i]));
    if (o[i] > seq_len || l[i] > seq_len - o[i])
      rt::fail(fmt::format("{}: rows [{}, {}) of sequence {} run past its {} rows", op, o[i], o[i] + l[i], i, seq_len));
    starts[static_cast<size_t>(i)] = static_cast<int64_t>(off[i]) + o[i];
    out_off.push_back(out_off.back() + static_cast<uint64_t>(l[i]));
  }
  return starts;
}

// Out's offsets for sequence_reshape: each length * width / new_dim.
std::vector<uint64_t> reshaped_offsets(const char* op, const Tensor& x, int new_dim) {
  const std::vector<uint64_t>& off = one_lod_level(x, op, "X");
  if (x.rank() != 2) rt::fail(fmt::format("{}: X must be 2-D [rows, width], got {}", op, x.shape().str()));
  if (new_dim < 1) rt::fail(fmt::format("{}: new_dim must be at least 1, got {}", op, new_dim));
  const uint64_t width = static_cast<uint64_t>(x.dim(1));
  std::vector<uint64_t> out(1, 0);
  for (size_t i = 0; i + 1 < off.size(); ++i) {
    const uint64_t values = (off[i + 1] - off[i]) * width;
    if (values % static_cast<uint64_t>(new_dim))
      rt::fail(fmt::format("{}: sequence {} holds {} values, not a multiple of new_dim {}", op, i, values, new_dim));
    out.push_back(out.back() + values / static_cast<uint64_t>(new_dim));
  }
  return out;
}

}  // namespace

void sequence_slice(const Tensor& x, const Tensor& offset, const Tensor& length, Tensor& out) {
  require_init("sequence_slice", "X", x);
  std::vector<uint64_t> out_off;
  const std::vector<int64_t> starts = slice_starts("sequence_slice", x, offset, length, out_off);
  Shape s = x.shape();
  s[0] = static_cast<int64_t>(out_off.back());
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &offset, &length}));
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  const size_t row = row_bytes(x);
  for (size_t i = 0; i < starts.size(); ++i)
    if (const size_t bytes = (out_off[i + 1] - out_off[i]) * row)
      std::memcpy(static_cast<char*>(o.raw()) + out_off[i] * row,
                  static_cast<const char*>(x.raw()) + static_cast<size_t>(starts[i]) * row, bytes);
  buf.finish();
  out.mutable_lod().assign(1, std::move(out_off));
}

void sequence_slice_grad(const Tensor& x, const Tensor& offset, const Tensor& length, const Tensor& out_grad,
                         Tensor* x_grad) {
  if (!x_grad) return;
  require_init("sequence_slice_grad", "Out@GRAD", out_grad);
  std::vector<uint64_t> out_off;
  const std::vector<int64_t> starts = slice_starts("sequence_slice_grad", x, offset, length, out_off);
  const int64_t width = x.dim(0) ? x.numel() / x.dim(0) : prod(x.shape(), 1, x.rank());
  if (out_grad.numel() != static_cast<int64_t>(out_off.back()) * width)
    rt::fail(fmt::format("sequence_slice_grad: Out@GRAD {} must hold the {} sliced rows of X {}",
                         out_grad.shape().str(), out_off.back(), x.shape().str()));
  visit_float("sequence_slice_grad", "Out@GRAD", out_grad.dtype(), [](auto) {});
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &offset, &length, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  g.zero();
  const size_t row = static_cast<size_t>(width) * rt::dtype_size(out_grad.dtype());
  for (size_t i = 0; i < starts.size(); ++i)
    if (const size_t bytes = (out_off[i + 1] - out_off[i]) * row)
      std::memcpy(static_cast<char*>(g.raw()) + static_cast<size_t>(starts[i]) * row,
                  static_cast<const char*>(out_grad.raw()) + out_off[i] * row, bytes);
  buf.finish();
}

void sequence_reshape(const Tensor& x, Tensor& out, const SequenceReshapeAttrs& a) {
  require_init("sequence_reshape", "X", x);
  std::vector<uint64_t> off = reshaped_offsets("sequence_reshape", x, a.new_dim);
  // The values do not move: a copy under the new shape (in place when Out is X).
  if (&out != &x) out.copy_from(x);
  out.resize(Shape{static_cast<int64_t>(off.back()), a.new_dim});
  out.mutable_lod().assign(1, std::move(off));
}

void sequence_reshape_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SequenceReshapeAttrs& a) {
  if (!x_grad) return;
  require_init("sequence_reshape_grad", "Out@GRAD", out_grad);
  reshaped_offsets("sequence_reshape_grad", x, a.new_dim);
  if (out_grad.numel() != x.numel())
    rt::fail(fmt::format("sequence_reshape_grad: Out@GRAD {} must hold X {}'s values", out_grad.shape().str(),
                         x.shape().str()));
  visit_float("sequence_reshape_grad", "Out@GRAD", out_grad.dtype(), [](auto) {});
  if (x_grad == &x) rt::fail("sequence_reshape_grad: X@GRAD may not be X");
  if (x_grad != &out_grad) x_grad->copy_from(out_grad);
  x_grad->resize(x.shape());
}

}  // namespace fluidc::kernels
