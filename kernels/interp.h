// kernels/interp.h - nearest / bilinear / bicubic resizing of images, linear and trilinear of 1-D and 3-D data (Paddle's *_interp_v2 and v1 ops), and gradients.
//
// The output size comes, first match wins, from SizeTensor (one int tensor
// per spatial dim), OutSize (an int tensor [out_h, out_w]), the Scale tensor
// (one value for both dims or [h, w]), the scale attribute, out_h / out_w.
// In the v2 ops a scale also sets the source step to 1/scale, even when
// OutSize then overrides the size it gave (Paddle's order); otherwise, and
// always in the v1 ops, the step is in / out; (in - 1) / (out - 1) with
// align_corners. interp_method picks the
// sampling (nearest or bilinear), as in Paddle, whatever the op's name.
// fp32 and fp64.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of nearest_interp_v2 / bilinear_interp_v2 and their gradients (Paddle's names and defaults).
struct InterpAttrs {
  std::string data_layout = "NCHW";  ///< NCHW or NHWC
  int out_d = 0;                     ///< unused by the 2-D ops
  int out_h = 0;
  int out_w = 0;
  std::vector<float> scale;          ///< [scale_h, scale_w]; used when both are > 0
  std::string interp_method = "bilinear";  ///< "nearest" or "bilinear"
  bool align_corners = true;
  int align_mode = 1;  ///< bilinear without align_corners: 0 samples at (o + 0.5) / scale - 0.5, 1 at o / scale
  /// Not an attribute: set for the v1 ops, whose step is always in / out
  /// and whose Scale tensor gives one value for both dims.
  bool v1_step = false;

  template <class F>
  static void fields(F&& f) {
    f("data_layout", &InterpAttrs::data_layout);
    f("out_d", &InterpAttrs::out_d);
    f("out_h", &InterpAttrs::out_h);
    f("out_w", &InterpAttrs::out_w);
    f("scale", &InterpAttrs::scale);
    f("interp_method", &InterpAttrs::interp_method);
    f("align_corners", &InterpAttrs::align_corners);
    f("align_mode", &InterpAttrs::align_mode);
  }
};

/// Attributes of the v1 ops (nearest_interp, bilinear_interp, linear_interp, trilinear_interp,
/// bicubic_interp): one scale for every spatial dim (> 0 to use it), as is the Scale tensor's first value.
struct InterpV1Attrs {
  std::string data_layout = "NCHW";
  int out_d = 0;
  int out_h = 0;
  int out_w = 0;
  float scale = 0.0f;
  std::string interp_method = "bilinear";
  bool align_corners = true;
  int align_mode = 1;

  template <class F>
  static void fields(F&& f) {
    f("data_layout", &InterpV1Attrs::data_layout);
    f("out_d", &InterpV1Attrs::out_d);
    f("out_h", &InterpV1Attrs::out_h);
    f("out_w", &InterpV1Attrs::out_w);
    f("scale", &InterpV1Attrs::scale);
    f("interp_method", &InterpV1Attrs::interp_method);
    f("align_corners", &InterpV1Attrs::align_corners);
    f("align_mode", &InterpV1Attrs::align_mode);
  }
  /// The same request in the v2 form (a positive scale for every spatial dim).
  InterpAttrs v2() const {
    InterpAttrs a;
    a.data_layout = data_layout;
    a.out_d = out_d;
    a.out_h = out_h;
    a.out_w = out_w;
    if (scale > 0) a.scale = {scale, scale, scale};
    a.interp_method = interp_method;
    a.align_corners = align_corners;
    a.align_mode = align_mode;
    a.v1_step = true;
    return a;
  }
};

/// Out = X resized over its two spatial dims. out_size, size_tensor and
/// scale are the optional run-time size inputs (see the file comment).
void nearest_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                       const Tensor* scale, Tensor& out, const InterpAttrs& attrs);
void bilinear_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                        int num_size_tensor, const Tensor* scale, Tensor& out, const InterpAttrs& attrs);
/// X@GRAD: each Out@GRAD element added back onto the input pixels it sampled, with the same weights.
void nearest_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                            int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                            const InterpAttrs& attrs);
void bilinear_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                             int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                             const InterpAttrs& attrs);

void nearest_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                    const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs);
void bilinear_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                     const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs);
void nearest_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                         int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                         const InterpV1Attrs& attrs);
void bilinear_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                          int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                          const InterpV1Attrs& attrs);

/// linear_interp_v2 (X [N, C, W] or [N, W, C]), trilinear_interp_v2 (X
/// [N, C, D, H, W] or channel-last) and bicubic_interp_v2 (4-D, Keys' cubic
/// with a = -0.75, edge inputs repeated): the same attributes and size
/// inputs, one value per spatial dim (kernels/shapes/interp_nd.h).
void linear_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                      const Tensor* scale, Tensor& out, const InterpAttrs& attrs);
void trilinear_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                         int num_size_tensor, const Tensor* scale, Tensor& out, const InterpAttrs& attrs);
void bicubic_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                       const Tensor* scale, Tensor& out, const InterpAttrs& attrs);
/// X@GRAD: each Out@GRAD value added back onto the inputs it sampled, with the same weights.
void linear_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                           int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                           const InterpAttrs& attrs);
void trilinear_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                              int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                              const InterpAttrs& attrs);
void bicubic_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                            int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                            const InterpAttrs& attrs);

/// The v1 ops of the same three (Fluid 1.x's resize_linear, resize_trilinear,
/// resize_bicubic): InterpV1Attrs, the step always in / out (or (in - 1) /
/// (out - 1) with align_corners), Scale's first value for every dim.
void linear_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                   const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs);
void trilinear_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                      const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs);
void bicubic_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                    const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs);
void linear_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                        int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                        const InterpV1Attrs& attrs);
void trilinear_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                           int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                           const InterpV1Attrs& attrs);
void bicubic_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                         int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                         const InterpV1Attrs& attrs);

}  // namespace fluidc::kernels
