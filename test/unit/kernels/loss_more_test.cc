// test/unit/kernels/loss_more_test.cc - the elementwise losses: worked values, ignored and clamped elements, errors, finite-difference gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/loss_more.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("loss_more forwards: worked values, ignore_index, normalize, clamps, reductions", "[loss_more]") {
  Tensor out, res;
  Tensor x = f64(Shape{3}, {0.0, 2.0, -1.0});
  k::sigmoid_cross_entropy_with_logits(x, f64(Shape{3}, {1, -100, 0}), nullptr, out, k::SigmoidCrossEntropyWithLogitsAttrs{true, -100});
  // Two counted elements: log 2 and log(1 + e^-1), halved.
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{std::log(2.0) / 2, 0, std::log1p(std::exp(-1.0)) / 2}));
  k::bce_loss(f32(Shape{2}, {0.0f, 0.5f}), f32(Shape{2}, {1, 1}), out);
  CHECK(values(out)[0] == Approx(100));
  CHECK(values(out)[1] == Approx(std::log(2.0)));
  CHECK_THROWS_WITH(k::bce_loss(f32(Shape{1}, {1.5f}), f32(Shape{1}, {1}), out), Catch::Contains("outside [0, 1]"));
  k::huber_loss(f32(Shape{2}, {0, 0}), f32(Shape{2}, {0.5f, -3}), out, res, k::HuberLossAttrs{1.0f});
  CHECK(values(out) == std::vector<double>{0.125, 2.5});
  CHECK(values(res) == std::vector<double>{0.5, -3});
  Tensor lx = f32(Shape{2, 2}, {-1, -2, -0.5f, -1}), t = f32(Shape{2, 2}, {0.5f, 0, 0.25f, 1});
  k::kldiv_loss(lx, t, out, k::KldivLossAttrs{"none"});
  CHECK(values(out)[1] == 0);
  const double sum = values(out)[0] + values(out)[2] + values(out)[3];
  k::kldiv_loss(lx, t, out, k::KldivLossAttrs{"batchmean"});
  CHECK(out.shape() == Shape{});
  CHECK(values(out)[0] == Approx(sum / 2));
  CHECK_THROWS_WITH(k::kldiv_loss(lx, t, out, k::KldivLossAttrs{"avg"}), Catch::Contains("reduction 'avg'"));
  k::log_loss(f32(Shape{1}, {0.25f}), f32(Shape{1}, {1}), out, k::LogLossAttrs{0.0f});
  CHECK(values(out)[0] == Approx(std::log(4.0)));
  CHECK_THROWS_WITH(k::log_loss(f32(Shape{1}, {0.25f}), f32(Shape{2}, {1, 1}), out, k::LogLossAttrs{}),
                    Catch::Contains("log_loss: Predicted has shape [1] but Labels has shape [2]"));
}

TEST_CASE("loss_more gradients match finite differences", "[loss_more][grad]") {
  std::mt19937 rng(3);
  Tensor x = random(Shape{3, 4}, DType::kFP64, rng, -3, 3, 0.05);
  Tensor label = random(Shape{3, 4}, DType::kFP64, rng, 0, 1);
  label.data<double>()[5] = -100;  // ignored
  Tensor pw = random(Shape{3, 4}, DType::kFP64, rng, 0.5, 2);
  for (bool normalize : {false, true})
    for (const Tensor* w : {static_cast<const Tensor*>(nullptr), static_cast<const Tensor*>(&pw)}) {
      const k::SigmoidCrossEntropyWithLogitsAttrs a{normalize, -100};
      INFO("normalize " << normalize << " pos_weight " << (w != nullptr));
      CHECK_GRADCHECK_OP("sigmoid_cross_entropy_with_logits", {&x},
                         [&](Tensor& o) { k::sigmoid_cross_entropy_with_logits(x, label, w, o, a); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           k::sigmoid_cross_entropy_with_logits_grad(x, label, w, d, g[0], a);
                         });
    }
  Tensor p = random(Shape{2, 5}, DType::kFP64, rng, 0.05, 0.95);
  Tensor lab = random(Shape{2, 5}, DType::kFP64, rng, 0, 1);
  CHECK_GRADCHECK_OP("bce_loss", {&p}, [&](Tensor& o) { k::bce_loss(p, lab, o); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) { k::bce_loss_grad(p, lab, d, g[0]); });
  const k::LogLossAttrs la{1e-3f};
  CHECK_GRADCHECK_OP("log_loss", {&p}, [&](Tensor& o) { k::log_loss(p, lab, o, la); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) { k::log_loss_grad(p, lab, d, g[0], la); });
  // Residuals on both sides of delta, away from the kink.
  Tensor hx = f64(Shape{6}, {0.1, -0.3, 2.0, -2.5, 0.7, 1.6}), hy = f64(Shape{6}, {0.3, 0.1, -0.2, 0.4, 0.2, 0.1});
  const k::HuberLossAttrs ha{1.0f};
  CHECK_GRADCHECK_OP("huber_loss", {&hx, &hy}, [&](Tensor& o) { Tensor r; k::huber_loss(hx, hy, o, r, ha); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) {
                       Tensor o, r;
                       k::huber_loss(hx, hy, o, r, ha);
                       k::huber_loss_grad(r, d, g[0], g[1], ha);
                     });
  Tensor kx = random(Shape{3, 2}, DType::kFP64, rng, -2, 0), kt = random(Shape{3, 2}, DType::kFP64, rng, 0, 1);
  kt.data<double>()[1] = 0;
  for (const char* red : {"none", "mean", "batchmean", "sum"}) {
    const k::KldivLossAttrs ka{red};
    INFO("reduction " << red);
    CHECK_GRADCHECK_OP("kldiv_loss", {&kx}, [&](Tensor& o) { k::kldiv_loss(kx, kt, o, ka); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) { k::kldiv_loss_grad(kx, kt, d, g[0], ka); });
  }
}
