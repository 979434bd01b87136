// kernels/cpu/affine_grid.cc - affine_grid and its gradient: an affine map of each output pixel's normalised coordinates.
#include <fmt/format.h>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/sampling.h"
#include "kernels/shapes/sampling.h"

namespace fluidc::kernels {
namespace {

using rt::Shape;

/// The output shape from the OutputShape input when given, else the attribute.
std::vector<int64_t> requested_shape(const char* op, const Tensor* output_shape, const AffineGridAttrs& a) {
  if (output_shape) return detail::int_values(op, "OutputShape", *output_shape);
  return {a.output_shape.begin(), a.output_shape.end()};
}

/// Coordinate i of S along one axis in [-1, 1]: the corner pixels' centres
/// (align_corners) or their outer edges; Paddle's linspace, then scaled.
template <class T>
T coordinate(int64_t i, int64_t S, bool align_corners) {
  if (S == 1) return align_corners ? T(-1) : T(0);
  const T v = T(-1) + T(2) / T(S - 1) * T(i);
  return align_corners ? v : v * (T(S - 1) / T(S));
}

/// Calls f(pixel, c) for each output pixel in order, c its coordinates
/// (x along the last axis, then y, then z) and the constant 1.
template <class T, class F>
void for_each_pixel(const Shape& out, bool align, F f) {
  const int spatial = out.rank - 2;
  const int64_t W = out[spatial], H = out[spatial - 1], D = spatial == 3 ? out[1] : 1;
  int64_t pixel = 0;
  for (int64_t d = 0; d < D; ++d)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w, ++pixel) {
        T c[4] = {coordinate<T>(w, W, align), coordinate<T>(h, H, align), T(1), T(1)};
        if (spatial == 3) c[2] = coordinate<T>(d, D, align);
        f(pixel, c);
      }
}

Shape grid_shape(const char* op, const Shape& theta, const Tensor* output_shape, const AffineGridAttrs& a) {
  Shape out;
  if (std::string e = shapes::affine_grid_shape(theta, requested_shape(op, output_shape, a), out); !e.empty())
    rt::fail(fmt::format("{}: {}", op, e));
  return out;
}

}  // namespace

void affine_grid(const Tensor& theta, const Tensor* output_shape, Tensor& output, const AffineGridAttrs& a) {
  constexpr const char* op = "affine_grid";
  detail::require_init(op, "Theta", theta);
  const Shape out_shape = grid_shape(op, theta.shape(), output_shape, a);
  detail::OutBuf buf(&output, detail::Slot::kOut0, detail::aliases(&output, {&theta, output_shape}));
  Tensor& out = buf.get();
  out.resize(out_shape, theta.dtype());
  detail::visit_float(op, "Theta", theta.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t rows = theta.shape()[1], cols = theta.shape()[2];  // (2, 3) or (3, 4)
    const int64_t pixels = out.numel() / (out_shape[0] * rows);
    for (int64_t n = 0; n < out_shape[0]; ++n) {
      const T* t = theta.data<T>() + n * rows * cols;
      T* o = out.data<T>() + n * pixels * rows;
      for_each_pixel<T>(out_shape, a.align_corners, [&](int64_t p, const T* c) {
        for (int64_t j = 0; j < rows; ++j) {
          T v = 0;
          for (int64_t k = 0; k < cols; ++k) v += c[k] * t[j * cols + k];
          o[p * rows + j] = v;
        }
      });
    }
  });
  buf.finish();
}

void affine_grid_grad(const Tensor* /*theta*/, const Tensor* output_shape, const Tensor& output_grad, Tensor* theta_grad,
                      const AffineGridAttrs& a) {
  constexpr const char* op = "affine_grid_grad";
  detail::require_init(op, "Output@GRAD", output_grad);
  const Shape& g = output_grad.shape();
  if (g.rank != 4 && g.rank != 5)
    rt::fail(fmt::format("{}: Output@GRAD must be [N, H, W, 2] or [N, D, H, W, 3], got {}", op, g.str()));
  const int64_t rows = g[g.rank - 1], cols = rows + 1;
  Shape theta{g[0], rows, cols};
  const Shape out_shape = grid_shape(op, theta, output_shape, a);
  if (out_shape != g)
    rt::fail(fmt::format("{}: Output@GRAD has shape {} but the grid has {}", op, g.str(), out_shape.str()));
  detail::OutBuf buf(theta_grad, detail::Slot::kOut0, detail::aliases(theta_grad, {&output_grad, output_shape}));
  if (!buf.wanted()) return;
  Tensor& dt = buf.get();
  dt.resize(theta, output_grad.dtype());
  detail::visit_float(op, "Output@GRAD", output_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t pixels = g.numel() / (g[0] * rows);
    for (int64_t n = 0; n < g[0]; ++n) {
      const T* d = output_grad.data<T>() + n * pixels * rows;
      double acc[3][4] = {};
      for_each_pixel<T>(out_shape, a.align_corners, [&](int64_t p, const T* c) {
        for (int64_t j = 0; j < rows; ++j)
          for (int64_t k = 0; k < cols; ++k) acc[j][k] += static_cast<double>(d[p * rows + j]) * c[k];
      });
      T* o = dt.data<T>() + n * rows * cols;
      for (int64_t j = 0; j < rows; ++j)
        for (int64_t k = 0; k < cols; ++k) o[j * cols + k] = static_cast<T>(acc[j][k]);
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
