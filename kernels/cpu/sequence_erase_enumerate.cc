// kernels/cpu/sequence_erase_enumerate.cc - the id-sequence ops without gradients: sequence_erase (drop tokens) and sequence_enumerate (id windows).
#include <algorithm>

#include "kernels/cpu/sequence_legacy_util.h"
#include "kernels/sequence_legacy.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Calls f(I{}) for the id dtypes Paddle registers these kernels for.
template <class F>
void visit_ids(const char* op, const Tensor& x, F&& f) {
  switch (x.dtype()) {
    case DType::kInt32: f(int32_t{}); return;
    case DType::kInt64: f(int64_t{}); return;
    default: rt::fail(fmt::format("{}: X must hold int32 or int64 ids, got {}", op, rt::dtype_name(x.dtype())));
  }
}

void require_id_column(const char* op, const Tensor& x) {
  if (x.rank() != 2 || x.dim(1) != 1)
    rt::fail(fmt::format("{}: X must be [rows, 1] (one id per row), got {}", op, x.shape().str()));
}

}  // namespace

void sequence_erase(const Tensor& x, Tensor& out, const SequenceEraseAttrs& a) {
  require_init("sequence_erase", "X", x);
  require_id_column("sequence_erase", x);
  const std::vector<uint64_t>& off = rt::last_lod_level(x, "sequence_erase", "X");
  std::vector<int64_t> tokens(a.tokens.begin(), a.tokens.end());
  std::sort(tokens.begin(), tokens.end());
  rt::Lod lod = *x.lod();  // outer levels count sequences, which stay; the last one shrinks
  std::vector<uint64_t>& last = lod.back();
  auto erased = [&](int64_t id) { return std::binary_search(tokens.begin(), tokens.end(), id); };
  uint64_t kept = 0;
  visit_ids("sequence_erase", x, [&](auto tag) {
    const auto* xd = x.data<decltype(tag)>();
    for (size_t i = 0; i + 1 < off.size(); ++i) {
      for (uint64_t r = off[i]; r < off[i + 1]; ++r) kept += !erased(static_cast<int64_t>(xd[r]));
      last[i + 1] = kept;
    }
  });
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  o.resize(Shape{static_cast<int64_t>(kept), 1}, x.dtype());
  visit_ids("sequence_erase", x, [&](auto tag) {
    using I = decltype(tag);
    const I* xd = x.data<I>();
    I* od = o.data<I>();
    for (int64_t r = 0; r < x.dim(0); ++r)
      if (!erased(static_cast<int64_t>(xd[r]))) *od++ = xd[r];
  });
  buf.finish();
  out.mutable_lod() = std::move(lod);
}

void sequence_enumerate(const Tensor& x, Tensor& out, const SequenceEnumerateAttrs& a) {
  require_init("sequence_enumerate", "X", x);
  require_id_column("sequence_enumerate", x);
  const std::vector<uint64_t>& off = one_lod_level(x, "sequence_enumerate", "X");
  if (a.win_size < 2) rt::fail(fmt::format("sequence_enumerate: win_size must be at least 2, got {}", a.win_size));
  const int64_t w = a.win_size;
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  o.resize(Shape{x.dim(0), w}, x.dtype());
  visit_ids("sequence_enumerate", x, [&](auto tag) {
    using I = decltype(tag);
    const I* xd = x.data<I>();
    I* od = o.data<I>();
    for (size_t i = 0; i + 1 < off.size(); ++i)
      for (uint64_t r = off[i]; r < off[i + 1]; ++r)
        for (uint64_t k = 0; k < static_cast<uint64_t>(w); ++k)
          od[r * w + k] = r + k < off[i + 1] ? xd[r + k] : static_cast<I>(a.pad_value);
  });
  buf.finish();
  out.share_lod(x);
}

}  // namespace fluidc::kernels
