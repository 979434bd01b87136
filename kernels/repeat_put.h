// kernels/repeat_put.h - repeat_interleave and put_along_axis with their gradients.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `repeat_interleave` and its gradient: every slice of X
/// along `dim` (negative from the end) repeated `Repeats` times, unless a
/// RepeatsTensor gives a count per slice.
struct RepeatInterleaveAttrs {
  int Repeats = 1;
  int dim = 0;
  template <class F>
  static void fields(F&& f) {
    f("Repeats", &RepeatInterleaveAttrs::Repeats);
    f("dim", &RepeatInterleaveAttrs::dim);
  }
};
/// Out: X with slice j of `dim` repeated RepeatsTensor[j] times (int32 or
/// int64 [X dim], counts >= 0; Out's dim is their sum, known only at run
/// time), or Repeats times when RepeatsTensor is null. fp32, fp64, int32, int64.
void repeat_interleave(const Tensor& x, const Tensor* repeats, Tensor& out, const RepeatInterleaveAttrs& attrs);
/// X@GRAD: each slice's gradient is the sum of its copies' Out@GRAD.
void repeat_interleave_grad(const Tensor& x, const Tensor* repeats, const Tensor& out_grad, Tensor* x_grad,
                            const RepeatInterleaveAttrs& attrs);

/// Attributes of `put_along_axis` and its gradient. Reduce: assign, add,
/// mul or multiply; Include_self false starts each written element from
/// nothing (the first value put) instead of Input's element.
struct PutAlongAxisAttrs {
  int Axis = 0;
  std::string Reduce = "assign";
  bool Include_self = true;
  template <class F>
  static void fields(F&& f) {
    f("Axis", &PutAlongAxisAttrs::Axis);
    f("Reduce", &PutAlongAxisAttrs::Reduce);
    f("Include_self", &PutAlongAxisAttrs::Include_self);
  }
};
/// Result = Input, then for every position p of Index (int32/int64, Input's
/// rank, each dim at most Input's; Value of Index's shape), Result at p with
/// its Axis coordinate replaced by Index[p] is combined with Value[p] by
/// Reduce, in row-major order of p (so the last of repeated assigns wins).
void put_along_axis(const Tensor& input, const Tensor& index, const Tensor& value, Tensor& result,
                    const PutAlongAxisAttrs& attrs);
/// Input@GRAD: Result@GRAD where nothing was put; at written elements 0
/// (assign, or Include_self false), Result@GRAD (add), Result@GRAD times
/// the values multiplied in (mul). Value@GRAD[p]: Result@GRAD at its
/// target (add; assign only for the value that stayed there), for mul times
/// the product of every other factor of that element (no division, so a
/// zero value is no special case). Result is accepted as Paddle passes it
/// and not read.
void put_along_axis_grad(const Tensor& input, const Tensor& index, const Tensor& value, const Tensor& result,
                         const Tensor& result_grad, Tensor* input_grad, Tensor* value_grad,
                         const PutAlongAxisAttrs& attrs);

}  // namespace fluidc::kernels
