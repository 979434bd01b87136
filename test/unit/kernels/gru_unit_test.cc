// test/unit/kernels/gru_unit_test.cc - gru_unit against a hand-computed step, its checks, and its gradient against finite differences.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/gru_unit.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("gru_unit computes one step as its update rule says", "[gru_unit]") {
  // D = 1, one row: u = sigmoid(x0 + b0 + h w0), r = sigmoid(x1 + b1 + h w1), c = tanh(x2 + b2 + r h w2).
  Tensor x = f32(Shape{1, 3}, {0.5f, -0.25f, 0.75f});
  Tensor h = f32(Shape{1, 1}, {0.8f});
  Tensor w = f32(Shape{1, 3}, {0.3f, -0.6f, 1.2f});
  Tensor b = f32(Shape{1, 3}, {0.1f, 0.2f, -0.3f});
  Tensor gate, reset, hidden;
  auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  const double u = sig(0.5 + 0.1 + 0.8 * 0.3), r = sig(-0.25 + 0.2 - 0.8 * 0.6);
  const double c = std::tanh(0.75 - 0.3 + r * 0.8 * 1.2);
  for (bool origin : {false, true}) {
    k::GruUnitAttrs a;
    a.origin_mode = origin;
    k::gru_unit(x, h, w, &b, gate, reset, hidden, a);
    CHECK(gate.data<float>()[0] == Approx(u).epsilon(1e-6));
    CHECK(gate.data<float>()[1] == Approx(r).epsilon(1e-6));
    CHECK(gate.data<float>()[2] == Approx(c).epsilon(1e-6));
    CHECK(reset.data<float>()[0] == Approx(r * 0.8).epsilon(1e-6));
    const double want = origin ? u * 0.8 + (1 - u) * c : (1 - u) * 0.8 + u * c;
    CHECK(hidden.data<float>()[0] == Approx(want).epsilon(1e-6));
  }
}

TEST_CASE("gru_unit names what does not fit", "[gru_unit]") {
  Tensor x = f32(Shape{2, 6}, std::vector<float>(12, 0.1f));
  Tensor h = f32(Shape{2, 2}, std::vector<float>(4, 0.1f));
  Tensor w = f32(Shape{2, 6}, std::vector<float>(12, 0.1f));
  Tensor gate, reset, hidden;
  k::GruUnitAttrs a;
  a.activation = 7;
  CHECK_THROWS_WITH(k::gru_unit(x, h, w, nullptr, gate, reset, hidden, a),
                    Catch::Contains("activation 7 is not an activation"));
  Tensor bad_w = f32(Shape{2, 4}, std::vector<float>(8, 0.1f));
  CHECK_THROWS_WITH(k::gru_unit(x, h, bad_w, nullptr, gate, reset, hidden, {}), Catch::Contains("Weight must be [D, 3D]"));
  Tensor bad_h = f32(Shape{3, 2}, std::vector<float>(6, 0.1f));
  CHECK_THROWS_WITH(k::gru_unit(x, bad_h, w, nullptr, gate, reset, hidden, {}), Catch::Contains("HiddenPrev must be [2, 2]"));
}

TEST_CASE("gru_unit's gradient matches finite differences", "[gru_unit][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    for (int act : {0, 1, 2}) {
      for (bool origin : {false, true}) {
        INFO("activation " << act << " origin_mode " << origin);
        std::mt19937 rng(5 + act);
        k::GruUnitAttrs a;
        a.activation = act;
        a.gate_activation = act == 0 ? 2 : 1;
        a.origin_mode = origin;
        Tensor x = random(Shape{3, 9}, dt, rng), h = random(Shape{3, 3}, dt, rng);
        Tensor w = random(Shape{3, 9}, dt, rng), b = random(Shape{1, 9}, dt, rng);
        Tensor gate, reset;
        CHECK_GRADCHECK_OP(
            "gru_unit", (std::vector<Tensor*>{&x, &h, &w, &b}),
            [&](Tensor& out) { k::gru_unit(x, h, w, &b, gate, reset, out, a); },
            [&](const Tensor& dout, std::vector<Tensor*>& g) {
              k::gru_unit_grad(x, h, w, &b, gate, reset, dout, g[0], g[1], g[2], g[3], a);
            });
      }
    }
  }
}
