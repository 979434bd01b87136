// test/unit/kernels/loss_test.cc - softmax_with_cross_entropy and cross_entropy2: values, labels, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/loss.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::CrossEntropy2Attrs;
using kernels::SoftmaxWithCrossEntropyAttrs;

namespace {

double lse(std::initializer_list<double> v) {
  double s = 0;
  for (double x : v) s += std::exp(x);
  return std::log(s);
}

}  // namespace

TEST_CASE("softmax_with_cross_entropy, hard labels", "[loss]") {
  Tensor logits = f32(Shape{2, 3}, {1, 2, 3, 1, 1, 1});
  Tensor label = i64(Shape{2, 1}, {2, 0});
  Tensor sm, loss;
  kernels::softmax_with_cross_entropy(logits, label, sm, loss, {});
  CHECK(sm.shape() == Shape{2, 3});
  REQUIRE(loss.shape() == Shape{2, 1});
  CHECK(loss.dtype() == DType::kFP32);
  CHECK(get(loss, 0) == Approx(lse({1, 2, 3}) - 3));
  CHECK(get(loss, 1) == Approx(std::log(3.0)));
  CHECK(get(sm, 2) == Approx(std::exp(3 - lse({1, 2, 3}))));

  SECTION("ignore_index rows get 0 loss and 0 gradient") {
    SoftmaxWithCrossEntropyAttrs a;
    a.ignore_index = 0;
    kernels::softmax_with_cross_entropy(logits, label, sm, loss, a);
    CHECK(get(loss, 1) == 0);
    Tensor g = f32(Shape{2, 1}, {1, 1});
    Tensor d;
    kernels::softmax_with_cross_entropy_grad(label, sm, g, &d, a);
    for (int j = 0; j < 3; ++j) CHECK(get(d, 3 + j) == 0);
    CHECK(get(d, 2) == Approx(get(sm, 2) - 1));
  }
  SECTION("int32 labels are accepted") {
    Tensor l32 = i32(Shape{2, 1}, {2, 0});
    Tensor loss2;
    kernels::softmax_with_cross_entropy(logits, l32, sm, loss2, {});
    CHECK(values(loss2) == values(loss));
  }
  SECTION("class axis in the middle") {
    // Logits [2, 3, 2] with classes on axis 1; label [2, 1, 2].
    std::mt19937 rng(1);
    Tensor lg = random(Shape{2, 3, 2}, DType::kFP64, rng, -2, 2);
    Tensor lb = i64(Shape{2, 1, 2}, {0, 2, 1, 1});
    SoftmaxWithCrossEntropyAttrs a;
    a.axis = 1;
    kernels::softmax_with_cross_entropy(lg, lb, sm, loss, a);
    REQUIRE(loss.shape() == Shape{2, 1, 2});
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        auto at = [&](int j) { return get(lg, (i * 3 + j) * 2 + k); };
        const int c = static_cast<int>(get(lb, i * 2 + k));
        CHECK(get(loss, i * 2 + k) == Approx(lse({at(0), at(1), at(2)}) - at(c)));
      }
  }
  SECTION("softmax written over the logits") {
    Tensor lg;
    lg.copy_from(logits);
    kernels::softmax_with_cross_entropy(lg, label, lg, loss, {});
    CHECK(values(lg) == values(sm));
    CHECK(get(loss, 1) == Approx(std::log(3.0)));
  }
}

TEST_CASE("softmax_with_cross_entropy, soft labels and use_softmax=false", "[loss]") {
  Tensor logits = f64(Shape{1, 3}, {0, 1, 2});
  Tensor soft = f64(Shape{1, 3}, {0.25, 0.25, 0.5});
  Tensor sm, loss;
  SoftmaxWithCrossEntropyAttrs a;
  a.soft_label = true;
  kernels::softmax_with_cross_entropy(logits, soft, sm, loss, a);
  const double z = lse({0, 1, 2});
  CHECK(get(loss, 0) == Approx(0.25 * (z - 0) + 0.25 * (z - 1) + 0.5 * (z - 2)));

  SECTION("use_softmax=false takes probabilities as given") {
    Tensor probs = f64(Shape{2, 2}, {0.25, 0.75, 0.5, 0.5});
    Tensor lb = i64(Shape{2, 1}, {1, 0});
    SoftmaxWithCrossEntropyAttrs b;
    b.use_softmax = false;
    kernels::softmax_with_cross_entropy(probs, lb, sm, loss, b);
    CHECK(values(sm) == values(probs));
    CHECK(get(loss, 0) == Approx(-std::log(0.75)));
    CHECK(get(loss, 1) == Approx(-std::log(0.5)));
  }
  SECTION("log(0) is clamped to -1e20") {
    Tensor probs = f32(Shape{1, 2}, {0, 1});
    Tensor lb = i64(Shape{1, 1}, {0});
    SoftmaxWithCrossEntropyAttrs b;
    b.use_softmax = false;
    kernels::softmax_with_cross_entropy(probs, lb, sm, loss, b);
    CHECK(get(loss, 0) == Approx(1e20));
  }
}

TEST_CASE("softmax_with_cross_entropy: invalid inputs throw rt::Error", "[loss][errors]") {
  Tensor logits = f32(Shape{2, 3}, {1, 2, 3, 1, 1, 1});
  Tensor sm, loss;
  Tensor out_of_range = i64(Shape{2, 1}, {3, 0});
  CHECK_THROWS_WITH(kernels::softmax_with_cross_entropy(logits, out_of_range, sm, loss, {}),
                    Catch::Contains("label 3 is out of range"));
  Tensor negative = i64(Shape{2, 1}, {-1, 0});
  CHECK_THROWS_AS(kernels::softmax_with_cross_entropy(logits, negative, sm, loss, {}), rt::Error);
  Tensor bad_shape = i64(Shape{2}, {1, 0});
  CHECK_THROWS_WITH(kernels::softmax_with_cross_entropy(logits, bad_shape, sm, loss, {}),
                    Catch::Contains("[2]") && Catch::Contains("[2, 3]"));
  Tensor float_label = f32(Shape{2, 1}, {1, 0});
  CHECK_THROWS_AS(kernels::softmax_with_cross_entropy(logits, float_label, sm, loss, {}), rt::Error);
  SoftmaxWithCrossEntropyAttrs soft;
  soft.soft_label = true;
  Tensor soft_bad = f32(Shape{2, 2}, {0.5f, 0.5f, 0.5f, 0.5f});
  CHECK_THROWS_AS(kernels::softmax_with_cross_entropy(logits, soft_bad, sm, loss, soft), rt::Error);
  Tensor lb = i64(Shape{2, 1}, {0, 0});
  Tensor bad_grad = f32(Shape{2, 3}, std::vector<float>(6, 1.0f));
  Tensor d;
  kernels::softmax_with_cross_entropy(logits, lb, sm, loss, {});
  CHECK_THROWS_AS(kernels::softmax_with_cross_entropy_grad(lb, sm, bad_grad, &d, {}), rt::Error);
}

TEST_CASE("softmax_with_cross_entropy_grad matches finite differences", "[loss][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(31);
    auto run = [&](Tensor& logits, const Tensor& label, const SoftmaxWithCrossEntropyAttrs& a) {
      CHECK_GRADCHECK_OP("softmax_with_cross_entropy",
          {&logits},
          [&](Tensor& loss) {
            Tensor sm;
            kernels::softmax_with_cross_entropy(logits, label, sm, loss, a);
          },
          [&](const Tensor& dloss, std::vector<Tensor*>& g) {
            Tensor sm, loss;
            kernels::softmax_with_cross_entropy(logits, label, sm, loss, a);
            kernels::softmax_with_cross_entropy_grad(label, sm, dloss, g[0], a);
          });
    };
    {  // hard labels, last axis, one ignored row
      Tensor logits = random(Shape{4, 5}, dt, rng, -2, 2);
      Tensor label = i64(Shape{4, 1}, {0, 4, -100, 2});
      run(logits, label, {});
    }
    {  // hard labels, middle axis
      Tensor logits = random(Shape{2, 3, 4}, dt, rng, -2, 2);
      Tensor label = i64(Shape{2, 1, 4}, {0, 1, 2, 0, 2, 2, 1, 0});
      SoftmaxWithCrossEntropyAttrs a;
      a.axis = 1;
      run(logits, label, a);
    }
    {  // soft labels (rows sum to 1, as the gradient formula assumes)
      Tensor logits = random(Shape{3, 4}, dt, rng, -2, 2);
      Tensor label = random(Shape{3, 4}, dt, rng, 0.1, 1.0);
      for (int r = 0; r < 3; ++r) {
        double s = 0;
        for (int j = 0; j < 4; ++j) s += get(label, r * 4 + j);
        for (int j = 0; j < 4; ++j) set(label, r * 4 + j, get(label, r * 4 + j) / s);
      }
      SoftmaxWithCrossEntropyAttrs a;
      a.soft_label = true;
      run(logits, label, a);
    }
    {  // use_softmax=false, hard and soft
      Tensor probs = random(Shape{3, 4}, dt, rng, 0.2, 1.0);
      Tensor label = i64(Shape{3, 1}, {3, 0, 1});
      SoftmaxWithCrossEntropyAttrs a;
      a.use_softmax = false;
      run(probs, label, a);
      Tensor soft = random(Shape{3, 4}, dt, rng, 0.0, 1.0);
      a.soft_label = true;
      run(probs, soft, a);
    }
  }
}

TEST_CASE("softmax_with_cross_entropy_grad may overwrite Softmax", "[loss][alias]") {
  std::mt19937 rng(2);
  Tensor logits = random(Shape{3, 4}, DType::kFP32, rng);
  Tensor label = i64(Shape{3, 1}, {1, 2, 3});
  Tensor sm, loss, ref;
  kernels::softmax_with_cross_entropy(logits, label, sm, loss, {});
  Tensor g = f32(Shape{3, 1}, {1, 2, 3});
  kernels::softmax_with_cross_entropy_grad(label, sm, g, &ref, {});
  kernels::softmax_with_cross_entropy_grad(label, sm, g, &sm, {});  // Paddle's in-place form
  CHECK(values(sm) == values(ref));
}

TEST_CASE("cross_entropy2 values and XShape", "[loss][ce2]") {
  Tensor x = f32(Shape{2, 3}, {0.2f, 0.3f, 0.5f, 0.1f, 0.8f, 0.1f});
  Tensor label = i64(Shape{2, 1}, {2, 1});
  Tensor y, xshape, match;
  kernels::cross_entropy2(x, label, y, xshape, match, {});
  CHECK(y.shape() == Shape{2, 1});
  CHECK(match.shape() == Shape{2, 1});
  CHECK(xshape.shape() == Shape{2, 3, 0});  // Paddle 2.6: X dims, then 0
  CHECK(xshape.numel() == 0);
  CHECK(get(y, 0) == Approx(-std::log(0.5)));
  CHECK(get(y, 1) == Approx(-std::log(0.8)));
  CHECK(get(match, 0) == Approx(0.5));

  SECTION("ignore_index") {
    CrossEntropy2Attrs a;
    a.ignore_index = 1;
    kernels::cross_entropy2(x, label, y, xshape, match, a);
    CHECK(get(y, 1) == 0);
    CHECK(get(match, 1) == 0);
    Tensor dy = f32(Shape{2, 1}, {1, 1});
    Tensor dx;
    kernels::cross_entropy_grad2(label, match, xshape, dy, &dx, a);
    CHECK(dx.shape() == Shape{2, 3});
    CHECK(values(dx) == std::vector<double>{0, 0, -1.0 / get(match, 0), 0, 0, 0});
  }
  SECTION("errors") {
    Tensor bad = i64(Shape{2, 1}, {3, 0});
    CHECK_THROWS_AS(kernels::cross_entropy2(x, bad, y, xshape, match, {}), rt::Error);
    Tensor wrong_shape = i64(Shape{2}, {0, 0});
    CHECK_THROWS_AS(kernels::cross_entropy2(x, wrong_shape, y, xshape, match, {}), rt::Error);
    Tensor dy = f32(Shape{3, 1}, {1, 1, 1});
    Tensor dx;
    CHECK_THROWS_AS(kernels::cross_entropy_grad2(label, match, xshape, dy, &dx, {}), rt::Error);
  }
}

TEST_CASE("cross_entropy_grad2 matches finite differences", "[loss][ce2][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(41);
    Tensor x = random(Shape{2, 3, 4}, dt, rng, 0.2, 1.0);  // probabilities: away from log's pole
    Tensor label = i64(Shape{2, 3, 1}, {0, 3, 1, 2, -100, 3});
    CHECK_GRADCHECK_OP("cross_entropy2",
        {&x},
        [&](Tensor& y) {
          Tensor xshape, match;
          kernels::cross_entropy2(x, label, y, xshape, match, {});
        },
        [&](const Tensor& dy, std::vector<Tensor*>& g) {
          Tensor y, xshape, match;
          kernels::cross_entropy2(x, label, y, xshape, match, {});
          kernels::cross_entropy_grad2(label, match, xshape, dy, g[0], {});
        });
  }
}

TEST_CASE("label_smooth mixes in a uniform or given prior; its grad scales", "[loss][label_smooth]") {
  Tensor x = f32(Shape{2, 4}, {1, 0, 0, 0, 0, 0, 1, 0}), out;
  kernels::LabelSmoothAttrs a;
  a.epsilon = 0.2f;
  kernels::label_smooth(x, nullptr, out, a);
  CHECK(get(out, 0) == Approx(0.85));
  CHECK(get(out, 1) == Approx(0.05));
  Tensor prior = f32(Shape{1, 4}, {0.1f, 0.2f, 0.3f, 0.4f});
  kernels::label_smooth(x, &prior, out, a);
  CHECK(get(out, 6) == Approx(0.8 + 0.06));
  CHECK(get(out, 7) == Approx(0.08));
  Tensor bad = f32(Shape{1, 3}, {1, 1, 1});
  CHECK_THROWS_AS(kernels::label_smooth(x, &bad, out, a), rt::Error);
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(4);
    Tensor xr = random(Shape{3, 5}, dt, rng);
    CHECK_GRADCHECK_OP("label_smooth", {&xr}, [&](Tensor& o) { kernels::label_smooth(xr, nullptr, o, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::label_smooth_grad(dout, g[0], a); },
                       GradCheckOptions::for_dtype(dt));
  }
}
