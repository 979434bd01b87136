// kernels/cpu/sequence_expand.cc - sequence_expand and its gradient: X's sequences (or rows) repeated by Y's LoD at ref_level.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/sequence.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Where X's unit i lies ([x_off[i], x_off[i+1]) rows) and how often Y repeats it.
struct ExpandPlan {
  const std::vector<uint64_t>* repeats = nullptr;  ///< Y's offsets at ref_level
  const std::vector<uint64_t>* x_off = nullptr;    ///< X's offsets, or nullptr: unit i is row i
  int64_t units = 0;
  uint64_t begin(int64_t i) const { return x_off ? (*x_off)[i] : static_cast<uint64_t>(i); }
  uint64_t end(int64_t i) const { return x_off ? (*x_off)[i + 1] : static_cast<uint64_t>(i + 1); }
  uint64_t times(int64_t i) const { return (*repeats)[i + 1] - (*repeats)[i]; }
};

ExpandPlan plan(const char* op, const Tensor& x, const Tensor& y, const SequenceExpandAttrs& a) {
  rt::last_lod_level(y, op, "Y");  // checks Y has a LoD
  const rt::Lod& ylod = *y.lod();
  const int ref = a.ref_level == -1 ? static_cast<int>(ylod.size()) - 1 : a.ref_level;
  if (ref < 0 || ref >= static_cast<int>(ylod.size()))
    rt::fail(fmt::format("{}: ref_level {} is outside Y's {} LoD levels", op, a.ref_level, ylod.size()));
  ExpandPlan p;
  p.repeats = &ylod[ref];
  p.units = static_cast<int64_t>(p.repeats->size()) - 1;
  if (x.rank() == 0) rt::fail(fmt::format("{}: X needs a row axis", op));
  if (const rt::Lod* xl = x.lod()) {
    if (xl->size() != 1) rt::fail(fmt::format("{}: X may have one LoD level at most, got {}", op, xl->size()));
    p.x_off = &(*xl)[0];
    if (static_cast<int64_t>(p.x_off->size()) - 1 != p.units)
      rt::fail(fmt::format("{}: X has {} sequences but Y's level {} has {}", op, p.x_off->size() - 1, ref, p.units));
  } else if (x.dim(0) != p.units) {
    rt::fail(fmt::format("{}: X has {} rows but Y's level {} has {} sequences", op, x.dim(0), ref, p.units));
  }
  return p;
}

}  // namespace

void sequence_expand(const Tensor& x, const Tensor& y, Tensor& out, const SequenceExpandAttrs& a) {
  require_init("sequence_expand", "X", x);
  if (&out == &x || &out == &y) rt::fail("sequence_expand: Out may not be X or Y");
  const ExpandPlan p = plan("sequence_expand", x, y, a);
  int64_t rows = 0;
  for (int64_t i = 0; i < p.units; ++i) rows += static_cast<int64_t>((p.end(i) - p.begin(i)) * p.times(i));
  Shape s = x.shape();
  s[0] = rows;
  out.resize(s, x.dtype());
  const size_t row = row_bytes(x);
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  std::vector<uint64_t>* olod = nullptr;
  if (p.x_off) {
    rt::Lod& l = out.mutable_lod();
    l.resize(1);
    olod = &l[0];
    olod->assign(1, 0);
  } else {
    out.clear_lod();
  }
  for (int64_t i = 0; i < p.units; ++i) {
    const size_t bytes = (p.end(i) - p.begin(i)) * row;
    for (uint64_t k = 0; k < p.times(i); ++k) {
      if (bytes) std::memcpy(dst, src + p.begin(i) * row, bytes);
      dst += bytes;
      if (olod) olod->push_back(olod->back() + (p.end(i) - p.begin(i)));
    }
  }
}

void sequence_expand_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          const SequenceExpandAttrs& a) {
  if (!x_grad) return;
  require_init("sequence_expand_grad", "Out@GRAD", out_grad);
  const ExpandPlan p = plan("sequence_expand_grad", x, y, a);
  const int64_t width = x.dim(0) ? x.numel() / x.dim(0) : 0;
  int64_t rows = 0;
  for (int64_t i = 0; i < p.units; ++i) rows += static_cast<int64_t>((p.end(i) - p.begin(i)) * p.times(i));
  if (out_grad.numel() != rows * width)
    rt::fail(fmt::format("sequence_expand_grad: Out@GRAD {} does not match X {} expanded to {} rows",
                         out_grad.shape().str(), x.shape().str(), rows));
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &y, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float("sequence_expand_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* dy = out_grad.data<T>();
    T* gd = g.data<T>();
    std::fill(gd, gd + g.numel(), T(0));
    for (int64_t i = 0; i < p.units; ++i)
      for (uint64_t k = 0; k < p.times(i); ++k)
        for (uint64_t r = p.begin(i); r < p.end(i); ++r, dy += width)
          for (int64_t j = 0; j < width; ++j) gd[r * width + j] += dy[j];
  });
  buf.finish();
}

}  // namespace fluidc::kernels
