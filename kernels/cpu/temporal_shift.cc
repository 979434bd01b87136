// kernels/cpu/temporal_shift.cc - temporal_shift (TSM: channel bands taken from the previous and next frame) and its gradient.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy.h"
#include "kernels/vision_legacy.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Copies, for every destination element, the element of `src` it comes
// from, or zero. Forward: dst = Out, a destination in frame t channel c
// reads frame t + shift(c). Gradient (`reverse`): dst = X@GRAD, which
// reads Out@GRAD at frame t - shift(c) (the move undone).
void shift(const char* op, const Tensor& src, Tensor& dst_t, const TemporalShiftAttrs& a, bool reverse) {
  bool last = false;
  require_rule(op, shapes::temporal_shift_check(src.shape(), a, last));
  const Shape& s = src.shape();
  const int64_t T = a.seg_num, N = s[0] / T;
  const int64_t C = last ? s[3] : s[1], HW = last ? s[1] * s[2] : s[2] * s[3];
  const int64_t c1 = static_cast<int64_t>(static_cast<float>(C) * a.shift_ratio);
  const int64_t c2 = static_cast<int64_t>(static_cast<float>(C) * 2.0f * a.shift_ratio);
  const size_t es = rt::dtype_size(src.dtype());
  // Each element is read from another frame: Out bound to X goes through scratch.
  OutBuf ob(&dst_t, Slot::kOut0, &dst_t == &src);
  ob.get().resize(s, src.dtype());
  const char* in = static_cast<const char*>(src.raw());
  char* out = static_cast<char*>(ob.get().raw());
  // Element (frame f, channel c, position p) of sample n.
  auto at = [&](int64_t n, int64_t f, int64_t c, int64_t p) {
    const int64_t img = n * T + f;
    return static_cast<size_t>(last ? (img * HW + p) * C + c : (img * C + c) * HW + p) * es;
  };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c) {
        int64_t d = c < c1 ? -1 : c < c2 ? 1 : 0;
        if (reverse) d = -d;
        const int64_t f = t + d;
        for (int64_t p = 0; p < HW; ++p) {
          if (f < 0 || f >= T) std::memset(out + at(n, t, c, p), 0, es);
          else std::memcpy(out + at(n, t, c, p), in + at(n, f, c, p), es);
        }
      }
  ob.finish();
}

}  // namespace

void temporal_shift(const Tensor& x, Tensor& out, const TemporalShiftAttrs& attrs) {
  require_init("temporal_shift", "X", x);
  shift("temporal_shift", x, out, attrs, false);
}

void temporal_shift_grad(const Tensor& out_grad, Tensor* x_grad, const TemporalShiftAttrs& attrs) {
  if (!x_grad) return;
  require_init("temporal_shift_grad", "Out@GRAD", out_grad);
  shift("temporal_shift_grad", out_grad, *x_grad, attrs, true);
}

}  // namespace fluidc::kernels
