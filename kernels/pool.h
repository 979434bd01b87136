// kernels/pool.h - pool2d / pool3d (max and average, adaptive, global), max pooling with indices, and gradients.
//
// One attribute struct serves both ranks: ksize, strides and paddings name
// the spatial dims (2 for pool2d, 3 for pool3d). Empty strides mean 1,
// empty paddings 0. paddings holds one value per spatial dim (both sides)
// or two (begin, end) as Paddle writes them. fp32 and fp64.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of pool2d, pool3d and their gradients (Paddle's names).
struct PoolAttrs {
  std::string pooling_type = "max";  ///< "max" or "avg"
  std::vector<int> ksize;            ///< window; with adaptive, the output size
  bool global_pooling = false;       ///< window = the whole spatial extent
  std::vector<int> strides;
  std::vector<int> paddings;
  bool exclusive = true;   ///< avg: divide by the elements inside the input, not the window
  bool adaptive = false;   ///< bins start=floor(i*in/out), end=ceil((i+1)*in/out)
  bool ceil_mode = false;  ///< output size rounds up
  std::string data_format = "NCHW";  ///< NCHW/NCDHW (channel first) or NHWC/NDHWC
  std::string padding_algorithm = "EXPLICIT";  ///< EXPLICIT, SAME or VALID

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("pooling_type", &PoolAttrs::pooling_type);
    f("ksize", &PoolAttrs::ksize, kRequiredAttr);
    f("global_pooling", &PoolAttrs::global_pooling);
    f("strides", &PoolAttrs::strides);
    f("paddings", &PoolAttrs::paddings);
    f("exclusive", &PoolAttrs::exclusive);
    f("adaptive", &PoolAttrs::adaptive);
    f("ceil_mode", &PoolAttrs::ceil_mode);
    f("data_format", &PoolAttrs::data_format);
    f("padding_algorithm", &PoolAttrs::padding_algorithm);
  }
};

/// Out = max or average of X over each window (rank-4 X for pool2d, rank-5
/// for pool3d). The window of output index o along a dim starts at
/// o*stride - pad_begin and ends at min(start + k, in + pad_begin), clipped
/// to the input; a non-exclusive average divides by the unclipped window
/// size, as Paddle does.
void pool2d(const Tensor& x, Tensor& out, const PoolAttrs& attrs);
void pool3d(const Tensor& x, Tensor& out, const PoolAttrs& attrs);
/// X@GRAD: max pooling routes Out@GRAD to the first element of each window
/// equal to Out (row-major window order); average spreads Out@GRAD / divisor.
void pool2d_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                 const PoolAttrs& attrs);
void pool3d_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                 const PoolAttrs& attrs);

/// Attributes of max_pool2d_with_index / max_pool3d_with_index and their
/// gradients (paddle.nn.functional.max_pool2d(return_mask=True),
/// adaptive_max_pool2d): channel-first only, one padding per spatial dim
/// (both sides), output sizes rounded down; adaptive bins as in PoolAttrs.
struct MaxPoolWithIndexAttrs {
  std::vector<int> ksize;  ///< window; with adaptive, the output size
  std::vector<int> strides;
  std::vector<int> paddings;
  bool global_pooling = false;  ///< window = the whole spatial extent, no padding
  bool adaptive = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("ksize", &MaxPoolWithIndexAttrs::ksize, kRequiredAttr);
    f("strides", &MaxPoolWithIndexAttrs::strides);
    f("paddings", &MaxPoolWithIndexAttrs::paddings);
    f("global_pooling", &MaxPoolWithIndexAttrs::global_pooling);
    f("adaptive", &MaxPoolWithIndexAttrs::adaptive);
  }
};

/// Out = the max of each window, Mask (int32) = its index in the flattened
/// input plane (h * W + w; d * H * W + h * W + w for 3-D), the first one in
/// row-major order on ties. As in Paddle, the max starts at the lowest finite
/// value with index -1, so a window of -inf (or NaN) gives that and -1.
void max_pool2d_with_index(const Tensor& x, Tensor& out, Tensor& mask, const MaxPoolWithIndexAttrs& attrs);
void max_pool3d_with_index(const Tensor& x, Tensor& out, Tensor& mask, const MaxPoolWithIndexAttrs& attrs);
/// X@GRAD[Mask] += Out@GRAD, plane by plane; Mask -1 routes nothing.
void max_pool2d_with_index_grad(const Tensor& x, const Tensor& mask, const Tensor& out_grad, Tensor* x_grad,
                                const MaxPoolWithIndexAttrs& attrs);
void max_pool3d_with_index_grad(const Tensor& x, const Tensor& mask, const Tensor& out_grad, Tensor* x_grad,
                                const MaxPoolWithIndexAttrs& attrs);

}  // namespace fluidc::kernels
