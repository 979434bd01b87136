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
  CHECK_THROWS_WITH(kernels::grid_sampler(x5, g, out, gs("bilinear", "zeros", true)), Catch::Contains("4-D"));
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
