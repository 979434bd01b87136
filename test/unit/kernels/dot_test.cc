// test/unit/kernels/dot_test.cc - dot: 1-D and row-wise 2-D products, dtypes, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/matmul.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

TEST_CASE("dot: 1-D gives 0-D, 2-D one product per row, ints", "[dot]") {
  Tensor out;
  kernels::dot(f32(Shape{3}, {1, 2, 3}), f32(Shape{3}, {4, -5, 6}), out);
  CHECK(out.shape().rank == 0);
  CHECK(values(out) == std::vector<double>{12});
  kernels::dot(f64(Shape{2, 2}, {1, 2, 3, 4}), f64(Shape{2, 2}, {5, 6, 7, 8}), out);
  REQUIRE(out.shape() == Shape{2});
  CHECK(values(out) == std::vector<double>{17, 53});
  kernels::dot(i64(Shape{2}, {3, 4}), i64(Shape{2}, {5, 6}), out);
  CHECK(values(out) == std::vector<double>{39});
  Tensor dx, dy;
  kernels::dot_grad(f32(Shape{2, 2}, {1, 2, 3, 4}), f32(Shape{2, 2}, {5, 6, 7, 8}), f32(Shape{2}, {2, -1}), &dx, &dy);
  CHECK(values(dx) == std::vector<double>{10, 12, -7, -8});
  CHECK(values(dy) == std::vector<double>{2, 4, -3, -4});
  CHECK_THROWS_WITH(kernels::dot(f32(Shape{3}, {1, 2, 3}), f32(Shape{2}, {1, 2}), out), Catch::Contains("differ"));
  CHECK_THROWS_WITH(kernels::dot(f32(Shape{1, 1, 1}, {1}), f32(Shape{1, 1, 1}, {1}), out),
                    Catch::Contains("1-D or both 2-D"));
}

TEST_CASE("dot_grad matches finite differences", "[dot][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Shape& s : {Shape{5}, Shape{3, 4}}) {
      std::mt19937 rng(11);
      Tensor x = random(s, dt, rng), y = random(s, dt, rng);
      CHECK_GRADCHECK_OP("dot", {&x, &y}, [&](Tensor& o) { kernels::dot(x, y, o); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::dot_grad(x, y, dout, g[0], g[1]); });
    }
}
