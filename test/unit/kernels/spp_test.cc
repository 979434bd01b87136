// test/unit/kernels/spp_test.cc - spp: pyramid levels of a small image, padding, refusals, gradients.
#include <catch2/catch.hpp>

#include "kernels/spp.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::SppAttrs sa(int levels, const char* type) {
  k::SppAttrs a;
  a.pyramid_height = levels;
  a.pooling_type = type;
  return a;
}

}  // namespace

TEST_CASE("spp: the whole image, then 2 x 2 bins, flattened per image", "[spp]") {
  // One channel, 2 x 3: 0 1 2 / 3 4 5. Level 1 windows are ceil(2/2) x ceil(3/2) = 1 x 2 with
  // (2 * 2 - 3 + 1) / 2 = 1 column of padding each side: columns {0}, {1, 2} per row.
  Tensor x = f32(Shape{1, 1, 2, 3}, {0, 1, 2, 3, 4, 5}), out;
  k::spp(x, out, sa(2, "max"));
  CHECK(out.shape() == Shape{1, 5});
  CHECK(values(out) == std::vector<double>{5, 0, 2, 3, 5});
  // Averages over the elements inside the image only.
  k::spp(x, out, sa(2, "avg"));
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{2.5, 0, 1.5, 3, 4.5}));
  CHECK_THROWS_WITH(k::spp(x, out, sa(3, "max")), Catch::Contains("smaller than the finest level's 4 x 4 bins"));
  CHECK_THROWS_WITH(k::spp(x, out, sa(0, "max")), Catch::Contains("pyramid_height 0 must be 1 to"));
  CHECK_THROWS_WITH(k::spp(x, out, sa(1, "min")), Catch::Contains("pooling_type"));
  Tensor flat = f32(Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  CHECK_THROWS_WITH(k::spp(flat, out, sa(1, "max")), Catch::Contains("X must be 4-D"));
}

TEST_CASE("spp_grad: finite differences over X, max and average", "[spp][grad]") {
  std::mt19937 rng(9);
  for (const char* type : {"max", "avg"}) {
    // 8 x 6 with 3 levels: every window holds part of the image. (At 5 x 7 the 4 x 4 level's first
    // row of windows lies in the padding, which Paddle fills with -FLT_MAX or 0 / 0: no derivative.)
    Tensor x = random(Shape{2, 2, 8, 6}, DType::kFP64, rng);
    const k::SppAttrs a = sa(3, type);
    INFO("pooling_type " << type);
    CHECK_GRADCHECK_OP("spp", {&x}, [&](Tensor& out) { k::spp(x, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out;
                         k::spp(x, out, a);
                         k::spp_grad(x, out, dout, g[0], a);
                       });
  }
}
