// kernels/histogram.h - counting ops without gradients: bincount and histogram.
#pragma once

#include <cstdint>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `bincount`.
struct BincountAttrs {
  int minlength = 0;
  template <class F>
  static void fields(F&& f) {
    f("minlength", &BincountAttrs::minlength);
  }
};
/// paddle.bincount: X 1-D int32/int64, each >= 0 (an error otherwise). Out[v]
/// counts X's entries equal to v, or sums their Weights (X's shape), over
/// max(max(X) + 1, minlength) values. Out is int64 without Weights, the
/// Weights' dtype for fp32/fp64 ones, fp64 for integer ones (Paddle 2.6.2's
/// rule). An empty X gives an empty Out whatever minlength, as in Paddle.
void bincount(const Tensor& x, const Tensor* weights, Tensor& out, const BincountAttrs& attrs);

/// Attributes of `histogram` (Paddle 2.6.2 writes min and max as ints).
struct HistogramAttrs {
  int64_t bins = 100;
  int min = 0;
  int max = 0;
  template <class F>
  static void fields(F&& f) {
    f("bins", &HistogramAttrs::bins);
    f("min", &HistogramAttrs::min);
    f("max", &HistogramAttrs::max);
  }
};
/// paddle.histogram: Out [bins] int64 counts of X (any shape, fp32, fp64,
/// int32, int64) over `bins` equal bins of [min, max], max included; values
/// outside are not counted. min = max = 0 takes X's own range; an empty
/// range [v, v] widens to [v - 1, v + 1].
void histogram(const Tensor& x, Tensor& out, const HistogramAttrs& attrs);

}  // namespace fluidc::kernels
