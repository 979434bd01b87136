// kernels/sampling.h - grid_sampler (sampling an image at given points) and deformable_conv (convolution at learned offsets).
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `grid_sampler` (paddle.nn.functional.grid_sample).
/// mode: "bilinear" or "nearest" (rounds half away from zero); padding_mode:
/// "zeros" (points outside read 0), "border" (clamped to the edge) or
/// "reflection" (mirrored at the edges); align_corners: -1 and 1 are the
/// centres of the corner pixels (true) or their outer edges (false).
struct GridSamplerAttrs {
  std::string mode = "bilinear";
  std::string padding_mode = "zeros";
  bool align_corners = true;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("mode", &GridSamplerAttrs::mode);
    f("padding_mode", &GridSamplerAttrs::padding_mode);
    f("align_corners", &GridSamplerAttrs::align_corners);
  }
};
/// Output[n, c, i, j] = X[n, c] sampled at Grid[n, i, j] = (x, y) in
/// [-1, 1] (x along W). X is NCHW, Grid [N, Ho, Wo, 2]; fp32 or fp64.
void grid_sampler(const Tensor& x, const Tensor& grid, Tensor& output, const GridSamplerAttrs& attrs);
/// X@GRAD and Grid@GRAD (either may be nullptr). Nearest sampling is
/// piecewise constant in the grid: its Grid@GRAD is zero, as in Paddle.
void grid_sampler_grad(const Tensor& x, const Tensor& grid, const Tensor& output_grad, Tensor* x_grad,
                       Tensor* grid_grad, const GridSamplerAttrs& attrs);

}  // namespace fluidc::kernels
