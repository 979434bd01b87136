// kernels/shapes/loss.h - the shape rules of softmax_with_cross_entropy and cross_entropy2, for kernels and compiler.
#pragma once

#include "kernels/loss.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// softmax_with_cross_entropy: Softmax has Logits' shape, Loss the same with
/// the (canonical) axis dim set to 1. Writes the canonical axis.
inline std::string softmax_xent_shape(const Shape& logits, const kernels::SoftmaxWithCrossEntropyAttrs& a, int& axis,
                                      Shape& loss) {
  if (logits.rank == 0) return "Logits must have rank >= 1";
  axis = a.axis < 0 ? a.axis + logits.rank : a.axis;
  if (axis < 0 || axis >= logits.rank)
    return fmt::format("axis {} is out of range for a rank-{} tensor", a.axis, logits.rank);
  loss = logits;
  loss.d[axis] = 1;
  return {};
}

/// cross_entropy2: Y and MatchX are X with its last dim set to 1; XShape
/// records X's dims followed by a 0 (Paddle 2.6's layout), so it holds no data.
inline std::string cross_entropy2_shape(const Shape& x, Shape& y, Shape& xshape) {
  if (x.rank < 1 || x.rank > Shape::kMaxRank - 1) return fmt::format("X {} must have rank 1..8", x.str());
  y = x;
  y.d[x.rank - 1] = 1;
  xshape = x;
  xshape.d[xshape.rank++] = 0;
  return {};
}

/// cross_entropy_grad2: X's shape from the XShape record above.
inline std::string x_from_cross_entropy2_xshape(const Shape& xshape, Shape& x) {
  if (xshape.rank < 2) return fmt::format("XShape {} must have rank >= 2 ([X dims..., 0])", xshape.str());
  x = Shape::from(xshape.d, xshape.rank - 1);
  return {};
}

/// label_smooth: Out is shaped like X (rank >= 1); PriorDist, when given,
/// holds one value per class (X's last dim).
inline std::string label_smooth_shape(const Shape& x, const Shape* prior) {
  if (x.rank == 0) return "X must have rank >= 1";
  const int64_t c = x.d[x.rank - 1];
  if (prior && prior->numel() >= 0 && c >= 0 && prior->numel() != c)
    return fmt::format("PriorDist {} does not hold one value per class of X {}", prior->str(), x.str());
  return {};
}

}  // namespace fluidc::shapes
