// kernels/cpu/sequence_pad.cc - sequence_pad / sequence_unpad (LoD sequences to a padded batch and back) and their gradients.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/sequence_legacy_util.h"
#include "kernels/sequence_legacy.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Elements per step (X dims from `from` on).
int64_t step_numel(const Tensor& t, int from) { return prod(t.shape(), from, t.rank()); }

// Checks a padded tensor `p` is [sequences, L, step...] with each length <= L; returns L.
int64_t padded_steps(const char* op, const char* slot, const Tensor& p, int64_t sequences, int64_t step,
                     int64_t longest) {
  if (p.rank() < 2 || p.dim(0) != sequences || p.numel() != sequences * p.dim(1) * step)
    rt::fail(fmt::format("{}: {} {} must be [{} sequences, steps, {} values per step]", op, slot, p.shape().str(),
                         sequences, step));
  if (p.dim(1) < longest)
    rt::fail(fmt::format("{}: {} has {} steps but a sequence is {} long", op, slot, p.dim(1), longest));
  return p.dim(1);
}

// Copies `rows` rows of `row` bytes for each sequence i between the packed
// layout (offsets `off`) and the padded one (`steps` rows per sequence).
void move_sequences(const std::vector<uint64_t>& off, int64_t steps, size_t row, const char* from, char* to,
                    bool to_padded) {
  for (size_t i = 0; i + 1 < off.size(); ++i) {
    const size_t bytes = (off[i + 1] - off[i]) * row;
    const size_t packed = off[i] * row, padded = i * static_cast<size_t>(steps) * row;
    if (bytes) std::memcpy(to + (to_padded ? padded : packed), from + (to_padded ? packed : padded), bytes);
  }
}

uint64_t longest(const std::vector<uint64_t>& off) {
  uint64_t m = 0;
  for (size_t i = 0; i + 1 < off.size(); ++i) m = std::max(m, off[i + 1] - off[i]);
  return m;
}

}  // namespace

void sequence_pad(const Tensor& x, const Tensor& pad_value, Tensor& out, Tensor& length, const SequencePadAttrs& a) {
  require_init("sequence_pad", "X", x);
  require_init("sequence_pad", "PadValue", pad_value);
  const std::vector<uint64_t>& off = one_lod_level(x, "sequence_pad", "X");
  if (x.rank() < 2 || x.rank() + 1 > rt::Shape::kMaxRank)
    rt::fail(fmt::format("sequence_pad: X must have rank 2 to {}, got {}", rt::Shape::kMaxRank - 1, x.shape().str()));
  require_same_dtype("sequence_pad", "PadValue", pad_value, "X", x);
  const int64_t step = step_numel(x, 1), n = static_cast<int64_t>(off.size()) - 1;
  if (pad_value.numel() != 1 && pad_value.numel() != step)
    rt::fail(fmt::format("sequence_pad: PadValue {} must hold one value or one step of X ({} values)",
                         pad_value.shape().str(), step));
  const int64_t max_len = static_cast<int64_t>(longest(off));
  if (a.padded_length != -1 && a.padded_length < max_len)
    rt::fail(fmt::format("sequence_pad: padded_length {} is shorter than the longest sequence ({}); -1 pads to it",
                         a.padded_length, max_len));
  const int64_t steps = a.padded_length == -1 ? max_len : a.padded_length;
  if (&length == &x || &length == &pad_value || &length == &out)
    rt::fail("sequence_pad: Length may not be X, PadValue or Out");
  Shape s;
  s.rank = x.rank() + 1;
  s[0] = n;
  s[1] = steps;
  for (int d = 1; d < x.rank(); ++d) s[d + 1] = x.dim(d);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &pad_value}));
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  // Every step starts as the pad value; the sequences' rows then go over it.
  const size_t elem = rt::dtype_size(x.dtype()), row = static_cast<size_t>(step) * elem;
  char* dst = static_cast<char*>(o.raw());
  const char* pv = static_cast<const char*>(pad_value.raw());
  for (int64_t r = 0; r < n * steps; ++r) {
    if (pad_value.numel() == step) {
      if (row) std::memcpy(dst + r * row, pv, row);
    } else {
      for (int64_t j = 0; j < step; ++j) std::memcpy(dst + r * row + j * elem, pv, elem);
    }
  }
  move_sequences(off, steps, row, static_cast<const char*>(x.raw()), dst, true);
  buf.finish();
  out.clear_lod();
  length.resize(Shape{n}, DType::kInt64);
  for (int64_t i = 0; i < n; ++i) length.data<int64_t>()[i] = static_cast<int64_t>(off[i + 1] - off[i]);
  length.clear_lod();
}

void sequence_pad_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SequencePadAttrs&) {
  if (!x_grad) return;
  require_init("sequence_pad_grad", "Out@GRAD", out_grad);
  const std::vector<uint64_t>& off = one_lod_level(x, "sequence_pad_grad", "X");
  const int64_t step = x.rank() ? step_numel(x, 1) : 0, n = static_cast<int64_t>(off.size()) - 1;
  const int64_t steps =
      padded_steps("sequence_pad_grad", "Out@GRAD", out_grad, n, step, static_cast<int64_t>(longest(off)));
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float("sequence_pad_grad", "Out@GRAD", out_grad.dtype(), [](auto) {});
  const size_t row = static_cast<size_t>(step) * rt::dtype_size(out_grad.dtype());
  move_sequences(off, steps, row, static_cast<const char*>(out_grad.raw()), static_cast<char*>(g.raw()), false);
  buf.finish();
}

void sequence_unpad(const Tensor& x, const Tensor& length, Tensor& out) {
  require_init("sequence_unpad", "X", x);
  if (x.rank() < 2) rt::fail(fmt::format("sequence_unpad: X must be [sequences, steps, ...], got {}", x.shape().str()));
  const int64_t n = x.dim(0), steps = x.dim(1), step = step_numel(x, 2);
  const int64_t* len = int64_values("sequence_unpad", "Length", length, n);
  std::vector<uint64_t> off(1, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (len[i] < 0 || len[i] > steps)
      rt::fail(fmt::format("sequence_unpad: Length[{}] = {} is outside [0, {}] (X's steps)", i, len[i], steps));
    off.push_back(off.back() + static_cast<uint64_t>(len[i]));
  }
  Shape s;
  s.rank = std::max(2, x.rank() - 1);  // Paddle keeps a 2-D X's result 2-D: [rows, 1]
  s[0] = static_cast<int64_t>(off.back());
  if (x.rank() == 2) s[1] = 1;
  for (int d = 2; d < x.rank(); ++d) s[d - 1] = x.dim(d);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &length}));
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  move_sequences(off, steps, static_cast<size_t>(step) * rt::dtype_size(x.dtype()), static_cast<const char*>(x.raw()),
                 static_cast<char*>(o.raw()), false);
  buf.finish();
  rt::Lod& lod = out.mutable_lod();
  lod.assign(1, std::move(off));
}

void sequence_unpad_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  if (!x_grad) return;
  require_init("sequence_unpad_grad", "Out@GRAD", out_grad);
  if (!out_grad.lod())
    rt::fail("sequence_unpad_grad: Out@GRAD has no LoD; Paddle's grad op reads the sequence lengths from it "
             "(it shares Out's)");
  const std::vector<uint64_t>& off = one_lod_level(out_grad, "sequence_unpad_grad", "Out@GRAD");
  if (x.rank() < 2 || x.dim(0) != static_cast<int64_t>(off.size()) - 1)
    rt::fail(fmt::format("sequence_unpad_grad: X {} must have one row per sequence of Out@GRAD ({})",
                         x.shape().str(), off.size() - 1));
  const int64_t step = step_numel(x, 2);
  padded_steps("sequence_unpad_grad", "X", x, x.dim(0), step, static_cast<int64_t>(longest(off)));
  if (out_grad.numel() != static_cast<int64_t>(off.back()) * step)
    rt::fail(fmt::format("sequence_unpad_grad: Out@GRAD {} must hold {} steps of {} values",
                         out_grad.shape().str(), off.back(), step));
  visit_float("sequence_unpad_grad", "Out@GRAD", out_grad.dtype(), [](auto) {});
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  g.zero();
  move_sequences(off, x.dim(1), static_cast<size_t>(step) * rt::dtype_size(out_grad.dtype()),
                 static_cast<const char*>(out_grad.raw()), static_cast<char*>(g.raw()), true);
  buf.finish();
}

}  // namespace fluidc::kernels
