// kernels/index.h - ops that read or write by index: embedding, gather/scatter, one_hot, arg/top-k, where, range, cumsum.
//
// Every index these kernels read from a tensor is bounds-checked: a
// program's data is untrusted, and an id past the table fails with the op's
// name and the value instead of reading out of bounds. Index tensors may be
// int32 or int64.
#pragma once

#include <cstdint>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `lookup_table_v2` (paddle.nn.functional.embedding).
struct LookupTableV2Attrs {
  /// Rows of this id read as zeros and get no gradient (but see is_sparse); -1: none.
  int64_t padding_idx = -1;
  /// Paddle then makes a SelectedRows gradient, which fluidc holds as the
  /// dense W@GRAD (compiler/analysis/dense_rows.h); Paddle's sparse kernel
  /// gives the padding row its gradient, and so does this one then.
  bool is_sparse = false;

  template <class F>
  static void fields(F&& f) {
    f("padding_idx", &LookupTableV2Attrs::padding_idx);
    f("is_sparse", &LookupTableV2Attrs::is_sparse);
  }
};
/// Out[..., :] = W[Ids[...], :]; Out has Ids' dims plus W's row length.
void lookup_table_v2(const Tensor& ids, const Tensor& w, Tensor& out, const LookupTableV2Attrs& attrs);
/// W@GRAD = sum of Out@GRAD rows into the rows their ids name (dense).
void lookup_table_v2_grad(const Tensor& ids, const Tensor& w, const Tensor& out_grad, Tensor* w_grad,
                          const LookupTableV2Attrs& attrs);

/// Attributes of `gather`: the axis of X that Index selects along.
struct GatherAttrs {
  int axis = 0;

  template <class F>
  static void fields(F&& f) {
    f("axis", &GatherAttrs::axis);
  }
};
/// Out = X's slices at Index (1-D, or 0-D which drops the axis) along the
/// axis; the 1-element Axis tensor, when given, wins over the attribute.
void gather(const Tensor& x, const Tensor& index, const Tensor* axis, Tensor& out, const GatherAttrs& attrs);
/// X@GRAD = zeros like X with Out@GRAD's slices added at Index.
void gather_grad(const Tensor& x, const Tensor& index, const Tensor* axis, const Tensor& out_grad, Tensor* x_grad,
                 const GatherAttrs& attrs);

/// Out[i...] = X[Index[i..., :]]: the last dim of Index (k) addresses X's
/// first k dims; Out is Index dims[:-1] + X dims[k:].
void gather_nd(const Tensor& x, const Tensor& index, Tensor& out);
void gather_nd_grad(const Tensor& x, const Tensor& index, const Tensor& out_grad, Tensor* x_grad);

/// Attributes of `scatter`.
struct ScatterAttrs {
  bool overwrite = true;  ///< false: rows named more than once receive the sum of their updates

  template <class F>
  static void fields(F&& f) {
    f("overwrite", &ScatterAttrs::overwrite);
  }
};
/// Out = X with the rows Ids names replaced by Updates' rows (overwrite:
/// the last one wins) or by the sum of them.
void scatter(const Tensor& x, const Tensor& ids, const Tensor& updates, Tensor& out, const ScatterAttrs& attrs);
/// X@GRAD = Out@GRAD with the rows Ids names zeroed; Updates@GRAD = the
/// rows of Out@GRAD that Ids names.
void scatter_grad(const Tensor& ids, const Tensor& updates, const Tensor& out_grad, Tensor* x_grad,
                  Tensor* updates_grad, const ScatterAttrs& attrs);

/// Attributes of `index_select`.
struct IndexSelectAttrs {
  int dim = 0;

  template <class F>
  static void fields(F&& f) {
    f("dim", &IndexSelectAttrs::dim);
  }
};
/// Out = X's slices at the 1-D Index along dim.
void index_select(const Tensor& x, const Tensor& index, Tensor& out, const IndexSelectAttrs& attrs);
void index_select_grad(const Tensor& x, const Tensor& index, const Tensor& out_grad, Tensor* x_grad,
                       const IndexSelectAttrs& attrs);

/// Attributes of `one_hot_v2`.
struct OneHotV2Attrs {
  int depth = -1;
  int dtype = 5;  ///< Paddle's VarType code of Out (5: float32)
  bool allow_out_of_range = false;  ///< an id outside [0, depth) gives a zero row instead of failing

  template <class F>
  static void fields(F&& f) {
    f("depth", &OneHotV2Attrs::depth);
    f("dtype", &OneHotV2Attrs::dtype);
    f("allow_out_of_range", &OneHotV2Attrs::allow_out_of_range);
  }
};
/// Out = X's dims plus depth, 1 at each id's position; depth_tensor (one
/// int value) wins over the attribute.
void one_hot_v2(const Tensor& x, const Tensor* depth_tensor, Tensor& out, const OneHotV2Attrs& attrs);

/// Attributes of `arg_max` / `arg_min`.
struct ArgMinMaxAttrs {
  int64_t axis = 0;
  bool keepdims = false;
  bool flatten = false;  ///< over all elements: Out is 0-D (or all ones with keepdims)
  int dtype = 3;         ///< Out's VarType code: 2 int32, 3 int64 (-1 also int64)

  template <class F>
  static void fields(F&& f) {
    f("axis", &ArgMinMaxAttrs::axis);
    f("keepdims", &ArgMinMaxAttrs::keepdims);
    f("flatten", &ArgMinMaxAttrs::flatten);
    f("dtype", &ArgMinMaxAttrs::dtype);
  }
};
/// Out = the index of the first largest (smallest) element along axis.
void arg_max(const Tensor& x, Tensor& out, const ArgMinMaxAttrs& attrs);
void arg_min(const Tensor& x, Tensor& out, const ArgMinMaxAttrs& attrs);

/// Attributes of `top_k_v2`.
struct TopKV2Attrs {
  int k = 1;
  int axis = -1;
  bool largest = true;
  bool sorted = true;

  template <class F>
  static void fields(F&& f) {
    f("k", &TopKV2Attrs::k);
    f("axis", &TopKV2Attrs::axis);
    f("largest", &TopKV2Attrs::largest);
    f("sorted", &TopKV2Attrs::sorted);
  }
};
/// Out / Indices (int64) = the k largest (smallest) values along axis and
/// where they were; ties go to the lower index. K (one int) wins over k.
void top_k_v2(const Tensor& x, const Tensor* k, Tensor& out, Tensor& indices, const TopKV2Attrs& attrs);
/// X@GRAD = zeros like X with Out@GRAD scattered to Indices along axis.
void top_k_v2_grad(const Tensor& x, const Tensor& indices, const Tensor* k, const Tensor& out_grad, Tensor* x_grad,
                   const TopKV2Attrs& attrs);

/// top_k (Fluid 1.x): top_k_v2's defaults (the last axis, largest first, sorted).
void top_k(const Tensor& x, const Tensor* k, Tensor& out, Tensor& indices, const TopKV2Attrs& attrs);
void top_k_grad(const Tensor& x, const Tensor& indices, const Tensor* k, const Tensor& out_grad, Tensor* x_grad,
                const TopKV2Attrs& attrs);

/// accuracy: a row is correct when any of its top-k Indices equals its
/// Label; Accuracy = Correct / Total (0-D float32; Correct, Total 0-D int32).
void accuracy(const Tensor& out, const Tensor& indices, const Tensor& label, Tensor& accuracy, Tensor& correct,
              Tensor& total);

/// Out = Condition ? X : Y elementwise (all three the same shape).
void where(const Tensor& condition, const Tensor& x, const Tensor& y, Tensor& out);
void where_grad(const Tensor& condition, const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                Tensor* y_grad);

/// Out = Start, Start + Step, ... while before End (1-element tensors; Out
/// takes Start's dtype).
void range(const Tensor& start, const Tensor& end, const Tensor& step, Tensor& out);

/// Attributes of `cumsum`.
struct CumsumAttrs {
  int axis = -1;
  bool flatten = false;    ///< over all elements in order: Out is 1-D
  bool exclusive = false;  ///< each sum leaves out its own element
  bool reverse = false;    ///< sums run from the end of the axis

  template <class F>
  static void fields(F&& f) {
    f("axis", &CumsumAttrs::axis);
    f("flatten", &CumsumAttrs::flatten);
    f("exclusive", &CumsumAttrs::exclusive);
    f("reverse", &CumsumAttrs::reverse);
  }
};
void cumsum(const Tensor& x, Tensor& out, const CumsumAttrs& attrs);
/// X@GRAD = the cumsum of Out@GRAD in the other direction, shaped like X.
void cumsum_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const CumsumAttrs& attrs);

/// Attributes of `argsort`.
struct ArgsortAttrs {
  int axis = -1;
  bool descending = false;

  template <class F>
  static void fields(F&& f) {
    f("axis", &ArgsortAttrs::axis);
    f("descending", &ArgsortAttrs::descending);
  }
};
/// Out = X sorted along axis, Indices (int64) = where each value came from.
/// NaN sorts as the largest value. Ties come out in the order Paddle's CPU
/// kernel gives them (std::sort over (value, index) pairs comparing values
/// only), not necessarily by index. fp32, fp64, int32, int64.
void argsort(const Tensor& x, Tensor& out, Tensor& indices, const ArgsortAttrs& attrs);
/// X@GRAD[Indices] = Out@GRAD along axis (a permutation: no sums).
void argsort_grad(const Tensor& indices, const Tensor& x, const Tensor& out_grad, Tensor* x_grad,
                  const ArgsortAttrs& attrs);

/// Attributes of `take_along_axis` (Paddle spells the attribute `Axis`).
struct TakeAlongAxisAttrs {
  int Axis = 0;

  template <class F>
  static void fields(F&& f) {
    f("Axis", &TakeAlongAxisAttrs::Axis, kRequiredAttr);
  }
};
/// Result[..., j, ...] = Input[..., Index[..., j, ...], ...] along Axis.
/// Index (int32/int64, values in [0, Input's dim)) has Input's rank and dims
/// except along Axis (Paddle's API broadcasts them so); Result has Index's
/// dims and Input's dtype.
void take_along_axis(const Tensor& input, const Tensor& index, Tensor& result, const TakeAlongAxisAttrs& attrs);
/// Input@GRAD = zeros like Input with Result@GRAD added at Index along Axis.
void take_along_axis_grad(const Tensor& input, const Tensor& index, const Tensor& result_grad, Tensor* input_grad,
                          const TakeAlongAxisAttrs& attrs);

}  // namespace fluidc::kernels

#include "kernels/index_misc.h"  // linspace, cumprod, cummax/cummin, logcumsumexp, kthvalue, searchsorted, scatter_nd_add
