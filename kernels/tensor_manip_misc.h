// kernels/tensor_manip_misc.h - roll, unbind and meshgrid, with gradients (unbind's is stack).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `roll` and `roll_grad`: shift k moves elements along
/// axis k (negative counts from the end) by shifts[k] places, wrapping
/// around; a repeated axis adds its shifts. Empty `axis`: X is rolled as one
/// flat sequence by shifts[0] (one shift only).
struct RollAttrs {
  std::vector<int64_t> shifts;
  std::vector<int64_t> axis;

  template <class F>
  static void fields(F&& f) {
    f("shifts", &RollAttrs::shifts);
    f("axis", &RollAttrs::axis);
  }
};
/// Out[i] = X[i - shift] along each rolled axis (indices modulo the dim).
/// ShiftsTensor (a 1-D int tensor) wins over `shifts`. Any dtype.
void roll(const Tensor& x, const Tensor* shifts_tensor, Tensor& out, const RollAttrs& attrs);
/// X@GRAD = Out@GRAD rolled back (every shift negated); X gives only the shape.
void roll_grad(const Tensor& x, const Tensor* shifts_tensor, const Tensor& out_grad, Tensor* x_grad,
               const RollAttrs& attrs);

/// Attributes of `unbind`.
struct UnbindAttrs {
  int axis = 0;

  template <class F>
  static void fields(F&& f) {
    f("axis", &UnbindAttrs::axis);
  }
};
/// Outs[i] = X's slice i along `axis`, that dim removed; there must be one
/// output per index. Any dtype. Paddle's gradient of unbind is a `stack` of
/// the Out gradients.
void unbind(const Tensor& x, Tensor* const* outs, int n, const UnbindAttrs& attrs);

/// Outs[i] = X[i] (1-D or 0-D) repeated along every other dim of the grid
/// [len(X[0]), ..., len(X[n-1])] ("ij" indexing): Outs[i][j0, .., jn-1] =
/// X[i][ji]. One Out per X. fp32, fp64, int32, int64, bool.
void meshgrid(const Tensor* const* xs, int n, Tensor* const* outs, int m);
/// X@GRAD[i] = Out@GRAD[i] summed over every dim but i; an uninitialized
/// Out@GRAD (an output nobody used) counts as zeros. Paddle names the
/// Out gradients' slot `outputs@GRAD`. fp32, fp64.
void meshgrid_grad(const Tensor* const* xs, int n, const Tensor* const* out_grads, int m, Tensor* const* x_grads,
                   int k);

}  // namespace fluidc::kernels
