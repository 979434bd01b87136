// kernels/index_put.h - index_put (paddle.index_put: x[indices] = value, or +=) and its gradient.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `index_put`: add the value at the indexed places instead
/// of writing it (repeated places then add up).
struct IndexPutAttrs {
  bool accumulate = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("accumulate", &IndexPutAttrs::accumulate);
  }
};

/// out = x with value written (or added) at the places the indices name:
/// either k int32/int64 tensors that broadcast to one shape B, entry b
/// naming x[indices[0][b], ..., indices[k-1][b], ...] (negative indices
/// count from the end; out-of-range ones are a run-time error), or one
/// bool tensor masking x's leading dims (B = [number of true entries]).
/// value broadcasts to B followed by x's remaining dims.
void index_put(const Tensor& x, const Tensor* const* indices, int num_indices, const Tensor& value, Tensor& out,
               const IndexPutAttrs& attrs);
/// x@GRAD = out@GRAD, with the written places zeroed unless accumulate;
/// value@GRAD = out@GRAD at the places, summed onto value's dims.
void index_put_grad(const Tensor& x, const Tensor* const* indices, int num_indices, const Tensor& value,
                    const Tensor& out_grad, Tensor* x_grad, Tensor* value_grad, const IndexPutAttrs& attrs);

}  // namespace fluidc::kernels
