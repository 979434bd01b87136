// test/unit/kernels/sampling_test.cc - grid_sampler: hand-checked samples, bad grids and attributes, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/sampling.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::GridSamplerAttrs;

namespace {

GridSamplerAttrs gs(const char* mode, const char* pad, bool align) {
  GridSamplerAttrs a;
  a.mode = mode;
  a.padding_mode = pad;
  a.align_corners = align;
  return a;
}

}  // namespace

TEST_CASE("grid_sampler: corners, centre, padding, non-finite points", "[grid_sampler]") {
  // A 2x2 image; sample its corners, its centre and a point far outside.
  Tensor x = f32(Shape{1, 1, 2, 2}, {1, 2, 3, 4}), out;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor g = f32(Shape{1, 1, 5, 2}, {-1, -1, 1, 1, 0, 0, 3, 0, nan, 0});
  kernels::grid_sampler(x, g, out, gs("bilinear", "zeros", true));
  CHECK(out.shape() == Shape{1, 1, 1, 5});
  CHECK(values(out) == std::vector<double>{1, 4, 2.5, 0, 0});
  kernels::grid_sampler(x, g, out, gs("bilinear", "border", true));
  CHECK(values(out)[3] == 3);  // clamped to the right edge: (2 + 4) / 2
  CHECK(values(out)[4] == 0);  // NaN reads nothing
  kernels::grid_sampler(x, g, out, gs("nearest", "reflection", false));
  CHECK(values(out)[0] == 1);
  CHECK_THROWS_WITH(kernels::grid_sampler(x, g, out, gs("bicubic", "zeros", true)), Catch::Contains("mode must be"));
  CHECK_THROWS_WITH(kernels::grid_sampler(x, g, out, gs("bilinear", "wrap", true)),
                    Catch::Contains("padding_mode must be"));
  Tensor bad = f32(Shape{1, 1, 1, 3}, {0, 0, 0});
  CHECK_THROWS_WITH(kernels::grid_sampler(x, bad, out, gs("bilinear", "zeros", true)),
                    Catch::Contains("Grid must be [N, H_out, W_out, 2]"));
  Tensor x5 = f32(Shape{1, 1, 1, 2, 2}, {1, 2, 3, 4});
  CHECK_THROWS_WITH(kernels::grid_sampler(x5, g, out, gs("bilinear", "zeros", true)),
                    Catch::Contains("Grid must be [N, D_out, H_out, W_out, 3] for a 5-D X"));
  Tensor x3 = f32(Shape{1, 2, 2}, {1, 2, 3, 4});
  CHECK_THROWS_WITH(kernels::grid_sampler(x3, g, out, gs("bilinear", "zeros", true)),
                    Catch::Contains("X must be 4-D NCHW or 5-D NCDHW"));
}

TEST_CASE("grid_sampler_grad: finite differences over X and Grid, every padding mode", "[grid_sampler][grad]") {
  // fp64 only: the sampled value has kinks where a point crosses a pixel
  // column, which fp32's 1e-2 step would straddle.
  std::mt19937 rng(5);
  for (const char* pad : {"zeros", "border", "reflection"})
    for (bool align : {true, false}) {
      Tensor x = random(Shape{2, 2, 3, 4}, DType::kFP64, rng), g = random(Shape{2, 3, 2, 2}, DType::kFP64, rng, -1.3, 1.3);
      const GridSamplerAttrs a = gs("bilinear", pad, align);
      INFO(pad << " align_corners " << align);
      CHECK_GRADCHECK_OP("grid_sampler", {&x, &g}, [&](Tensor& out) { kernels::grid_sampler(x, g, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& gr) {
                           kernels::grid_sampler_grad(x, g, dout, gr[0], gr[1], a);
                         });
    }
}

TEST_CASE("grid_sampler 5-D: corners and centre of a 2x2x2 volume, nearest, padding", "[grid_sampler]") {
  // Voxel (z, y, x) holds 4z + 2y + x + 1; Grid points are (x, y, z).
  Tensor x = f32(Shape{1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), out;
  Tensor g = f32(Shape{1, 1, 1, 5, 3}, {-1, -1, -1, 1, 1, 1, 1, -1, 1, 0, 0, 0, 3, 0, 0});
  kernels::grid_sampler(x, g, out, gs("bilinear", "zeros", true));
  CHECK(out.shape() == Shape{1, 1, 1, 1, 5});
  // (x=1, y=-1, z=1) is voxel (z 1, y 0, x 1) = 6; the centre is the mean 4.5;
  // x = 3 lies 1.5 pixels past the last column, beyond the zero padding's reach.
  CHECK(values(out) == std::vector<double>{1, 8, 6, 4.5, 0});
  kernels::grid_sampler(x, g, out, gs("bilinear", "border", true));
  CHECK(values(out)[4] == 5);  // clamped to x = 1: the mean of the x = 1 voxels (2 + 4 + 6 + 8) / 4
  Tensor gn = f32(Shape{1, 1, 1, 1, 3}, {0.2f, -0.6f, 0.9f});
  kernels::grid_sampler(x, gn, out, gs("nearest", "zeros", true));
  CHECK(values(out) == std::vector<double>{6});  // rounds to (x 1, y 0, z 1)
  // As in Paddle 2.6.2, a point within half a voxel past the edge (x = 1.2
  // -> pixel 1.1) reads zero under zeros padding before any rounding, and
  // the edge voxel under border padding.
  Tensor ge = f32(Shape{1, 1, 1, 1, 3}, {1.2f, -1, -1});
  kernels::grid_sampler(x, ge, out, gs("nearest", "zeros", true));
  CHECK(values(out) == std::vector<double>{0});
  kernels::grid_sampler(x, ge, out, gs("nearest", "border", true));
  CHECK(values(out) == std::vector<double>{2});
}

TEST_CASE("grid_sampler_grad 5-D: finite differences over X and Grid, every padding mode", "[grid_sampler][grad]") {
  // fp64, as the 4-D check (kinks at voxel boundaries).
  std::mt19937 rng(7);
  for (const char* pad : {"zeros", "border", "reflection"})
    for (bool align : {true, false}) {
      Tensor x = random(Shape{2, 2, 3, 2, 4}, DType::kFP64, rng);
      Tensor g = random(Shape{2, 2, 2, 2, 3}, DType::kFP64, rng, -1.3, 1.3);
      const GridSamplerAttrs a = gs("bilinear", pad, align);
      INFO(pad << " align_corners " << align);
      CHECK_GRADCHECK_OP("grid_sampler", {&x, &g}, [&](Tensor& out) { kernels::grid_sampler(x, g, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& gr) {
                           kernels::grid_sampler_grad(x, g, dout, gr[0], gr[1], a);
                         });
    }
  // Nearest: X@GRAD by finite differences (linear in X); Grid@GRAD is zero.
  Tensor x = random(Shape{1, 2, 2, 3, 3}, DType::kFP64, rng), g = random(Shape{1, 2, 1, 2, 3}, DType::kFP64, rng);
  const GridSamplerAttrs a = gs("nearest", "reflection", false);
  CHECK_GRADCHECK({&x}, [&](Tensor& out) { kernels::grid_sampler(x, g, out, a); },
                  [&](const Tensor& dout, std::vector<Tensor*>& gr) {
                    kernels::grid_sampler_grad(x, g, dout, gr[0], nullptr, a);
                  });
  Tensor dout = random(Shape{1, 2, 2, 1, 2}, DType::kFP64, rng), gg;
  kernels::grid_sampler_grad(x, g, dout, nullptr, &gg, a);
  CHECK(values(gg) == std::vector<double>(12, 0.0));
}

namespace {

kernels::DeformableConvAttrs dconv(int stride, int pad, int dil, int groups, int dg) {
  kernels::DeformableConvAttrs a;
  a.strides = {stride, stride};
  a.paddings = {pad, pad};
  a.dilations = {dil, dil};
  a.groups = groups;
  a.deformable_groups = dg;
  return a;
}

}  // namespace

TEST_CASE("deformable_conv: zero offsets and unit mask are a plain convolution; bad shapes fail", "[deformable_conv]") {
  // 1x1x3x3 input, 2x2 all-ones filter, no padding: each output sums a 2x2 window.
  Tensor x = f32(Shape{1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), w = f32(Shape{1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor off = f32(Shape{1, 8, 2, 2}, std::vector<float>(32, 0.0f)), m = f32(Shape{1, 4, 2, 2}, std::vector<float>(16, 1.0f));
  Tensor out;
  kernels::deformable_conv(x, off, m, w, out, dconv(1, 0, 1, 1, 1));
  CHECK(values(out) == std::vector<double>{12, 16, 24, 28});
  // Shifting every tap one pixel right (dw = 1): the right column reads zeros.
  for (int64_t i = 0; i < 32; ++i) set(off, i, (i / 4) % 2 == 1 ? 1.0 : 0.0);
  kernels::deformable_conv_v1(x, off, w, out, dconv(1, 0, 1, 1, 1));
  CHECK(values(out) == std::vector<double>{16, 9, 28, 15});
  Tensor short_off = f32(Shape{1, 6, 2, 2}, std::vector<float>(24, 0.0f));
  CHECK_THROWS_WITH(kernels::deformable_conv(x, short_off, m, w, out, dconv(1, 0, 1, 1, 1)),
                    Catch::Contains("Offset is [1, 6, 2, 2] but needs"));
  CHECK_THROWS_WITH(kernels::deformable_conv(x, off, m, w, out, dconv(0, 0, 1, 1, 1)), Catch::Contains("strides"));
}

TEST_CASE("deformable_conv_grad: finite differences over Input, Offset, Mask and Filter", "[deformable_conv][grad]") {
  // fp64: bilinear sampling has kinks at pixel boundaries (see grid_sampler).
  std::mt19937 rng(9);
  const kernels::DeformableConvAttrs a = dconv(2, 1, 1, 2, 2);
  Tensor x = random(Shape{1, 4, 4, 5}, DType::kFP64, rng), w = random(Shape{2, 2, 3, 3}, DType::kFP64, rng);
  Tensor off = random(Shape{1, 36, 2, 3}, DType::kFP64, rng, -1.5, 1.5), m = random(Shape{1, 18, 2, 3}, DType::kFP64, rng);
  CHECK_GRADCHECK_OP("deformable_conv", {&x, &off, &m, &w},
                     [&](Tensor& out) { kernels::deformable_conv(x, off, m, w, out, a); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       kernels::deformable_conv_grad(x, off, m, w, dout, g[0], g[1], g[2], g[3], a);
                     });
  CHECK_GRADCHECK_OP("deformable_conv_v1", {&x, &off, &w},
                     [&](Tensor& out) { kernels::deformable_conv_v1(x, off, w, out, a); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       kernels::deformable_conv_v1_grad(x, off, w, dout, g[0], g[1], g[2], a);
                     });
}

TEST_CASE("affine_grid: hand-computed grid, OutputShape input, size-1 axes, gradient, errors", "[affine_grid]") {
  // Paddle's documented example: theta [[-0.7, -0.4, 0.3], [0.6, 0.5, 1.5]], 3x3 grid, align_corners false.
  Tensor theta;
  theta.resize(Shape{1, 2, 3}, DType::kFP32);
  const float t[] = {-0.7f, -0.4f, 0.3f, 0.6f, 0.5f, 1.5f};
  std::copy(t, t + 6, theta.data<float>());
  kernels::AffineGridAttrs a;
  a.output_shape = {1, 2, 3, 3};
  a.align_corners = false;
  Tensor grid;
  kernels::affine_grid(theta, nullptr, grid, a);
  REQUIRE(grid.shape() == Shape{1, 3, 3, 2});
  const float want[] = {1.0333333f, 0.76666665f, 0.56666672f, 1.1666666f, 0.1f, 1.5666667f};
  for (int i = 0; i < 6; ++i) CHECK(grid.data<float>()[i] == Approx(want[i]).epsilon(1e-6));
  // The same shape from an int32 OutputShape input gives the same grid.
  Tensor size, grid2;
  size.resize(Shape{4}, DType::kInt32);
  const int32_t dims[] = {1, 2, 3, 3};
  std::copy(dims, dims + 4, size.data<int32_t>());
  kernels::AffineGridAttrs no_attr = a;
  no_attr.output_shape = {};
  kernels::affine_grid(theta, &size, grid2, no_attr);
  REQUIRE(grid2.shape() == grid.shape());
  for (int64_t i = 0; i < grid.numel(); ++i) CHECK(grid2.data<float>()[i] == grid.data<float>()[i]);
  // A size-1 axis: -1 aligned, 0 not (PyTorch's values; Paddle 2.6.2 gives NaN).
  for (bool align : {true, false}) {
    kernels::AffineGridAttrs one = a;
    one.output_shape = {1, 1, 1, 1};
    one.align_corners = align;
    Tensor g1;
    kernels::affine_grid(theta, nullptr, g1, one);
    const float c = align ? -1.0f : 0.0f;
    CHECK(g1.data<float>()[0] == Approx(-0.7f * c - 0.4f * c + 0.3f));
  }
  // Theta@GRAD by finite differences, 2-D and 3-D, both alignments.
  for (bool align : {true, false})
    for (int spatial : {2, 3}) {
      INFO("align " << align << ", " << spatial << "-D");
      std::mt19937 rng(31);
      Tensor th = random(Shape{2, spatial, spatial + 1}, DType::kFP64, rng);
      kernels::AffineGridAttrs ga;
      ga.align_corners = align;
      ga.output_shape = spatial == 2 ? std::vector<int>{2, 1, 3, 4} : std::vector<int>{2, 1, 2, 3, 4};
      CHECK_GRADCHECK_OP("affine_grid", {&th}, [&](Tensor& out) { kernels::affine_grid(th, nullptr, out, ga); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::affine_grid_grad(&th, nullptr, dout, g[0], ga);
                         });
    }
  kernels::AffineGridAttrs bad = a;
  bad.output_shape = {2, 2, 3, 3};
  CHECK_THROWS_WITH(kernels::affine_grid(theta, nullptr, grid, bad), Catch::Contains("batch 1"));
  bad.output_shape = {1, 2, 3};
  CHECK_THROWS_WITH(kernels::affine_grid(theta, nullptr, grid, bad), Catch::Contains("must have 4 values"));
  Tensor wrong;
  wrong.resize(Shape{1, 2, 2}, DType::kFP32);
  CHECK_THROWS_WITH(kernels::affine_grid(wrong, nullptr, grid, a), Catch::Contains("Theta must be"));
}
