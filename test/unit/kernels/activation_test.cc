// test/unit/kernels/activation_test.cc - relu/sigmoid/tanh/square/scale/softmax: values, aliasing, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/activation.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

TEST_CASE("unary activations: values", "[activation]") {
  Tensor x = f32(Shape{4}, {-2, -0.5f, 0, 1.5f});
  Tensor out;
  kernels::relu(x, out);
  CHECK(values(out) == std::vector<double>{0, 0, 0, 1.5});
  kernels::sigmoid(x, out);
  for (int i = 0; i < 4; ++i) CHECK(get(out, i) == Approx(1.0 / (1.0 + std::exp(-get(x, i)))));
  kernels::tanh(x, out);
  for (int i = 0; i < 4; ++i) CHECK(get(out, i) == Approx(std::tanh(get(x, i))));
  kernels::square(x, out);
  CHECK(values(out) == std::vector<double>{4, 0.25, 0, 2.25});

  Tensor xi = i64(Shape{3}, {-3, 0, 4});
  kernels::square(xi, out);
  CHECK(out.dtype() == DType::kInt64);
  CHECK(values(out) == std::vector<double>{9, 0, 16});
}

TEST_CASE("unary activations run in place", "[activation][alias]") {
  Tensor x = f64(Shape{2, 2}, {-1, 2, -3, 4});
  kernels::relu(x, x);
  CHECK(values(x) == std::vector<double>{0, 2, 0, 4});
  kernels::square(x, x);
  CHECK(values(x) == std::vector<double>{0, 4, 0, 16});
  Tensor g = f64(Shape{2, 2}, {1, 1, 1, 1});
  kernels::relu_grad(x, g, &g);  // X@GRAD written over Out@GRAD
  CHECK(values(g) == std::vector<double>{0, 1, 0, 1});
}

TEST_CASE("scale", "[activation]") {
  Tensor x = f32(Shape{3}, {1, 2, 3});
  Tensor out;
  kernels::ScaleAttrs a;
  a.scale = 2.0f;
  a.bias = 1.0f;
  kernels::scale(x, out, a);
  CHECK(values(out) == std::vector<double>{3, 5, 7});
  a.bias_after_scale = false;
  kernels::scale(x, out, a);
  CHECK(values(out) == std::vector<double>{4, 6, 8});

  SECTION("integer tensors use the attributes converted to the dtype") {
    Tensor xi = i32(Shape{3}, {1, 2, 3});
    kernels::ScaleAttrs b;
    b.scale = 2.5f;  // becomes 2
    b.bias = -1.0f;
    kernels::scale(xi, out, b);
    CHECK(out.dtype() == DType::kInt32);
    CHECK(values(out) == std::vector<double>{1, 3, 5});
  }
  SECTION("in place") {
    kernels::ScaleAttrs b;
    b.scale = -1.0f;
    kernels::scale(x, x, b);
    CHECK(values(x) == std::vector<double>{-1, -2, -3});
  }
}

TEST_CASE("softmax along different axes", "[activation][softmax]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 0, 0, 0});
  Tensor out;
  kernels::softmax(x, out, {});
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), s = e1 + e2 + e3;
  CHECK(get(out, 0) == Approx(e1 / s));
  CHECK(get(out, 1) == Approx(e2 / s));
  CHECK(get(out, 2) == Approx(e3 / s));
  for (int i = 3; i < 6; ++i) CHECK(get(out, i) == Approx(1.0 / 3));

  SECTION("axis 0") {
    kernels::SoftmaxAttrs a;
    a.axis = 0;
    kernels::softmax(x, out, a);
    for (int j = 0; j < 3; ++j) {
      const double v = get(x, j);
      CHECK(get(out, j) == Approx(std::exp(v) / (std::exp(v) + 1)));
      CHECK(get(out, j) + get(out, 3 + j) == Approx(1.0));
    }
  }
  SECTION("middle axis of a 3-D tensor, in place") {
    std::mt19937 rng(1);
    Tensor y = random(Shape{2, 3, 4}, DType::kFP64, rng, -3, 3);
    Tensor ref;
    ref.copy_from(y);
    kernels::SoftmaxAttrs a;
    a.axis = 1;
    kernels::softmax(y, y, a);
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        double z = 0;
        for (int j = 0; j < 3; ++j) z += std::exp(get(ref, (i * 3 + j) * 4 + k));
        for (int j = 0; j < 3; ++j)
          CHECK(get(y, (i * 3 + j) * 4 + k) == Approx(std::exp(get(ref, (i * 3 + j) * 4 + k)) / z));
      }
  }
  SECTION("x - max is clipped at -64 as in Paddle") {
    Tensor z = f64(Shape{2}, {0, -1000});
    kernels::softmax(z, out, {});
    CHECK(get(out, 1) > 0);
    CHECK(get(out, 1) == Approx(std::exp(-64.0) / (1 + std::exp(-64.0))));
  }
  SECTION("0-D input gives 1") {
    Tensor z = f32(Shape{}, {5});
    kernels::softmax(z, out, {});
    CHECK(out.rank() == 0);
    CHECK(get(out, 0) == 1.0);
  }
}

TEST_CASE("activation: invalid inputs throw rt::Error", "[activation][errors]") {
  Tensor out;
  Tensor xi = i32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(kernels::relu(xi, out), Catch::Contains("relu") && Catch::Contains("int32"));
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  kernels::SoftmaxAttrs a;
  a.axis = 2;
  CHECK_THROWS_AS(kernels::softmax(x, out, a), rt::Error);
  a.axis = -3;
  CHECK_THROWS_AS(kernels::softmax(x, out, a), rt::Error);
  Tensor g = f32(Shape{3}, {1, 2, 3});
  Tensor dx;
  CHECK_THROWS_AS(kernels::tanh_grad(x, g, &dx), rt::Error);
  CHECK_THROWS_AS(kernels::softmax_grad(x, g, &dx, {}), rt::Error);
  Tensor uninit;
  CHECK_THROWS_AS(kernels::sigmoid(uninit, out), rt::Error);
}

namespace {

using Fwd = void (*)(const Tensor&, Tensor&);
using GradFromOut = void (*)(const Tensor&, const Tensor&, Tensor*);

/// Gradient kernels that take Out (relu/sigmoid/tanh) run the forward first.
void check_from_out(const char* op, Fwd fwd, GradFromOut bwd, DType dt, double min_abs) {
  std::mt19937 rng(11);
  Tensor x = random(Shape{3, 5}, dt, rng, -2, 2, min_abs);
  CHECK_GRADCHECK_OP(op, {&x}, [&](Tensor& out) { fwd(x, out); },
                  [&](const Tensor& dout, std::vector<Tensor*>& g) {
                    Tensor out;
                    fwd(x, out);
                    bwd(out, dout, g[0]);
                  });
}

}  // namespace

TEST_CASE("activation grads match finite differences", "[activation][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    // relu: inputs kept 0.05 away from the kink, farther than the fp32 step.
    check_from_out("relu", kernels::relu, kernels::relu_grad, dt, 0.05);
    check_from_out("sigmoid", kernels::sigmoid, kernels::sigmoid_grad, dt, 0);
    check_from_out("tanh", kernels::tanh, kernels::tanh_grad, dt, 0);

    std::mt19937 rng(12);
    Tensor x = random(Shape{4, 3}, dt, rng);
    CHECK_GRADCHECK_OP("square", {&x}, [&](Tensor& out) { kernels::square(x, out); },
                    [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::square_grad(x, dout, g[0]); });
  }
}

TEST_CASE("softmax_grad matches finite differences", "[activation][softmax][grad][gradcheck]") {
  const struct {
    Shape s;
    int axis;
  } cases[] = {{Shape{3, 4}, -1}, {Shape{3, 4}, 0}, {Shape{2, 3, 4}, 1}, {Shape{5}, 0}};
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    for (const auto& c : cases) {
      INFO(c.s.str() << " axis " << c.axis << " " << rt::dtype_name(dt));
      std::mt19937 rng(13);
      Tensor x = random(c.s, dt, rng, -2, 2);
      kernels::SoftmaxAttrs a;
      a.axis = c.axis;
      CHECK_GRADCHECK_OP("softmax", {&x}, [&](Tensor& out) { kernels::softmax(x, out, a); },
                      [&](const Tensor& dout, std::vector<Tensor*>& g) {
                        Tensor out;
                        kernels::softmax(x, out, a);
                        kernels::softmax_grad(out, dout, g[0], a);
                      });
    }
  }
}

TEST_CASE("softmax and softmax_grad (its vectorised rows) along fp32 rows agree with fp64 and run in place", "[activation][softmax]") {
  // Rows of 1 to 100: whole 8-lane blocks and tails (kernels/cpu/rows_f32.cc); the last row spans 200,
  // so x - max goes below the clip at -64 there (fp64 clips alike).
  for (int64_t n : {1, 7, 37, 64, 100}) {
    INFO("rows of " << n);
    std::mt19937 rng(17);
    Tensor x = random(Shape{3, n}, DType::kFP32, rng, -3, 3), dy = random(Shape{3, n}, DType::kFP32, rng);
    for (int64_t j = 0; j < n; ++j) x.data<float>()[2 * n + j] = -100.0f + 200.0f * static_cast<float>(j % 5) / 4;
    Tensor out, dx, out64_ref;
    kernels::softmax(x, out, {});
    kernels::softmax(converted(x, DType::kFP64), out64_ref, {});
    for (int64_t i = 0; i < out.numel(); ++i) REQUIRE(get(out, i) == Approx(get(out64_ref, i)).epsilon(1e-6));
    Tensor x_in_place = converted(x, DType::kFP32);  // Out written over X
    kernels::softmax(x_in_place, x_in_place, {});
    for (int64_t i = 0; i < out.numel(); ++i) REQUIRE(get(x_in_place, i) == get(out, i));
    kernels::softmax_grad(out, dy, &dx, {});
    Tensor out64 = converted(out, DType::kFP64), dy64 = converted(dy, DType::kFP64), dx64;
    kernels::softmax_grad(out64, dy64, &dx64, {});
    for (int64_t i = 0; i < dx.numel(); ++i) REQUIRE(get(dx, i) == Approx(get(dx64, i)).margin(1e-6));
    Tensor in_place = converted(dy, DType::kFP32);  // X@GRAD written over Out@GRAD
    kernels::softmax_grad(out, in_place, &in_place, {});
    for (int64_t i = 0; i < dx.numel(); ++i) REQUIRE(get(in_place, i) == get(dx, i));
  }
}

TEST_CASE("scale's gradient rule (a scale by the same factor, no bias) matches finite differences",
          "[activation][grad][gradcheck]") {
  // compiler/ops/activation.cc differentiates scale by another scale op
  // with bias 0 and bias_after_scale true, whatever the forward's bias.
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    for (bool after : {true, false}) {
      INFO(rt::dtype_name(dt) << " bias_after_scale " << after);
      std::mt19937 rng(14);
      Tensor x = random(Shape{3, 4}, dt, rng);
      kernels::ScaleAttrs fwd;
      fwd.scale = 1.5f;
      fwd.bias = 0.25f;
      fwd.bias_after_scale = after;
      kernels::ScaleAttrs grad;
      grad.scale = fwd.scale;
      grad.bias = 0.0f;
      CHECK_GRADCHECK_OP("scale", {&x}, [&](Tensor& out) { kernels::scale(x, out, fwd); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::scale(dout, *g[0], grad); });
    }
  }
}
