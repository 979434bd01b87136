// test/unit/kernels/nll_loss_test.cc - nll_loss: worked values for every reduction with weights and ignored labels (which Paddle 2.6.2 cannot run for mean and sum), errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/nll_loss.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::NllLossAttrs attrs(const char* reduction, int64_t ignore = -100) {
  k::NllLossAttrs a;
  a.reduction = reduction;
  a.ignore_index = ignore;
  return a;
}

}  // namespace

TEST_CASE("nll_loss: reductions, weights and an ignored label", "[nll_loss]") {
  const Tensor x = f32(Shape{4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor label = i64(Shape{4}, {0, 1, 2, 2});
  const Tensor w = f32(Shape{3}, {1, 2, 3});
  Tensor out, total, g;
  // Paddle 2.6.2's values for these inputs (tools/op_cases_nll_loss.py's first draft): sum -57, weight 7.
  k::nll_loss(x, label, &w, out, total, attrs("sum", 1));
  CHECK(out.shape() == Shape{});
  CHECK(values(out)[0] == -57);
  CHECK(values(total)[0] == 7);
  k::nll_loss(x, label, &w, out, total, attrs("mean", 1));
  CHECK(values(out)[0] == Approx(-57.0 / 7));
  k::nll_loss_grad(x, label, &w, total, f32(Shape{}, {1}), &g, attrs("mean", 1));
  CHECK(values(g) == std::vector<double>{-1.0f / 7, 0, 0, 0, 0, 0, 0, 0, -3.0f / 7, 0, 0, -3.0f / 7});
  k::nll_loss(x, label, &w, out, total, attrs("none", 1));
  CHECK(values(out) == std::vector<double>{0, 0, -24, -33});
  CHECK(values(total)[0] == 0);
  k::nll_loss(x, label, nullptr, out, total, attrs("mean"));
  CHECK(values(out)[0] == Approx(-(0.0 + 4 + 8 + 11) / 4));
  // [N, C, d]: the class is dim 1.
  k::nll_loss(f32(Shape{1, 2, 2}, {1, 2, 3, 4}), i64(Shape{1, 2}, {1, 0}), nullptr, out, total, attrs("none"));
  CHECK(values(out) == std::vector<double>{-3, -2});
  CHECK_THROWS_WITH(k::nll_loss(x, i64(Shape{4}, {0, 3, 1, 1}), nullptr, out, total, attrs("sum")),
                    Catch::Contains("nll_loss: Label value 3 (entry 1) is out of range [0, 3)"));
  CHECK_THROWS_WITH(k::nll_loss(x, label, nullptr, out, total, attrs("avg")), Catch::Contains("reduction 'avg'"));
  CHECK_THROWS_WITH(k::nll_loss(x, i64(Shape{3}, {0, 1, 2}), nullptr, out, total, attrs("sum")),
                    Catch::Contains("Label [3] must be X [4, 3] without its class dim"));
}

TEST_CASE("nll_loss gradients match finite differences", "[nll_loss][grad]") {
  std::mt19937 rng(3);
  Tensor x = random(Shape{5, 4}, DType::kFP64, rng);
  const Tensor label = i64(Shape{5}, {3, 0, 2, 2, 1});
  const Tensor w = f64(Shape{4}, {0.5, 1.5, 2, 1});
  for (const char* r : {"mean", "sum", "none"}) {
    INFO(r);
    const k::NllLossAttrs a = attrs(r, 2);
    Tensor total;
    CHECK_GRADCHECK_OP("nll_loss", {&x}, [&](Tensor& o) { k::nll_loss(x, label, &w, o, total, a); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) {
                         Tensor o;
                         k::nll_loss(x, label, &w, o, total, a);
                         k::nll_loss_grad(x, label, &w, total, d, g[0], a);
                       });
  }
}
