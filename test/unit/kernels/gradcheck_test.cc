// test/unit/kernels/gradcheck_test.cc - the gradient checker itself: it must reject wrong and all-zero gradients.
#include <catch2/catch.hpp>

#include "kernels/activation.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

// Forward: Out = X * X (square). The true gradient is 2 * X * dOut.
struct Fixture {
  std::mt19937 rng{7};
  Tensor x = random(Shape{3, 4}, DType::kFP32, rng, -1, 1, 0.1);
  Forward fwd = [this](Tensor& out) { kernels::square(x, out); };
};

Backward scaled(double factor, const Tensor& x) {
  return [factor, &x](const Tensor& dout, std::vector<Tensor*>& grads) {
    kernels::square_grad(x, dout, grads[0]);
    for (int64_t i = 0; i < grads[0]->numel(); ++i) set(*grads[0], i, get(*grads[0], i) * factor);
  };
}

}  // namespace

TEST_CASE("gradcheck accepts a correct gradient", "[gradcheck]") {
  Fixture f;
  auto r = gradcheck({&f.x}, f.fwd, scaled(1.0, f.x));
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("gradcheck rejects a gradient off by a few percent", "[gradcheck]") {
  Fixture f;
  auto r = gradcheck({&f.x}, f.fwd, scaled(1.05, f.x));
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.report, Catch::Contains("mismatches"));
}

TEST_CASE("gradcheck rejects all-zero gradients even against a flat forward", "[gradcheck]") {
  // Out = 0 * X: the numeric gradient is 0 too, so only the all-zero rule
  // can catch a grad kernel that writes zeros.
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  Forward fwd = [&](Tensor& out) {
    kernels::ScaleAttrs a;
    a.scale = 0.0f;
    kernels::scale(x, out, a);
  };
  Backward bwd = [&](const Tensor&, std::vector<Tensor*>& grads) {
    grads[0]->resize(x.shape(), x.dtype());
    grads[0]->zero();
  };
  auto r = gradcheck({&x}, fwd, bwd);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.report, Catch::Contains("every analytic gradient is zero"));
}

TEST_CASE("gradcheck rejects a gradient of the wrong shape", "[gradcheck]") {
  Fixture f;
  Backward bwd = [](const Tensor&, std::vector<Tensor*>& grads) {
    grads[0]->resize(Shape{12}, DType::kFP32);
    for (int64_t i = 0; i < 12; ++i) set(*grads[0], i, 1.0);
  };
  auto r = gradcheck({&f.x}, f.fwd, bwd);
  CHECK_FALSE(r.ok);
}

TEST_CASE("gradcheck in fp64 uses the tight tolerances", "[gradcheck]") {
  std::mt19937 rng(3);
  Tensor x = random(Shape{5}, DType::kFP64, rng, -1, 1, 0.1);
  Forward fwd = [&](Tensor& out) { kernels::square(x, out); };
  CHECK(gradcheck({&x}, fwd, scaled(1.0, x)).ok);
  // 1e-4 relative is invisible to the fp32 tolerances but not to fp64's.
  CHECK_FALSE(gradcheck({&x}, fwd, scaled(1.0001, x)).ok);
}
