// kernels/tensor_manip_more.h - split, stack, unstack, expand_v2, expand_as_v2, tile, shape, size, fill_constant_batch_size_like.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `split`: `num` equal parts, or (num 0) parts of the sizes
/// in `sections`, one of which may be -1 (the rest of the axis).
struct SplitAttrs {
  int axis = 0;
  int num = 0;
  std::vector<int> sections;

  template <class F>
  static void fields(F&& f) {
    f("axis", &SplitAttrs::axis);
    f("num", &SplitAttrs::num);
    f("sections", &SplitAttrs::sections);
  }
};
/// Outs = X cut along `axis`. AxisTensor (1 int) wins over `axis`;
/// SectionsTensorList (one 1-element int tensor per part) over `sections`.
/// Paddle's gradient of split is a concat of the Out gradients.
void split(const Tensor& x, const Tensor* axis_tensor, const Tensor* const* sections_list, int num_sections,
           Tensor* const* outs, int num_outs, const SplitAttrs& attrs);

/// Attributes of `stack` and `stack_grad`.
struct StackAttrs {
  int axis = 0;

  template <class F>
  static void fields(F&& f) {
    f("axis", &StackAttrs::axis);
  }
};
/// Y = the X tensors (one shape) stacked along a new dim `axis` (in [-(r+1), r]).
void stack(const Tensor* const* xs, int n, Tensor& y, const StackAttrs& attrs);
/// X@GRAD[i] = Y@GRAD's slice i along `axis`; X (Paddle passes it) is not
/// read; nullptr gradient entries are skipped.
void stack_grad(const Tensor* const* xs, int n, const Tensor& y_grad, Tensor* const* x_grads, int m,
                const StackAttrs& attrs);

/// Attributes of `unstack` and `unstack_grad`.
struct UnstackAttrs {
  int axis = 0;
  int num = 0;

  template <class F>
  static void fields(F&& f) {
    f("axis", &UnstackAttrs::axis);
    f("num", &UnstackAttrs::num);
  }
};
/// Y[i] = X's slice i along `axis`, that dim removed; X's dim must be the
/// number of outputs.
void unstack(const Tensor& x, Tensor* const* ys, int n, const UnstackAttrs& attrs);
/// X@GRAD = the Y@GRAD tensors stacked along `axis`; an uninitialized entry
/// (an output nobody used) counts as zeros.
void unstack_grad(const Tensor* const* y_grads, int n, Tensor* x_grad, const UnstackAttrs& attrs);

/// Attributes of `expand_v2`: the target shape; X is aligned to its end,
/// -1 keeps X's dim, a size-1 dim of X repeats.
struct ExpandV2Attrs {
  std::vector<int> shape;

  template <class F>
  static void fields(F&& f) {
    f("shape", &ExpandV2Attrs::shape);
  }
};
/// Out = X broadcast to the target shape. Shape (a 1-D int tensor) wins
/// over expand_shapes_tensor (one 1-element int tensor per dim), which wins
/// over the attribute.
void expand_v2(const Tensor& x, const Tensor* shape, const Tensor* const* shape_list, int num_shape_list,
               Tensor& out, const ExpandV2Attrs& attrs);
/// X@GRAD = Out@GRAD summed over the repeated positions.
void expand_v2_grad(const Tensor& x, const Tensor* shape, const Tensor* const* shape_list, int num_shape_list,
                    const Tensor& out_grad, Tensor* x_grad, const ExpandV2Attrs& attrs);

/// Attributes of `expand_as_v2`.
struct ExpandAsV2Attrs {
  std::vector<int> target_shape;

  template <class F>
  static void fields(F&& f) {
    f("target_shape", &ExpandAsV2Attrs::target_shape);
  }
};
/// Out = X broadcast to Y's shape when Y is given (its dims are exact at
/// run time), else to target_shape.
void expand_as_v2(const Tensor& x, const Tensor* y, Tensor& out, const ExpandAsV2Attrs& attrs);
/// X@GRAD = Out@GRAD summed over the repeated positions.
void expand_as_v2_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ExpandAsV2Attrs& attrs);

/// paddle.broadcast_tensors: Out[k] = X[k] broadcast (numpy's rule) to the
/// shape all n inputs broadcast to, each in its own dtype; m == n outputs
/// (nullptr entries skipped). An output may be its own input, never another.
void broadcast_tensors(const Tensor* const* xs, int n, Tensor* const* outs, int m);
/// X@GRAD[k] = Out@GRAD[k] summed over the positions X[k] was repeated to.
void broadcast_tensors_grad(const Tensor* const* xs, int n, const Tensor* const* out_grads, int n_grads,
                            Tensor* const* x_grads, int m);

/// Attributes of `tile`.
struct TileAttrs {
  std::vector<int> repeat_times;

  template <class F>
  static void fields(F&& f) {
    f("repeat_times", &TileAttrs::repeat_times);
  }
};
/// Out = X repeated repeat_times[i] times along dim i (the shorter of X's
/// dims and repeat_times is padded with leading 1s). RepeatTimes (1-D int
/// tensor) wins over repeat_times_tensor (1-element tensors), which wins
/// over the attribute.
void tile(const Tensor& x, const Tensor* repeat_times, const Tensor* const* repeat_list, int num_repeat_list,
          Tensor& out, const TileAttrs& attrs);
/// X@GRAD = the sum of Out@GRAD's tiles.
void tile_grad(const Tensor& x, const Tensor* repeat_times, const Tensor* const* repeat_list, int num_repeat_list,
               const Tensor& out_grad, Tensor* x_grad, const TileAttrs& attrs);

/// Attributes of `expand` (Fluid 1.x): tile with one repeat count per dim of X.
struct ExpandAttrs {
  std::vector<int> expand_times;

  template <class F>
  static void fields(F&& f) {
    f("expand_times", &ExpandAttrs::expand_times);
  }
};
/// expand (Fluid 1.x): X tiled expand_times[i] times along dim i; the counts
/// (attribute, ExpandTimes or expand_times_tensor, as tile's) must match X's rank.
void expand(const Tensor& x, const Tensor* expand_times, const Tensor* const* times_list, int num_times_list, Tensor& out,
            const ExpandAttrs& attrs);
void expand_grad(const Tensor& x, const Tensor* expand_times, const Tensor* const* times_list, int num_times_list,
                 const Tensor& out_grad, Tensor* x_grad, const ExpandAttrs& attrs);

/// Out = Input's dims as a 1-D int32 tensor (Input may be any dtype).
void shape(const Tensor& input, Tensor& out);
/// Out = Input's element count, a 0-D int64 tensor.
void size(const Tensor& input, Tensor& out);

/// Attributes of `fill_constant_batch_size_like`.
struct FillConstantBatchSizeLikeAttrs {
  std::vector<int> shape;
  int dtype = 5;
  float value = 0.0f;
  std::string str_value;
  int input_dim_idx = 0;
  int output_dim_idx = 0;
  bool force_cpu = false;

  template <class F>
  static void fields(F&& f) {
    f("shape", &FillConstantBatchSizeLikeAttrs::shape, kRequiredAttr);
    f("dtype", &FillConstantBatchSizeLikeAttrs::dtype);
    f("value", &FillConstantBatchSizeLikeAttrs::value);
    f("str_value", &FillConstantBatchSizeLikeAttrs::str_value);
    f("input_dim_idx", &FillConstantBatchSizeLikeAttrs::input_dim_idx);
    f("output_dim_idx", &FillConstantBatchSizeLikeAttrs::output_dim_idx);
    f("force_cpu", &FillConstantBatchSizeLikeAttrs::force_cpu);
  }
};
/// Out = `shape` filled with the value (as fill_constant), except that dim
/// output_dim_idx takes Input's dim input_dim_idx (the batch size).
void fill_constant_batch_size_like(const Tensor& input, Tensor& out, const FillConstantBatchSizeLikeAttrs& attrs);

/// Attributes of `flip`: the axes to reverse (negative counts from the end).
struct FlipAttrs {
  std::vector<int> axis;

  template <class F>
  static void fields(F&& f) {
    f("axis", &FlipAttrs::axis, kRequiredAttr);
  }
};
/// Out = X with the order of elements reversed along each axis. Its
/// gradient is flip again (Paddle emits a flip op). Any dtype.
void flip(const Tensor& x, Tensor& out, const FlipAttrs& attrs);
/// Fluid 1.x's reverse (fluid.layers.reverse): flip under its old name, its
/// gradient a reverse of Out@GRAD, as Paddle's backward writes it.
void reverse(const Tensor& x, Tensor& out, const FlipAttrs& attrs);

/// Attributes of `diagonal` and `diagonal_grad`.
struct DiagonalAttrs {
  int offset = 0;  ///< above the main diagonal when positive, below it when negative
  int axis1 = 0;
  int axis2 = 1;

  template <class F>
  static void fields(F&& f) {
    f("offset", &DiagonalAttrs::offset);
    f("axis1", &DiagonalAttrs::axis1);
    f("axis2", &DiagonalAttrs::axis2);
  }
};
/// paddle.diagonal: Out = the diagonals of the (axis1, axis2) planes of
/// Input: Input's other dims in order, then the diagonal (entry k at axis1
/// k + max(0, -offset), axis2 k + max(0, offset); empty when the offset
/// leaves the plane). fp32, fp64, int32, int64, bool.
void diagonal(const Tensor& input, Tensor& out, const DiagonalAttrs& attrs);
/// Input@GRAD = zeros shaped like Input with Out@GRAD on those diagonals. fp32, fp64.
void diagonal_grad(const Tensor& input, const Tensor& out_grad, Tensor* input_grad, const DiagonalAttrs& attrs);

/// Attributes of `diag_embed`.
struct DiagEmbedAttrs {
  int offset = 0;
  int dim1 = -2;
  int dim2 = -1;

  template <class F>
  static void fields(F&& f) {
    f("offset", &DiagEmbedAttrs::offset);
    f("dim1", &DiagEmbedAttrs::dim1);
    f("dim2", &DiagEmbedAttrs::dim2);
  }
};
/// paddle.diag_embed: the inverse of diagonal. Out has one dim more than
/// Input: dims dim1 and dim2 (of Out, negative from the end) are the
/// planes, each n + |offset| for Input's last dim n; Input's other dims fill
/// the rest in order. Zeros except diagonal(Out, offset, dim1, dim2) = Input.
/// fp32, fp64, int32, int64. Paddle gives it no gradient.
void diag_embed(const Tensor& input, Tensor& out, const DiagEmbedAttrs& attrs);

/// Attributes of `tril_triu` (paddle.tril / paddle.triu).
struct TrilTriuAttrs {
  int diagonal = 0;    ///< 0 the main diagonal, > 0 above it, < 0 below
  bool lower = false;  ///< true: tril (keep j - i <= diagonal); false: triu (keep j - i >= diagonal)

  template <class F>
  static void fields(F&& f) {
    f("diagonal", &TrilTriuAttrs::diagonal);
    f("lower", &TrilTriuAttrs::lower);
  }
};
/// Out = X with the elements outside the kept triangle of each matrix (the
/// last two dims) set to zero. Rank >= 2; numeric and bool dtypes.
void tril_triu(const Tensor& x, Tensor& out, const TrilTriuAttrs& attrs);
/// X@GRAD = Out@GRAD masked the same way.
void tril_triu_grad(const Tensor& out_grad, Tensor* x_grad, const TrilTriuAttrs& attrs);

}  // namespace fluidc::kernels
