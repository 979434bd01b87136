// kernels/pad.h - pad (constant, any rank), pad2d and pad3d (constant, reflect, replicate, circular) and their gradients.
//
// pad3d is what paddle.nn.functional.pad writes for 3-, 4- and 5-D input in
// static mode (it unsqueezes to 5-D first), and nn.Conv2D(padding_mode=
// "reflect") too; pad is what F.pad writes in constant mode when a pair is
// given for every dim. pad2d is the Fluid 1.x layer (Paddle 2.6.2 keeps the
// op but has no kernel for it). Forward: fp32, fp64, int32, int64;
// gradients: fp32, fp64.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `pad` and `pad_grad`: (before, after) for every dim in
/// order, each >= 0; the padding holds pad_value.
struct PadAttrs {
  std::vector<int> paddings;
  float pad_value = 0;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("paddings", &PadAttrs::paddings, kRequiredAttr);
    f("pad_value", &PadAttrs::pad_value);
  }
};

/// Out = X with paddings[2i] values before and paddings[2i+1] after it along dim i.
void pad(const Tensor& x, Tensor& out, const PadAttrs& attrs);
/// X@GRAD = Out@GRAD without the padding (X's shape follows from the attributes).
void pad_grad(const Tensor& out_grad, Tensor* x_grad, const PadAttrs& attrs);

/// Attributes of `pad3d` and `pad3d_grad` (Paddle's names). paddings:
/// [left, right, top, bottom, front, back], i.e. (before, after) for W, then
/// H, then D; negative values crop. Out index o along a dim reads X index
/// i = o - before, mapped back inside [0, n) by the mode: "constant" (none:
/// `value`), "reflect" (mirror about the edge, edge not repeated: needs
/// before, after < n), "replicate" (clamp), "circular" (i mod n).
struct Pad3dAttrs {
  std::vector<int> paddings = {0, 0, 0, 0, 0, 0};
  std::string mode = "constant";
  float value = 0;
  std::string data_format = "NCDHW";  ///< or NDHWC

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("paddings", &Pad3dAttrs::paddings);
    f("mode", &Pad3dAttrs::mode);
    f("value", &Pad3dAttrs::value);
    f("data_format", &Pad3dAttrs::data_format);
  }
};

/// Out = rank-5 X padded along D, H, W. Paddings (a 6-value int32/int64
/// tensor a program computes), when given, wins over the attribute.
void pad3d(const Tensor& x, const Tensor* paddings, Tensor& out, const Pad3dAttrs& attrs);
/// X@GRAD[i] = the sum of Out@GRAD over the outputs that read X[i].
void pad3d_grad(const Tensor& x, const Tensor* paddings, const Tensor& out_grad, Tensor* x_grad,
                const Pad3dAttrs& attrs);

/// Attributes of `pad2d` and `pad2d_grad`: paddings [top, bottom, left,
/// right]; mode "constant", "reflect" or "edge" (= pad3d's replicate).
struct Pad2dAttrs {
  std::vector<int> paddings = {0, 0, 0, 0};
  std::string mode = "constant";
  float pad_value = 0;
  std::string data_format = "NCHW";  ///< or NHWC

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("paddings", &Pad2dAttrs::paddings);
    f("mode", &Pad2dAttrs::mode);
    f("pad_value", &Pad2dAttrs::pad_value);
    f("data_format", &Pad2dAttrs::data_format);
  }
};

/// Out = rank-4 X padded along H and W; Paddings (4 values) wins over the attribute.
void pad2d(const Tensor& x, const Tensor* paddings, Tensor& out, const Pad2dAttrs& attrs);
void pad2d_grad(const Tensor& x, const Tensor* paddings, const Tensor& out_grad, Tensor* x_grad,
                const Pad2dAttrs& attrs);

}  // namespace fluidc::kernels
