// kernels/shapes/reduce.h - which dims reduce_sum / reduce_mean fold and the shapes that follow, for kernels and compiler.
#pragma once

#include "kernels/reduce.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Which dims a reduce op folds, and the shapes that follow.
struct ReducePlan {
  Shape kept;         ///< X's shape with every reduced dim set to 1
  Shape out;          ///< Out's shape (kept, or kept without the reduced dims)
  int64_t count = 1;  ///< X elements folded into each Out element (kUnknown if not known yet)
};

/// Paddle 2.6's rule: `dim` (default {0}; negative counts from the end)
/// names the reduced dims; reduce_all, an empty `dim` or one naming every
/// dim reduces all of them. Reducing a 0-D X over dim 0 or -1 is the identity.
inline std::string reduce_shape(const Shape& x, const kernels::ReduceAttrs& a, ReducePlan& p) {
  bool marked[Shape::kMaxRank] = {};
  const bool all = a.reduce_all || a.dim.empty();
  if (!all) {
    for (int d : a.dim) {
      if (x.rank == 0 && (d == 0 || d == -1)) continue;  // 0-D: its only "dim"
      const int c = d < 0 ? d + x.rank : d;
      if (c < 0 || c >= x.rank) return fmt::format("dim {} is out of range for a rank-{} X {}", d, x.rank, x.str());
      marked[c] = true;
    }
  }
  p = ReducePlan{};
  p.kept = x;
  p.out.rank = 0;
  for (int i = 0; i < x.rank; ++i) {
    if (all || marked[i]) {
      p.count = p.count < 0 || x.d[i] < 0 ? kUnknown : p.count * x.d[i];
      p.kept.d[i] = 1;
      if (a.keep_dim) p.out.d[p.out.rank++] = 1;
    } else {
      p.out.d[p.out.rank++] = x.d[i];
    }
  }
  return {};
}

/// reduce_sum's Out dtype: out_dtype when set (not -1); otherwise int64 for
/// bool and int32 X (Paddle 2.6's rule) and X's dtype for the rest.
/// reduce_mean keeps X's dtype. Codes are Paddle's (rt::DType's values).
inline int reduce_sum_dtype(int x_dtype, const kernels::ReduceAttrs& a) {
  if (a.out_dtype != -1) return a.out_dtype;
  const bool widen = x_dtype == static_cast<int>(rt::DType::kBool) || x_dtype == static_cast<int>(rt::DType::kInt32);
  return widen ? static_cast<int>(rt::DType::kInt64) : x_dtype;
}

/// p_norm as a reduce: `axis` (one dim), or every dim when asvector.
inline kernels::ReduceAttrs p_norm_as_reduce(const kernels::PNormAttrs& a) {
  kernels::ReduceAttrs r;
  r.dim = {a.axis};
  r.keep_dim = a.keepdim;
  r.reduce_all = a.asvector;
  return r;
}

/// logsumexp as a reduce: the same dims rule under its own attribute names.
inline kernels::ReduceAttrs logsumexp_as_reduce(const kernels::LogsumexpAttrs& a) {
  kernels::ReduceAttrs r;
  r.dim = a.axis;
  r.keep_dim = a.keepdim;
  r.reduce_all = a.reduce_all;
  return r;
}

}  // namespace fluidc::shapes
