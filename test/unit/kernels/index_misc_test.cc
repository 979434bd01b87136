// test/unit/kernels/index_misc_test.cc - linspace and cumprod: values, dtypes, zeros, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/index.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

kernels::LinspaceAttrs as(DType dt) {
  kernels::LinspaceAttrs a;
  a.dtype = static_cast<int>(dt);
  return a;
}

kernels::CumprodAttrs along(int dim) {
  kernels::CumprodAttrs a;
  a.dim = dim;
  return a;
}

}  // namespace

TEST_CASE("linspace: both ends exact, one value, integer truncation", "[linspace]") {
  Tensor out;
  kernels::linspace(f64(Shape{1}, {0}), f64(Shape{1}, {1}), i32(Shape{1}, {5}), out, as(DType::kFP64));
  CHECK(values(out) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  kernels::linspace(f32(Shape{1}, {-1.3f}), f32(Shape{1}, {2.1f}), i64(Shape{1}, {7}), out, as(DType::kFP32));
  CHECK(get(out, 0) == -1.3f);
  CHECK(get(out, 6) == 2.1f);
  // Integer ends: the first half counts up from Start, the second down from Stop.
  kernels::linspace(i32(Shape{1}, {0}), i32(Shape{1}, {10}), i32(Shape{1}, {4}), out, as(DType::kInt32));
  CHECK(values(out) == std::vector<double>{0, 3, 6, 10});
  kernels::linspace(f32(Shape{1}, {3}), f32(Shape{1}, {5}), i32(Shape{1}, {1}), out, as(DType::kFP32));
  CHECK(values(out) == std::vector<double>{3});
  CHECK_THROWS_WITH(
      kernels::linspace(f32(Shape{1}, {3}), f32(Shape{1}, {5}), i32(Shape{1}, {0}), out, as(DType::kFP32)),
      Catch::Contains("at least 1"));
}

TEST_CASE("cumprod: along a dim, zeros, ints, in place", "[cumprod]") {
  Tensor out, dx;
  kernels::cumprod(f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, along(1));
  CHECK(values(out) == std::vector<double>{1, 2, 6, 4, 20, 120});
  kernels::cumprod(f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, along(0));
  CHECK(values(out) == std::vector<double>{1, 2, 3, 4, 10, 18});
  kernels::cumprod(i64(Shape{3}, {2, -3, 4}), out, along(-1));
  CHECK(values(out) == std::vector<double>{2, -6, -24});
  Tensor x = f32(Shape{3}, {2, 3, 4});
  kernels::cumprod(x, x, along(0));
  CHECK(values(x) == std::vector<double>{2, 6, 24});
  // Zeros: the gradient never divides by X (Paddle's values for this input).
  const Tensor z = f32(Shape{4}, {2, 0, 3, 0.5});
  kernels::cumprod(z, out, along(0));
  kernels::cumprod_grad(z, out, f32(Shape{4}, {1, 2, 3, 4}), &dx, along(0));
  CHECK(values(dx) == std::vector<double>{1, 34, 0, 0});
  CHECK_THROWS_WITH(kernels::cumprod(z, out, along(1)), Catch::Contains("out of range"));
}

TEST_CASE("cumprod_grad matches finite differences", "[cumprod][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (int dim : {0, 1, -1}) {
      std::mt19937 rng(9);
      Tensor x = random(Shape{3, 4, 2}, dt, rng, -1.5, 1.5);
      set(x, 5, 0.0);  // a zero: its gradient needs the products around it
      Tensor out;
      CHECK_GRADCHECK_OP("cumprod", {&x}, [&](Tensor& o) { kernels::cumprod(x, o, along(dim)); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::cumprod(x, out, along(dim));
                           kernels::cumprod_grad(x, out, dout, g[0], along(dim));
                         });
    }
}
