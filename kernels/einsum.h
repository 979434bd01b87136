// kernels/einsum.h - einsum (Paddle's op for paddle.einsum) and its gradient.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `einsum`: the equation, e.g. "bij,bjk->bik". Labels are
/// letters; a label repeated within one operand takes its diagonal; labels
/// missing from the output are summed; "..." stands for broadcast dims
/// (aligned at the right, as numpy does); without "->" the output is the
/// broadcast dims followed by the labels used once, in alphabetical order.
/// Parsed by kernels/shapes/einsum.h.
struct EinsumAttrs {
  std::string equation;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("equation", &EinsumAttrs::equation, kRequiredAttr);
  }
};

/// Out = the einsum of the n Operands (fp32 or fp64). XShape[i], when
/// given, receives a copy of Operands[i]: Paddle's einsum_grad reads the
/// operands from there. InnerCache (Paddle's cache of transposed operands)
/// is not used.
void einsum(const Tensor* const* operands, int n, Tensor& out, Tensor* const* inner_cache, int num_cache,
            Tensor* const* x_shape, int num_x_shape, const EinsumAttrs& attrs);
/// Operands@GRAD[i] (nullptr entries unwanted) from the operands (Paddle's
/// x_shape input) and Out@GRAD.
void einsum_grad(const Tensor* const* x_shape, int n, const Tensor* const* inner_cache, int num_cache,
                 const Tensor& out_grad, Tensor* const* operands_grad, int num_grads, const EinsumAttrs& attrs);

}  // namespace fluidc::kernels
