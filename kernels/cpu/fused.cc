// kernels/cpu/fused.cc - plan_fused: the run-time check behind the generator's fused elementwise loops.
#include "kernels/fused.h"

namespace fluidc::kernels {

FusedPlan plan_fused(const Tensor& x, DType dt, std::initializer_list<FusedOperand> operands, Tensor& out) {
  FusedPlan none;
  if (!x.initialized() || x.dtype() != dt) return none;
  const rt::Shape& xs = x.shape();
  FusedPlan p;
  p.n = xs.numel();
  bool have_row = false;
  for (const FusedOperand& o : operands) {
    const Tensor& y = *o.tensor;
    if (!y.initialized() || y.dtype() != dt) return none;
    const rt::Shape& ys = y.shape();
    if (o.kind == Bcast::kFull) {
      if (ys != xs) return none;
      continue;
    }
    if (&y == &out) return none;  // resizing out would destroy it
    if (o.kind == Bcast::kScalar) {
      if (ys.numel() != 1 || ys.rank > xs.rank) return none;
      continue;
    }
    if (ys.rank > xs.rank) return none;
    // X's dims [axis, axis + len) are Y's dims [axis - shift, ...): a lower-rank Y by Paddle's axis rule,
    // or a same-rank Y of ones around one run of X's dims ([N, C, 1, 1], [1, C, 1, 1]).
    int axis = 0, len = ys.rank, shift = 0;
    if (ys.rank == xs.rank) {
      while (axis < len && ys.d[axis] == 1) ++axis;
      while (len > axis && ys.d[len - 1] == 1) --len;
      len -= axis;
    } else {
      axis = shift = o.axis == -1 ? xs.rank - ys.rank : o.axis;
      if (axis < 0 || axis + ys.rank > xs.rank) return none;
    }
    FusedPlan r;
    r.n = 1;
    for (int i = 0; i < xs.rank; ++i) {
      int64_t& part = i < axis ? r.pre : i < axis + len ? r.n : r.post;
      if (i >= axis && i < axis + len && ys.d[i - shift] != xs.d[i]) return none;
      part *= xs.d[i];
    }
    if (have_row && (r.pre != p.pre || r.n != p.n || r.post != p.post)) return none;
    p.pre = r.pre, p.n = r.n, p.post = r.post;
    have_row = true;
  }
  out.resize(xs, dt);
  p.ok = true;
  return p;
}

}  // namespace fluidc::kernels
