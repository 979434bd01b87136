// kernels/reduce.h - mean, reduce_sum, reduce_mean and the n-ary sum, with gradients.
//
// Reducing every dim without keep_dim gives a 0-D Out (Shape{}, rank 0), as
// in Paddle 2.6. Sums of fp32 accumulate in double, integer sums in int64.
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of reduce_sum / reduce_mean and their gradients.
/// `dim` entries may be negative (counted from the end); an empty `dim`, or
/// one naming every dim, is the same as reduce_all. in_dtype is accepted and
/// ignored (Paddle 2.6 ignores it too); out_dtype is honoured by reduce_sum.
struct ReduceAttrs {
  std::vector<int> dim = {0};
  bool keep_dim = false;
  bool reduce_all = false;
  int in_dtype = -1;
  int out_dtype = -1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("dim", &ReduceAttrs::dim);
    f("keep_dim", &ReduceAttrs::keep_dim);
    f("reduce_all", &ReduceAttrs::reduce_all);
    f("in_dtype", &ReduceAttrs::in_dtype);
    f("out_dtype", &ReduceAttrs::out_dtype);
  }
};

/// Out = mean of all elements of X, a 0-D tensor. fp32/fp64.
/// Out = [sum of X squared], shape [1] as Paddle 2.6 gives it (for clipping).
void squared_l2_norm(const Tensor& x, Tensor& out);
void mean(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD / numel(X) everywhere.
void mean_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Sum over `dim`. Out dtype: out_dtype when not -1; otherwise int64 for bool
/// and int32 inputs (Paddle 2.6's rule) and X's dtype for the rest.
/// X: bool, int32, int64, fp32, fp64.
void reduce_sum(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
/// Mean over `dim`; Out has X's dtype (integer means truncate). X: int32,
/// int64, fp32, fp64.
void reduce_mean(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
/// X@GRAD = Out@GRAD broadcast back over the reduced dims, in X's dtype.
/// Out@GRAD may have the reduced shape with or without the kept 1s.
void reduce_sum_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ReduceAttrs& attrs);
/// X@GRAD = Out@GRAD / (number of reduced elements), broadcast as above.
void reduce_mean_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ReduceAttrs& attrs);

/// The `sum` op (duplicable input X): Out = xs[0] + xs[1] + ... in order.
/// All initialized inputs must share shape and dtype; uninitialized ones
/// (never-written gradients) are skipped, as Paddle does. Out may be the
/// same object as any input. fp32, fp64, int32, int64.
void sum(const Tensor* const* xs, int n, Tensor& out);

/// Max / min / product over `dim` (ReduceAttrs' rules); Out has X's dtype.
/// X: fp32, fp64, int32, int64.
void reduce_max(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
void reduce_min(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
void reduce_prod(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
/// As Paddle: X@GRAD = Out@GRAD at every X equal to its Out (all tied
/// extrema get the full gradient), 0 elsewhere.
void reduce_max_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                     const ReduceAttrs& attrs);
void reduce_min_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                     const ReduceAttrs& attrs);
/// As Paddle: X@GRAD = Out@GRAD * Out / X (not defined at X = 0).
void reduce_prod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                      const ReduceAttrs& attrs);
/// Logical or / and over `dim`; X: bool (or numeric, nonzero is true); Out: bool.
void reduce_any(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
void reduce_all(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);

/// Attributes of `p_norm` and `p_norm_grad`.
struct PNormAttrs {
  float porder = 2.0f;
  int axis = -1;
  float epsilon = 1.0e-12f;
  bool keepdim = false;
  bool asvector = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("porder", &PNormAttrs::porder);
    f("axis", &PNormAttrs::axis);
    f("epsilon", &PNormAttrs::epsilon);
    f("keepdim", &PNormAttrs::keepdim);
    f("asvector", &PNormAttrs::asvector);
  }
};
/// Out = (sum |x|^p)^(1/p) along `axis` (every element when asvector);
/// porder inf / -inf: max / min |x|; 0: the count of nonzeros. fp32/fp64.
void p_norm(const Tensor& x, Tensor& out, const PNormAttrs& attrs);
/// X@GRAD = Out@GRAD * sign(x) |x|^(p-1) / (Out + epsilon)^(p-1); for
/// p = +-inf Out@GRAD * sign(x) where |x| equals Out; 0 for p = 0.
void p_norm_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                 const PNormAttrs& attrs);

/// frobenius_norm (paddle.linalg.norm with p='fro'): Out = sqrt(sum x^2)
/// over `dim` (ReduceAttrs), summed in double. fp32/fp64.
void frobenius_norm(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
/// X@GRAD = Out@GRAD * x / Out (NaN or inf where Out is 0, as in Paddle).
void frobenius_norm_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                         const ReduceAttrs& attrs);

/// reduce_amax / reduce_amin: Out as reduce_max / reduce_min (ReduceAttrs;
/// `dim` may come as int64s). X: fp32, fp64, int32, int64.
void reduce_amax(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
void reduce_amin(const Tensor& x, Tensor& out, const ReduceAttrs& attrs);
/// Unlike reduce_max_grad, the gradient is split evenly among tied
/// extrema: X@GRAD = Out@GRAD / (number of X equal to Out in the group)
/// where X equals Out, 0 elsewhere (as Paddle 2.6). fp32/fp64.
void reduce_amax_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                      const ReduceAttrs& attrs);
void reduce_amin_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                      const ReduceAttrs& attrs);

/// Attributes of `logsumexp` and its gradient: reduce over `axis` (default
/// {0}; empty, every dim, or reduce_all: all of them), keeping the reduced
/// dims as 1s when keepdim.
struct LogsumexpAttrs {
  std::vector<int> axis = {0};
  bool keepdim = false;
  bool reduce_all = false;

  template <class F>
  static void fields(F&& f) {
    f("axis", &LogsumexpAttrs::axis);
    f("keepdim", &LogsumexpAttrs::keepdim);
    f("reduce_all", &LogsumexpAttrs::reduce_all);
  }
};
/// Out = m + log(sum exp(X - m)) over the reduced dims, m their maximum (so
/// no exp overflows). A group whose maximum is infinite gives that infinity
/// (Paddle 2.6 gives NaN for an all -inf group). fp32/fp64.
void logsumexp(const Tensor& x, Tensor& out, const LogsumexpAttrs& attrs);
/// X@GRAD = Out@GRAD * exp(X - Out), Out broadcast back over the reduced dims.
void logsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                    const LogsumexpAttrs& attrs);

}  // namespace fluidc::kernels
