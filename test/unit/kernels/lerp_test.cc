// test/unit/kernels/lerp_test.cc - lerp: broadcast of three operands, errors, gradients summed back.
#include <catch2/catch.hpp>

#include "kernels/elementwise.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

TEST_CASE("lerp: scalar and tensor weights, broadcasting, grads reduced", "[lerp]") {
  Tensor out, dx, dy;
  const Tensor x = f32(Shape{2, 2}, {0, 1, 2, 3}), y = f32(Shape{2}, {10, 20});
  kernels::lerp(x, y, f32(Shape{1}, {0.5f}), out);
  REQUIRE(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{5, 10.5, 6, 11.5});
  kernels::lerp(x, y, f32(Shape{2, 1}, {0, 1}), out);
  CHECK(values(out) == std::vector<double>{0, 1, 10, 20});
  kernels::lerp_grad(x, y, f32(Shape{2, 1}, {0.25f, 1}), out, f32(Shape{2, 2}, {1, 2, 3, 4}), &dx, &dy);
  CHECK(values(dx) == std::vector<double>{0.75, 1.5, 0, 0});
  CHECK(values(dy) == std::vector<double>{0.25 + 3, 0.5 + 4});
  CHECK_THROWS_WITH(kernels::lerp(x, f32(Shape{3}, {1, 2, 3}), f32(Shape{1}, {0.5f}), out),
                    Catch::Contains("cannot be broadcast"));
}

TEST_CASE("lerp_grad matches finite differences", "[lerp][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(6);
    Tensor x = random(Shape{2, 3, 4}, dt, rng), y = random(Shape{3, 1}, dt, rng);
    const Tensor w = random(Shape{4}, dt, rng);
    CHECK_GRADCHECK_OP("lerp", {&x, &y}, [&](Tensor& o) { kernels::lerp(x, y, w, o); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out;
                         kernels::lerp(x, y, w, out);
                         kernels::lerp_grad(x, y, w, out, dout, g[0], g[1]);
                       });
  }
}
