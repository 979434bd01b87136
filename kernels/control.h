// kernels/control.h - what control flow needs at run time: conditions, increment, select, tensor arrays.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"
#include "runtime/tensor_array.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;
using fluidc::rt::TensorArray;

/// The value of a one-element condition (bool, or nonzero of a number), as
/// `while` and a scalar `conditional_block` test it. Throws when `cond` does
/// not hold exactly one element.
bool condition_holds(const Tensor& cond, const char* op);

/// A non-scalar `conditional_block` runs when every Cond tensor holds at
/// least one element (Paddle's rule for is_scalar_condition = false).
bool all_nonempty(const Tensor* const* conds, int n);

/// Attributes of `increment`.
struct IncrementAttrs {
  float step = 1.0f;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("step", &IncrementAttrs::step);
  }
};
/// Out = X + step for a one-element X of any numeric dtype.
void increment(const Tensor& x, Tensor& out, const IncrementAttrs& attrs);

/// Out = (X holds no element) as a 0-D bool.
void is_empty(const Tensor& x, Tensor& out);

/// Out = X[Mask] : picks one of several tensors by an int32/int64 index.
void select_input(const Tensor* const* xs, int n, const Tensor& mask, Tensor& out);
/// Out[Mask] = X : routes one tensor to one of several outputs.
void select_output(const Tensor& x, const Tensor& mask, Tensor* const* outs, int n);

/// Out[I] = X with its LoD, growing the array as needed (I is a one-element integer).
void write_to_array(const Tensor& x, const Tensor& i, TensorArray& out);
/// Out = X[I] with its LoD; an index past the end is an error.
void read_from_array(const TensorArray& x, const Tensor& i, Tensor& out);
/// Out = [len(X)] as int64 with shape [1].
void array_length(const TensorArray& x, Tensor& out);

/// Attributes of `tensor_array_to_tensor`: the axis to join along
/// (negative counts from the end: of the elements' rank, or of the result's
/// with use_stack) and whether to stack (a new axis) rather than concatenate.
struct TensorArrayToTensorAttrs {
  int axis = 0;
  bool use_stack = false;
  template <class F>
  static void fields(F&& f) {
    f("axis", &TensorArrayToTensorAttrs::axis);
    f("use_stack", &TensorArrayToTensorAttrs::use_stack);
  }
};
/// Out = the array's tensors joined along `axis` (concatenated, or stacked
/// on a new axis); OutIndex (int32, one per element) = each one's extent
/// along it (1 when stacked). The elements must agree in dtype and in every
/// other dim; an empty array is an error (Paddle's too).
void tensor_array_to_tensor(const TensorArray& x, Tensor& out, Tensor& out_index,
                            const TensorArrayToTensorAttrs& attrs);

}  // namespace fluidc::kernels
