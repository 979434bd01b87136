// kernels/vision_legacy2.h - Fluid 1.x OCR / detection / speech ops: ctc_align, im2sequence, crop, crop_tensor, density_prior_box, row_conv, unique.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `ctc_align` (greedy CTC decoding).
struct CtcAlignAttrs {
  int blank = 0;
  bool merge_repeated = true;
  int padding_value = 0;  ///< fills the tail of each row in the padded form

  template <class F>
  static void fields(F&& f) {
    f("blank", &CtcAlignAttrs::blank);
    f("merge_repeated", &CtcAlignAttrs::merge_repeated);
    f("padding_value", &CtcAlignAttrs::padding_value);
  }
};
/// Drops `blank` tokens and, with merge_repeated, a token equal to the one
/// before it (blanks included, so "a blank a" keeps both a's). int32/int64.
/// Without InputLength: Input is a LoD tensor [T, 1]; Output holds the kept
/// tokens [T', 1] with one sequence per input sequence, or, when no token is
/// kept at all, [1, 1] holding -1 (Paddle's marker for an empty result).
/// With InputLength [B, 1] (Input's dtype): Input is [B, L], row b's first
/// InputLength[b] tokens decoded into Output [B, L] (the rest padding_value)
/// and their count into OutputLength [B, 1] (Input's dtype).
void ctc_align(const Tensor& input, const Tensor* input_length, Tensor& output, Tensor* output_length,
               const CtcAlignAttrs& attrs);

/// Attributes of `im2sequence`.
struct Im2SequenceAttrs {
  std::vector<int> kernels;              ///< [kh, kw]
  std::vector<int> strides = {1, 1};     ///< [sh, sw]
  std::vector<int> paddings = {0, 0, 0, 0};  ///< [up, left, down, right]
  std::vector<int> out_stride = {1, 1};  ///< divides Y's real image sizes (rounded up)

  template <class F>
  static void fields(F&& f) {
    f("kernels", &Im2SequenceAttrs::kernels, kRequiredAttr);
    f("strides", &Im2SequenceAttrs::strides);
    f("paddings", &Im2SequenceAttrs::paddings);
    f("out_stride", &Im2SequenceAttrs::out_stride);
  }
};
/// X [N, C, H, W] -> Out [N * OH * OW, C * kh * kw] with one sequence per
/// image: row (oh, ow) holds the patch at (oh * sh - up, ow * sw - left),
/// features ordered (c, i, j), zeros outside X. With Y [N, 2] (each image's
/// real height and width, X's dtype) and N > 1, image n gives only the
/// OH_n x OW_n patches of its real size divided by out_stride (rounded up),
/// still read from the top-left of the whole padded image. fp32, fp64.
void im2sequence(const Tensor& x, const Tensor* y, Tensor& out, const Im2SequenceAttrs& attrs);
/// X@GRAD: each Out@GRAD value added back onto the pixel it copied (the
/// whole-image form: Paddle's gradient ignores Y).
void im2sequence_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const Im2SequenceAttrs& attrs);

/// Attributes of `crop` (Fluid 1.x).
struct CropAttrs {
  std::vector<int> offsets;  ///< one per dim of X; empty when the Offsets tensor gives them
  std::vector<int> shape;    ///< Out's dims when Y is absent; a -1 first dim takes X's

  template <class F>
  static void fields(F&& f) {
    f("offsets", &CropAttrs::offsets);
    f("shape", &CropAttrs::shape);
  }
};
/// Out = the box of X at `offsets` with Y's dims (or `shape`). Offsets, when
/// given, is a 1-D int32 tensor with one value per dim. Any dtype.
void crop(const Tensor& x, const Tensor* y, const Tensor* offsets, Tensor& out, const CropAttrs& attrs);
/// X@GRAD: zeros with Out@GRAD written into the box. fp32, fp64.
void crop_grad(const Tensor& x, const Tensor* offsets, const Tensor& out_grad, Tensor* x_grad, const CropAttrs& attrs);

/// Attributes of `crop_tensor`.
struct CropTensorAttrs {
  std::vector<int> shape;    ///< -1: X's dim less its offset
  std::vector<int> offsets;

  template <class F>
  static void fields(F&& f) {
    f("shape", &CropTensorAttrs::shape);
    f("offsets", &CropTensorAttrs::offsets);
  }
};
/// Out = the box of X at offsets with the given shape. The shape comes from
/// ShapeTensor (one int scalar per dim), else Shape (an int 1-D tensor),
/// else the attribute; the offsets likewise from OffsetsTensor, Offsets, the
/// attribute. Any dtype.
void crop_tensor(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor,
                 const Tensor* offsets, const Tensor* const* offsets_tensor, int num_offsets_tensor, Tensor& out,
                 const CropTensorAttrs& attrs);
/// X@GRAD: zeros with Out@GRAD written into the box at the offsets. fp32, fp64.
void crop_tensor_grad(const Tensor& x, const Tensor* offsets, const Tensor* const* offsets_tensor,
                      int num_offsets_tensor, const Tensor& out_grad, Tensor* x_grad, const CropTensorAttrs& attrs);

/// Attributes of `density_prior_box`.
struct DensityPriorBoxAttrs {
  std::vector<float> variances;
  bool clip = true;
  bool flatten_to_2d = false;
  float step_w = 0.0f;  ///< 0 (or step_h 0): the image width over the feature width
  float step_h = 0.0f;
  float offset = 0.5f;
  std::vector<float> fixed_sizes;
  std::vector<float> fixed_ratios;
  std::vector<int> densities;  ///< one per fixed size

  template <class F>
  static void fields(F&& f) {
    f("variances", &DensityPriorBoxAttrs::variances, kRequiredAttr);
    f("clip", &DensityPriorBoxAttrs::clip);
    f("flatten_to_2d", &DensityPriorBoxAttrs::flatten_to_2d);
    f("step_w", &DensityPriorBoxAttrs::step_w);
    f("step_h", &DensityPriorBoxAttrs::step_h);
    f("offset", &DensityPriorBoxAttrs::offset);
    f("fixed_sizes", &DensityPriorBoxAttrs::fixed_sizes);
    f("fixed_ratios", &DensityPriorBoxAttrs::fixed_ratios);
    f("densities", &DensityPriorBoxAttrs::densities);
  }
};
/// Input [N, C, H, W] (a feature map: only H and W are read), Image [N, C,
/// IH, IW]. Boxes [H, W, P, 4] (or [H*W*P, 4] with flatten_to_2d), P = the
/// sum over sizes of ratios * density^2: for each cell, size, ratio, and
/// density x density grid of shifted centres, the box (x0, y0, x1, y1)
/// normalised by the image size. Variances the same shape, each row the
/// `variances` attribute. fp32, fp64 (Input's dtype).
void density_prior_box(const Tensor& input, const Tensor& image, Tensor& boxes, Tensor& variances,
                       const DensityPriorBoxAttrs& attrs);

/// Lookahead convolution (DeepSpeech 2). X is a LoD tensor [T, D] (level 0
/// gives the sequences) or a dense [B, T, D] (B sequences of T steps);
/// Filter [context, D]: Out[t, d] = sum over w < context with t + w in t's
/// sequence of X[t + w, d] * Filter[w, d]. fp32, fp64.
void row_conv(const Tensor& x, const Tensor& filter, Tensor& out);
/// X@GRAD and Filter@GRAD of row_conv.
void row_conv_grad(const Tensor& x, const Tensor& filter, const Tensor& out_grad, Tensor* x_grad,
                   Tensor* filter_grad);

/// Attributes of `unique`.
struct UniqueAttrs {
  bool return_index = false;
  bool return_inverse = false;
  bool return_counts = false;
  std::vector<int> axis;  ///< empty: X flattened; else one axis
  int dtype = 3;          ///< Paddle's VarType code of Indices / Index / Counts: 2 int32, 3 int64
  bool is_sorted = false; ///< false: Fluid 1.x's form (1-D X, first-appearance order, Index only)

  template <class F>
  static void fields(F&& f) {
    f("return_index", &UniqueAttrs::return_index);
    f("return_inverse", &UniqueAttrs::return_inverse);
    f("return_counts", &UniqueAttrs::return_counts);
    f("axis", &UniqueAttrs::axis);
    f("dtype", &UniqueAttrs::dtype);
    f("is_sorted", &UniqueAttrs::is_sorted);
  }
};
/// is_sorted: Out = X's distinct values (or, with an axis, distinct slices
/// along it) in ascending (lexicographic) order; Indices the first position
/// of each, Index each element's (slice's) position in Out, Counts how often
/// each occurs. Not is_sorted: 1-D X, Out in order of first appearance and
/// Index. X: fp32, fp64, int32, int64. NaNs sort last, as one value.
/// Indices is always the first occurrence; Paddle sorts slices along an axis
/// with an unstable sort, which agrees for up to 16 slices (its insertion
/// sort) and may name a later duplicate beyond.
void unique(const Tensor& x, Tensor& out, Tensor* indices, Tensor& index, Tensor* counts, const UniqueAttrs& attrs);

}  // namespace fluidc::kernels
