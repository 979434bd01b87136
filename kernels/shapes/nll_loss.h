// kernels/shapes/nll_loss.h - shape rule of nll_loss, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/nll_loss.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Out's shape: Label's for reduction none, else 0-D. X is [N, C, d...] and
/// Label [N, d...]; Weight, when given, [C].
inline std::string nll_loss_shape(const Shape& x, const Shape& label, const Shape* weight,
                                  const kernels::NllLossAttrs& a, Shape& out) {
  if (a.reduction != "none" && a.reduction != "sum" && a.reduction != "mean")
    return fmt::format("reduction '{}' is not none, sum or mean", a.reduction);
  if (x.rank < 2) return fmt::format("X {} must be [N, C] or [N, C, d...]", x.str());
  bool match = label.rank == x.rank - 1 && dims_agree(label.d[0], x.d[0]);
  for (int i = 2; match && i < x.rank; ++i) match = dims_agree(label.d[i - 1], x.d[i]);
  if (!match) return fmt::format("Label {} must be X {} without its class dim 1", label.str(), x.str());
  if (weight && (weight->rank != 1 || !dims_agree(weight->d[0], x.d[1])))
    return fmt::format("Weight {} must be [C] for X {}", weight->str(), x.str());
  out = a.reduction == "none" ? label : Shape{};
  return {};
}

}  // namespace fluidc::shapes
