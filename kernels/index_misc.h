// kernels/index_misc.h - linspace, cumprod, cummax/cummin, logcumsumexp, kthvalue, mode, searchsorted, scatter_nd_add and index_add, with gradients where Paddle has them.
#pragma once

#include <cstdint>

#include "kernels/attr_fields.h"
#include "kernels/index.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `linspace`: Out's dtype (Paddle's code; fp32 by default).
struct LinspaceAttrs {
  int dtype = 5;

  template <class F>
  static void fields(F&& f) {
    f("dtype", &LinspaceAttrs::dtype);
  }
};
/// Out = Num evenly spaced values from Start to Stop, both included (Start,
/// Stop, Num: one-element tensors; Num >= 1). As Paddle 2.6, the first half
/// counts up from Start and the second down from Stop by the step
/// (Stop - Start) / (Num - 1), computed in double, so both ends are exact;
/// integer dtypes truncate. Out: fp32, fp64, int32, int64.
void linspace(const Tensor& start, const Tensor& stop, const Tensor& num, Tensor& out, const LinspaceAttrs& attrs);

/// Attributes of `cumprod` and `cumprod_grad`.
struct CumprodAttrs {
  int dim = -1;

  template <class F>
  static void fields(F&& f) {
    f("dim", &CumprodAttrs::dim, kRequiredAttr);
  }
};
/// Out[.., i, ..] = X[.., 0, ..] * ... * X[.., i, ..] along `dim`. fp32, fp64, int32, int64.
void cumprod(const Tensor& x, Tensor& out, const CumprodAttrs& attrs);
/// X@GRAD[j] = sum over i >= j of Out@GRAD[i] * (the product of X[0..i]
/// without X[j]), computed without dividing by X, so zeros in X are exact.
/// Out is accepted (Paddle passes it) but not read. fp32, fp64.
void cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                  const CumprodAttrs& attrs);

/// Attributes of `cummax`, `cummin` and their gradients.
struct CumExtremeAttrs {
  int axis = -1;
  int dtype = 3;  ///< Indices' dtype, Paddle's code: 2 (int32) or 3 (int64)

  template <class F>
  static void fields(F&& f) {
    f("axis", &CumExtremeAttrs::axis);
    f("dtype", &CumExtremeAttrs::dtype);
  }
};
/// paddle.cummax / cummin: out = the running maximum (minimum) along
/// `axis`, indices = where it was taken. Paddle's rule, in order: a NaN
/// element takes over (and stays, until the next NaN takes its index);
/// otherwise an element at least as large (small) as the running value
/// does, so ties take the LATER position. A 0-D x is one value. fp32, fp64,
/// int32, int64.
void cummax(const Tensor& x, Tensor& out, Tensor& indices, const CumExtremeAttrs& attrs);
void cummin(const Tensor& x, Tensor& out, Tensor& indices, const CumExtremeAttrs& attrs);
/// x@GRAD = zeros with each out@GRAD added at its index along `axis`
/// (repeated indices add). fp32, fp64.
void cummax_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                 const CumExtremeAttrs& attrs);
void cummin_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                 const CumExtremeAttrs& attrs);

/// paddle.logcumsumexp (attributes: cumsum's, kernels/index.h): Out =
/// log(cumsum(exp(X))) along `axis`, or over all of X as 1-D with flatten,
/// each term left out of its own sum with exclusive, from the end with
/// reverse. Paddle's scan starts from the lowest finite value rather than
/// -inf, so an empty (exclusive) sum, or one of -inf terms only, is that
/// value. fp32, fp64.
void logcumsumexp(const Tensor& x, Tensor& out, const CumsumAttrs& attrs);
/// X@GRAD[j] = sum over the i whose sum holds X[j] of Out@GRAD[i] *
/// e^(X[j] - Out[i]), accumulated relative to each Out so nothing overflows.
void logcumsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                       const CumsumAttrs& attrs);

/// Attributes of `searchsorted`.
struct SearchsortedAttrs {
  bool out_int32 = false;  ///< Out int32 (else int64)
  bool right = false;      ///< the first position above each value (else at or above)

  template <class F>
  static void fields(F&& f) {
    f("out_int32", &SearchsortedAttrs::out_int32);
    f("right", &SearchsortedAttrs::right);
  }
};
/// paddle.searchsorted: Out (Values' shape) = where each value would go into
/// its row of SortedSequence (1-D: one row for all; else its leading dims
/// are Values' and each row serves the values of the same leading index).
/// As Paddle, an infinite or NaN value goes past the end (the row's
/// length), whatever its sign. Each operand fp32, fp64, int32 or int64
/// (they may differ); rows are assumed sorted, as Paddle does.
void searchsorted(const Tensor& sorted_sequence, const Tensor& values, Tensor& out, const SearchsortedAttrs& attrs);

/// Attributes of `kthvalue` and `kthvalue_grad`.
struct KthvalueAttrs {
  int k = 1;        ///< 1-based: k = 1 is the smallest
  int axis = -1;
  bool keepdim = false;

  template <class F>
  static void fields(F&& f) {
    f("k", &KthvalueAttrs::k);
    f("axis", &KthvalueAttrs::axis);
    f("keepdim", &KthvalueAttrs::keepdim);
  }
};
/// Out = the k-th smallest value along `axis`, Indices (int64) its position
/// there; the dim is removed unless keepdim. NaN sorts above every number;
/// among equal values the lowest position is taken (Paddle leaves that
/// order unspecified). fp32, fp64, int32, int64.
void kthvalue(const Tensor& x, Tensor& out, Tensor& indices, const KthvalueAttrs& attrs);
/// X@GRAD = zeros with Out@GRAD placed at Indices along `axis`. fp32, fp64.
void kthvalue_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                   const KthvalueAttrs& attrs);

/// Attributes of `mode` and `mode_grad`.
struct ModeAttrs {
  int axis = -1;
  bool keepdim = false;

  template <class F>
  static void fields(F&& f) {
    f("axis", &ModeAttrs::axis);
    f("keepdim", &ModeAttrs::keepdim);
  }
};
/// paddle.mode: Out = the most frequent value along `axis`, Indices (int64)
/// its last position there; the dim is removed unless keepdim. As in Paddle
/// 2.6.2, a tie in count goes to the smallest value. NaNs count as one value
/// above every number. fp32, fp64, int32, int64.
void mode(const Tensor& x, Tensor& out, Tensor& indices, const ModeAttrs& attrs);
/// X@GRAD = zeros with Out@GRAD placed at Indices along `axis`. fp32, fp64.
void mode_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
               const ModeAttrs& attrs);

/// Out = X with each Updates row added at the X position its Index tuple
/// names (Index [..., K] int32/int64 addresses X's first K dims; Updates is
/// Index's leading dims then X's dims from K on); repeated tuples add up.
/// fp32, fp64, int32, int64.
void scatter_nd_add(const Tensor& x, const Tensor& index, const Tensor& updates, Tensor& out);
/// X@GRAD = Out@GRAD; Updates@GRAD = gather_nd(Out@GRAD, Index).
void scatter_nd_add_grad(const Tensor& index, const Tensor& updates, const Tensor& out_grad, Tensor* x_grad,
                         Tensor* updates_grad);

/// Attributes of `index_add` and `index_add_grad`.
struct IndexAddAttrs {
  int axis = 0;  ///< negative counts from the end
  template <class F>
  static void fields(F&& f) {
    f("axis", &IndexAddAttrs::axis);
  }
};

/// paddle.index_add: Out = X with AddValue's slice i added at X's slice
/// Index[i] along `axis` (Index 1-D int32/int64, each in [0, X's dim);
/// AddValue is X with that dim replaced by Index's length); repeated indices
/// add up. fp32, fp64, int32, int64.
void index_add(const Tensor& x, const Tensor& index, const Tensor& add_value, Tensor& out,
               const IndexAddAttrs& attrs);
/// X@GRAD = Out@GRAD; AddValue@GRAD = Out@GRAD's slices at Index along `axis`.
void index_add_grad(const Tensor& index, const Tensor& add_value, const Tensor& out_grad, Tensor* x_grad,
                    Tensor* add_value_grad, const IndexAddAttrs& attrs);

}  // namespace fluidc::kernels
