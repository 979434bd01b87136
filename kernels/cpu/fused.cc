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
    const int axis = o.axis == -1 ? xs.rank - ys.rank : o.axis;
    if (ys.rank > xs.rank || axis < 0 || axis + ys.rank > xs.rank) return none;
    FusedPlan r;
    r.n = 1;
    for (int i = 0; i < xs.rank; ++i) {
      int64_t& part = i < axis ? r.pre : i < axis + ys.rank ? r.n : r.post;
      if (i >= axis && i < axis + ys.rank && ys.d[i - axis] != xs.d[i]) return none;
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
