// test/unit/kernels/elementwise_more_test.cc - elementwise_pow, elementwise_floordiv, the bitwise ops, atan2 and minus: values, dtypes, gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/elementwise.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::ElementwiseAttrs;

TEST_CASE("elementwise_pow: floats, integers, broadcasting", "[elementwise]") {
  Tensor out;
  kernels::elementwise_pow(f32(Shape{2, 2}, {2, 9, 0.5f, 4}), f32(Shape{2}, {3, 0.5f}), out, {});
  REQUIRE(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{8, 3, 0.125, 2});
  // Integers: the double power rounded to nearest (Paddle gives 2 ^ -1 = 0).
  kernels::elementwise_pow(i32(Shape{4}, {2, 3, -2, 2}), i32(Shape{4}, {3, 2, 3, -1}), out, {});
  CHECK(values(out) == std::vector<double>{8, 9, -8, 0});
}

TEST_CASE("elementwise_floordiv: Python's sign rule", "[elementwise]") {
  Tensor out;
  kernels::elementwise_floordiv(i32(Shape{6}, {7, -7, 7, -7, 0, -1}), i32(Shape{6}, {2, 2, -2, -2, 3, 4}), out, {});
  CHECK(values(out) == std::vector<double>{3, -4, -4, 3, 0, -1});
  kernels::elementwise_floordiv(i64(Shape{2}, {-6, 6}), i64(Shape{1}, {3}), out, {});
  CHECK(values(out) == std::vector<double>{-2, 2});
  kernels::elementwise_floordiv(f32(Shape{4}, {7.5f, -7.5f, 7.5f, -7.5f}), f32(Shape{4}, {2, 2, -2, -2}), out, {});
  CHECK(values(out) == std::vector<double>{3, -4, -4, 3});
  CHECK_THROWS_WITH(kernels::elementwise_floordiv(i32(Shape{1}, {1}), i32(Shape{1}, {0}), out, {}),
                    Catch::Contains("division by zero"));
}

TEST_CASE("bitwise ops: integers and bools, broadcasting", "[elementwise]") {
  Tensor out;
  const Tensor a = i64(Shape{2, 2}, {12, 10, -1, 0}), b = i64(Shape{2}, {10, 6});
  kernels::bitwise_and(a, b, out);
  CHECK(values(out) == std::vector<double>{8, 2, 10, 0});
  kernels::bitwise_or(a, b, out);
  CHECK(values(out) == std::vector<double>{14, 14, -1, 6});
  kernels::bitwise_xor(a, b, out);
  CHECK(values(out) == std::vector<double>{6, 12, -11, 6});
  kernels::bitwise_not(i32(Shape{3}, {5, -1, 0}), out);
  CHECK(values(out) == std::vector<double>{-6, 0, -1});
  const Tensor t = make<bool>(Shape{4}, {true, true, false, false}), u = make<bool>(Shape{4}, {true, false, true, false});
  kernels::bitwise_and(t, u, out);
  CHECK(out.dtype() == DType::kBool);
  CHECK(values(out) == std::vector<double>{1, 0, 0, 0});
  kernels::bitwise_xor(t, u, out);
  CHECK(values(out) == std::vector<double>{0, 1, 1, 0});
  kernels::bitwise_not(t, out);
  CHECK(values(out) == std::vector<double>{0, 0, 1, 1});
  CHECK_THROWS_WITH(kernels::bitwise_and(f32(Shape{1}, {1}), f32(Shape{1}, {1}), out), Catch::Contains("float32"));
}

TEST_CASE("elementwise_pow: gradient", "[elementwise]") {
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    std::mt19937 rng(21);
    // X > 0 so that log(X) in Y's gradient is finite; Y broadcast as a row.
    Tensor x = random(Shape{3, 4}, dt, rng, 0.5, 2.0), y = random(Shape{4}, dt, rng, -1.5, 2.5);
    const ElementwiseAttrs a;
    CHECK_GRADCHECK_OP("elementwise_pow", {&x, &y}, [&](Tensor& out) { kernels::elementwise_pow(x, y, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::elementwise_pow_grad(x, y, dout, g[0], g[1], a);
                       });
  }
}

TEST_CASE("atan2: quadrants, integers to fp64, no broadcasting", "[elementwise]") {
  Tensor out;
  kernels::atan2(f64(Shape{4}, {1, 1, -1, 0}), f64(Shape{4}, {1, -1, -1, -2}), out);
  const double pi = 3.14159265358979323846;
  CHECK(get(out, 0) == Approx(pi / 4));
  CHECK(get(out, 1) == Approx(3 * pi / 4));
  CHECK(get(out, 2) == Approx(-3 * pi / 4));
  CHECK(get(out, 3) == Approx(pi));
  kernels::atan2(i64(Shape{2}, {0, -3}), i64(Shape{2}, {5, 0}), out);
  CHECK(out.dtype() == DType::kFP64);
  CHECK(get(out, 0) == 0);
  CHECK(get(out, 1) == Approx(-pi / 2));
  CHECK_THROWS_WITH(kernels::atan2(f32(Shape{2, 2}, {1, 2, 3, 4}), f32(Shape{2}, {1, 2}), out),
                    Catch::Contains("atan2 does not broadcast"));
  CHECK_THROWS_WITH(kernels::atan2(f32(Shape{2}, {1, 2}), f64(Shape{2}, {1, 2}), out), Catch::Contains("X2 is"));
}

TEST_CASE("atan2_grad matches finite differences", "[elementwise][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(3);
    Tensor a = random(Shape{3, 4}, dt, rng), b = random(Shape{3, 4}, dt, rng);
    // Away from the origin, where atan2 is not differentiable.
    for (int64_t i = 0; i < b.numel(); ++i) set(b, i, get(b, i) + (get(b, i) < 0 ? -0.5 : 0.5));
    CHECK_GRADCHECK_OP("atan2", {&a, &b}, [&](Tensor& out) { kernels::atan2(a, b, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::atan2_grad(a, b, dout, g[0], g[1]); });
  }
}

TEST_CASE("minus (Fluid 1.x): X - Y of one shape, no broadcasting", "[elementwise]") {
  Tensor out;
  kernels::minus(f32(Shape{3}, {5, 0, -2}), f32(Shape{3}, {1, 4, -7}), out);
  CHECK(values(out) == std::vector<double>{4, -4, 5});
  Tensor x = f32(Shape{2}, {1.5f, 2});
  kernels::minus(x, f32(Shape{2}, {0.5f, 3}), x);  // written over X
  CHECK(values(x) == std::vector<double>{1, -1});
  // Paddle registers float32 only.
  CHECK_THROWS_WITH(kernels::minus(f64(Shape{1}, {1}), f64(Shape{1}, {1}), out), Catch::Contains("unsupported dtype"));
  CHECK_THROWS_WITH(kernels::minus(f32(Shape{2, 1}, {1, 2}), f32(Shape{2}, {1, 2}), out), Catch::Contains("shape"));
}
