// test/unit/kernels/elementwise_test.cc - elementwise ops: broadcasting with axis, dtypes, aliasing, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/elementwise.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::ElementwiseAttrs;

namespace {

ElementwiseAttrs axis(int a) {
  ElementwiseAttrs at;
  at.axis = a;
  return at;
}

using Binary = void (*)(const Tensor&, const Tensor&, Tensor&, const ElementwiseAttrs&);

}  // namespace

TEST_CASE("elementwise_add with equal shapes", "[elementwise]") {
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  Tensor y = f32(Shape{2, 2}, {10, 20, 30, 40});
  Tensor out;
  kernels::elementwise_add(x, y, out, {});
  CHECK(out.shape() == Shape{2, 2});
  CHECK(out.dtype() == DType::kFP32);
  CHECK(values(out) == std::vector<double>{11, 22, 33, 44});
}

TEST_CASE("elementwise: lower-rank Y aligned at axis", "[elementwise]") {
  // X [2,3,2], Y [3] at axis 1: out[i,j,k] = x[i,j,k] + y[j].
  std::vector<float> xv(12);
  for (int i = 0; i < 12; ++i) xv[i] = static_cast<float>(i);
  Tensor x = f32(Shape{2, 3, 2}, xv);
  Tensor y = f32(Shape{3}, {100, 200, 300});
  Tensor out;
  kernels::elementwise_add(x, y, out, axis(1));
  REQUIRE(out.shape() == Shape{2, 3, 2});
  CHECK(values(out) ==
        std::vector<double>{100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311});

  SECTION("axis 0 with Y [2,3] on X [2,3,2]") {
    Tensor y2 = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
    kernels::elementwise_mul(x, y2, out, axis(0));
    CHECK(values(out) == std::vector<double>{0, 1, 4, 6, 12, 15, 24, 28, 40, 45, 60, 66});
  }
  SECTION("default axis aligns trailing dims") {
    Tensor y3 = f32(Shape{2}, {1, -1});
    kernels::elementwise_mul(x, y3, out, {});
    CHECK(values(out) == std::vector<double>{0, -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11});
  }
}

TEST_CASE("elementwise: size-1 dims broadcast in both directions", "[elementwise]") {
  Tensor x = f32(Shape{2, 1, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = f32(Shape{4, 1}, {10, 20, 30, 40});  // aligned to [1, 4, 1]
  Tensor out;
  kernels::elementwise_sub(x, y, out, {});
  REQUIRE(out.shape() == Shape{2, 4, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        CHECK(get(out, (i * 4 + j) * 3 + k) == (i * 3 + k + 1) - 10.0 * (j + 1));
}

TEST_CASE("elementwise: X of lower rank than Y", "[elementwise]") {
  Tensor x = f32(Shape{3}, {1, 2, 3});
  Tensor y = f32(Shape{2, 3}, {1, 1, 1, 2, 2, 2});
  Tensor out;
  kernels::elementwise_div(x, y, out, {});
  CHECK(out.shape() == Shape{2, 3});
  CHECK(values(out) == std::vector<double>{1, 2, 3, 0.5, 1, 1.5});
  // X [2] placed at axis 0 of Y [2, 3].
  Tensor x2 = f32(Shape{2}, {10, 20});
  kernels::elementwise_sub(x2, y, out, axis(0));
  CHECK(values(out) == std::vector<double>{9, 9, 9, 18, 18, 18});
}

TEST_CASE("elementwise: 0-D operands", "[elementwise]") {
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  Tensor s = f32(Shape{}, {2});
  Tensor out;
  kernels::elementwise_mul(x, s, out, {});
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{2, 4, 6, 8});
  kernels::elementwise_add(s, s, out, {});
  CHECK(out.rank() == 0);
  CHECK(get(out, 0) == 4);
}

TEST_CASE("elementwise: integer and fp64 dtypes", "[elementwise]") {
  Tensor out;
  SECTION("int32 division truncates toward zero") {
    Tensor a = i32(Shape{4}, {7, -7, 9, 1});
    Tensor b = i32(Shape{4}, {2, 2, -4, 3});
    kernels::elementwise_div(a, b, out, {});
    CHECK(out.dtype() == DType::kInt32);
    CHECK(values(out) == std::vector<double>{3, -3, -2, 0});
  }
  SECTION("int64 keeps 64-bit values") {
    Tensor a = i64(Shape{2}, {int64_t{1} << 40, 5});
    Tensor b = i64(Shape{1}, {3});
    kernels::elementwise_mul(a, b, out, {});
    CHECK(out.dtype() == DType::kInt64);
    CHECK(out.data<int64_t>()[0] == (int64_t{3} << 40));
    CHECK(out.data<int64_t>()[1] == 15);
  }
  SECTION("integer division by zero throws") {
    Tensor a = i64(Shape{2}, {1, 2});
    Tensor b = i64(Shape{2}, {1, 0});
    CHECK_THROWS_AS(kernels::elementwise_div(a, b, out, {}), rt::Error);
  }
  SECTION("fp64") {
    Tensor a = f64(Shape{2}, {0.1, 0.2});
    Tensor b = f64(Shape{2}, {0.2, 0.1});
    kernels::elementwise_add(a, b, out, {});
    CHECK(out.dtype() == DType::kFP64);
    CHECK(out.data<double>()[0] == 0.1 + 0.2);
  }
  SECTION("float division by zero follows IEEE") {
    Tensor a = f32(Shape{2}, {1, -1});
    Tensor b = f32(Shape{1}, {0});
    kernels::elementwise_div(a, b, out, {});
    CHECK(std::isinf(get(out, 0)));
    CHECK(get(out, 1) < 0);
  }
}

TEST_CASE("elementwise: Out may alias an input", "[elementwise][alias]") {
  SECTION("same shape, in place") {
    Tensor x = f32(Shape{3}, {1, 2, 3});
    Tensor y = f32(Shape{3}, {1, 1, 1});
    kernels::elementwise_add(x, y, x, {});
    CHECK(values(x) == std::vector<double>{2, 3, 4});
    kernels::elementwise_mul(x, x, x, {});
    CHECK(values(x) == std::vector<double>{4, 9, 16});
  }
  SECTION("Out is the broadcast operand and grows") {
    Tensor x = f32(Shape{3}, {1, 2, 3});
    Tensor y = f32(Shape{2, 3}, {10, 20, 30, 40, 50, 60});
    kernels::elementwise_add(x, y, x, {});
    CHECK(x.shape() == Shape{2, 3});
    CHECK(values(x) == std::vector<double>{11, 22, 33, 41, 52, 63});
  }
  SECTION("Out is Y, broadcast") {
    Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
    Tensor y = f32(Shape{2}, {10, 100});
    kernels::elementwise_sub(x, y, y, {});
    CHECK(values(y) == std::vector<double>{-9, -98, -7, -96});
  }
}

TEST_CASE("elementwise: invalid inputs throw rt::Error", "[elementwise][errors]") {
  Tensor out;
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  SECTION("incompatible dims name both shapes") {
    Tensor y = f32(Shape{4}, {1, 2, 3, 4});
    try {
      kernels::elementwise_add(x, y, out, {});
      FAIL("no throw");
    } catch (const rt::Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("elementwise_add") && Catch::Contains("[2, 3]") &&
                               Catch::Contains("[4]"));
    }
  }
  SECTION("dtype mismatch") {
    Tensor y = f64(Shape{3}, {1, 2, 3});
    CHECK_THROWS_AS(kernels::elementwise_mul(x, y, out, {}), rt::Error);
  }
  SECTION("axis out of range") {
    Tensor y = f32(Shape{3}, {1, 2, 3});
    CHECK_THROWS_AS(kernels::elementwise_add(x, y, out, axis(2)), rt::Error);
    CHECK_THROWS_AS(kernels::elementwise_add(x, y, out, axis(-2)), rt::Error);
  }
  SECTION("Y at axis 0 where dims do not fit") {
    Tensor y = f32(Shape{3}, {1, 2, 3});
    CHECK_THROWS_AS(kernels::elementwise_add(x, y, out, axis(0)), rt::Error);
  }
  SECTION("unsupported dtype") {
    Tensor b;
    b.resize(Shape{2}, DType::kBool);
    CHECK_THROWS_WITH(kernels::elementwise_add(b, b, out, {}), Catch::Contains("bool"));
  }
  SECTION("uninitialized input") {
    Tensor empty;
    CHECK_THROWS_AS(kernels::elementwise_add(x, empty, out, {}), rt::Error);
  }
  SECTION("gradient with a wrong Out@GRAD shape") {
    Tensor y = f32(Shape{3}, {1, 2, 3});
    Tensor dout = f32(Shape{3}, {1, 1, 1});
    Tensor dx;
    CHECK_THROWS_AS(kernels::elementwise_add_grad(x, y, dout, &dx, nullptr, {}), rt::Error);
  }
}

TEST_CASE("elementwise grads: hand-computed reductions", "[elementwise][grad]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = f32(Shape{3}, {1, 2, 4});
  Tensor dout = f32(Shape{2, 3}, {1, 1, 1, 2, 2, 2});
  Tensor dx, dy;
  kernels::elementwise_add_grad(x, y, dout, &dx, &dy, {});
  CHECK(values(dx) == values(dout));
  CHECK(dy.shape() == Shape{3});
  CHECK(values(dy) == std::vector<double>{3, 3, 3});

  kernels::elementwise_sub_grad(x, y, dout, &dx, &dy, {});
  CHECK(values(dy) == std::vector<double>{-3, -3, -3});

  kernels::elementwise_mul_grad(x, y, dout, &dx, &dy, {});
  CHECK(values(dx) == std::vector<double>{1, 2, 4, 2, 4, 8});
  CHECK(values(dy) == std::vector<double>{1 + 8, 2 + 10, 3 + 12});

  SECTION("only Y@GRAD wanted, and Y@GRAD written over Out@GRAD's tensor") {
    Tensor g = f32(Shape{2, 3}, {1, 1, 1, 2, 2, 2});
    kernels::elementwise_add_grad(x, y, g, nullptr, &g, {});
    CHECK(g.shape() == Shape{3});
    CHECK(values(g) == std::vector<double>{3, 3, 3});
  }
  SECTION("div") {
    Tensor out;
    kernels::elementwise_div(x, y, out, {});
    kernels::elementwise_div_grad(x, y, out, dout, &dx, &dy, {});
    CHECK(values(dx) == std::vector<double>{1, 0.5, 0.25, 2, 1, 0.5});
    // dy = -sum(dout * x / y^2) over rows
    CHECK(get(dy, 0) == Approx(-(1 * 1 + 2 * 4) / 1.0));
    CHECK(get(dy, 1) == Approx(-(1 * 2 + 2 * 5) / 4.0));
    CHECK(get(dy, 2) == Approx(-(1 * 3 + 2 * 6) / 16.0));
  }
}

namespace {

struct Case {
  Shape xs, ys;
  int axis;
};

const Case kCases[] = {
    {Shape{2, 3}, Shape{2, 3}, -1},        // same shape
    {Shape{2, 3, 4}, Shape{4}, -1},        // trailing bias
    {Shape{2, 3, 4}, Shape{3}, 1},         // middle axis
    {Shape{2, 3, 21}, Shape{3}, 1},        // a conv bias: runs of 21 summed in 8 lanes and a tail
    {Shape{2, 3, 4}, Shape{2, 3}, 0},      // leading axis
    {Shape{2, 1, 3}, Shape{4, 1}, -1},     // size-1 dims both ways
    {Shape{3}, Shape{2, 3}, -1},           // X is the smaller one
    {Shape{2, 3}, Shape{}, -1},            // 0-D Y
};

using Grad3 = void (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor*, const ElementwiseAttrs&);

void check_binary_grad(const char* op, Binary fwd, Grad3 bwd, DType dt, bool positive_y) {
  for (const Case& c : kCases) {
    INFO("X " << c.xs.str() << " Y " << c.ys.str() << " axis " << c.axis << " dtype "
              << rt::dtype_name(dt));
    std::mt19937 rng(42);
    Tensor x = random(c.xs, dt, rng);
    Tensor y = random(c.ys, dt, rng, positive_y ? 0.5 : -1.0, positive_y ? 1.5 : 1.0);
    ElementwiseAttrs a = axis(c.axis);
    CHECK_GRADCHECK_OP(op, {&x, &y}, [&](Tensor& out) { fwd(x, y, out, a); },
                    [&](const Tensor& dout, std::vector<Tensor*>& g) { bwd(x, y, dout, g[0], g[1], a); });
  }
}

}  // namespace

TEST_CASE("elementwise grads match finite differences", "[elementwise][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    check_binary_grad("elementwise_add", kernels::elementwise_add, kernels::elementwise_add_grad, dt, false);
    check_binary_grad("elementwise_sub", kernels::elementwise_sub, kernels::elementwise_sub_grad, dt, false);
    check_binary_grad("elementwise_mul", kernels::elementwise_mul, kernels::elementwise_mul_grad, dt, false);
  }
}

TEST_CASE("elementwise_div_grad matches finite differences", "[elementwise][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    for (const Case& c : kCases) {
      INFO("X " << c.xs.str() << " Y " << c.ys.str() << " axis " << c.axis);
      std::mt19937 rng(5);
      Tensor x = random(c.xs, dt, rng);
      Tensor y = random(c.ys, dt, rng, 0.5, 1.5);
      ElementwiseAttrs a = axis(c.axis);
      CHECK_GRADCHECK_OP("elementwise_div", {&x, &y}, [&](Tensor& out) { kernels::elementwise_div(x, y, out, a); },
                      [&](const Tensor& dout, std::vector<Tensor*>& g) {
                        Tensor out;
                        kernels::elementwise_div(x, y, out, a);
                        kernels::elementwise_div_grad(x, y, out, dout, g[0], g[1], a);
                      });
    }
  }
}
