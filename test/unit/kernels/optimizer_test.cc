// test/unit/kernels/optimizer_test.cc - one sgd/momentum/adam step against the formula written out by hand.
//
// The expected values are computed here in float, in Paddle's CPU order,
// and compared exactly: the kernels promise bit-for-bit fp32 agreement.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/optimizer.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;

TEST_CASE("sgd", "[optimizer]") {
  Tensor p = f32(Shape{3}, {1.0f, -2.0f, 0.5f});
  Tensor g = f32(Shape{3}, {0.1f, 0.2f, -0.3f});
  Tensor lr = f32(Shape{1}, {0.01f});
  Tensor out;
  kernels::sgd(p, lr, g, out);
  for (int i = 0; i < 3; ++i) CHECK(out.data<float>()[i] == p.data<float>()[i] - 0.01f * g.data<float>()[i]);
  // The usual form: ParamOut is Param.
  const float p0 = p.data<float>()[0];
  kernels::sgd(p, lr, g, p);
  CHECK(p.data<float>()[0] == p0 - 0.01f * 0.1f);

  SECTION("errors") {
    Tensor lr2 = f32(Shape{2}, {0.1f, 0.1f});
    CHECK_THROWS_WITH(kernels::sgd(p, lr2, g, out), Catch::Contains("LearningRate"));
    Tensor g2 = f32(Shape{2}, {1, 1});
    CHECK_THROWS_AS(kernels::sgd(p, lr, g2, out), rt::Error);
    Tensor gi = i32(Shape{3}, {1, 1, 1});
    CHECK_THROWS_AS(kernels::sgd(i32(Shape{3}, {1, 1, 1}), lr, gi, out), rt::Error);
  }
}

TEST_CASE("momentum", "[optimizer]") {
  const float pv[] = {1.0f, -0.5f, 2.0f};
  const float gv[] = {0.3f, -0.1f, 0.05f};
  const float vv[] = {0.2f, 0.0f, -0.4f};
  const float lr = 0.1f, mu = 0.9f;
  Tensor lrt = f32(Shape{1}, {lr});

  SECTION("plain, in place") {
    Tensor p = f32(Shape{3}, {pv[0], pv[1], pv[2]});
    Tensor g = f32(Shape{3}, {gv[0], gv[1], gv[2]});
    Tensor v = f32(Shape{3}, {vv[0], vv[1], vv[2]});
    kernels::MomentumAttrs a;
    a.mu = mu;
    kernels::momentum(p, g, v, lrt, p, v, a);
    for (int i = 0; i < 3; ++i) {
      const float vo = vv[i] * mu + gv[i];
      CHECK(v.data<float>()[i] == vo);
      CHECK(p.data<float>()[i] == pv[i] - lr * vo);
    }
  }
  SECTION("nesterov with l2_decay; rescale_grad ignored like Paddle's CPU kernel") {
    Tensor p = f32(Shape{3}, {pv[0], pv[1], pv[2]});
    Tensor g = f32(Shape{3}, {gv[0], gv[1], gv[2]});
    Tensor v = f32(Shape{3}, {vv[0], vv[1], vv[2]});
    Tensor po, vo;
    kernels::MomentumAttrs a;
    a.mu = mu;
    a.use_nesterov = true;
    a.regularization_method = "l2_decay";
    a.regularization_coeff = 0.01f;
    a.rescale_grad = 4.0f;
    kernels::momentum(p, g, v, lrt, po, vo, a);
    for (int i = 0; i < 3; ++i) {
      const float gi = pv[i] * 0.01f + gv[i];
      const float vn = vv[i] * mu + gi;
      CHECK(vo.data<float>()[i] == vn);
      CHECK(po.data<float>()[i] == pv[i] - (gi + vn * mu) * lr);
    }
  }
  SECTION("errors") {
    Tensor p = f32(Shape{3}, {1, 1, 1});
    Tensor v = f32(Shape{2}, {1, 1});
    Tensor po, vo;
    CHECK_THROWS_AS(kernels::momentum(p, p, v, lrt, po, vo, {}), rt::Error);
    CHECK_THROWS_AS(kernels::momentum(p, p, p, lrt, po, po, {}), rt::Error);
  }
}

TEST_CASE("adam, one step", "[optimizer]") {
  const float pv[] = {0.5f, -1.0f, 2.0f, 0.0f};
  const float gv[] = {0.1f, -0.2f, 0.3f, 0.0f};
  const float m1v[] = {0.01f, 0.02f, -0.03f, 0.0f};
  const float m2v[] = {0.001f, 0.002f, 0.003f, 0.0f};
  // Read through a volatile so the expected values are computed at run time
  // with the same float operations as the kernel: at -O3 clang folds these
  // expressions at compile time and may vectorise them differently.
  volatile float knobs[] = {0.001f, 0.9f, 0.999f, 1e-8f};
  const float lr = knobs[0], b1 = knobs[1], b2 = knobs[2], eps = knobs[3];
  const float b1p = b1 * b1, b2p = b2 * b2;  // after two earlier steps

  Tensor p = f32(Shape{2, 2}, {pv[0], pv[1], pv[2], pv[3]});
  Tensor g = f32(Shape{2, 2}, {gv[0], gv[1], gv[2], gv[3]});
  Tensor m1 = f32(Shape{2, 2}, {m1v[0], m1v[1], m1v[2], m1v[3]});
  Tensor m2 = f32(Shape{2, 2}, {m2v[0], m2v[1], m2v[2], m2v[3]});
  Tensor lrt = f32(Shape{1}, {lr});
  Tensor b1pt = f32(Shape{1}, {b1p});
  Tensor b2pt = f32(Shape{1}, {b2p});

  // Paddle folds the bias correction into the step and epsilon.
  const float lr_t = lr * (std::sqrt(1.0f - b2p) / (1.0f - b1p));
  const float eps_t = eps * std::sqrt(1.0f - b2p);
  float want_p[4], want_m1[4], want_m2[4];
  for (int i = 0; i < 4; ++i) {
    want_m1[i] = b1 * m1v[i] + (1.0f - b1) * gv[i];
    want_m2[i] = b2 * m2v[i] + (1.0f - b2) * gv[i] * gv[i];
    want_p[i] = pv[i] + (-lr_t) * (want_m1[i] / (std::sqrt(want_m2[i]) + eps_t));
  }

  SECTION("Beta1Tensor/Beta2Tensor/EpsilonTensor replace the attributes") {
    Tensor b1t = f32(Shape{1}, {b1}), b2t = f32(Shape{1}, {b2}), epst = f32(Shape{1}, {eps});
    kernels::AdamAttrs wrong;
    wrong.beta1 = 0.5f, wrong.beta2 = 0.5f, wrong.epsilon = 0.5f;
    kernels::adam(p, g, lrt, m1, m2, b1pt, b2pt, &b1t, &b2t, &epst, p, m1, m2, &b1pt, &b2pt, wrong);
    for (int i = 0; i < 4; ++i) {
      CHECK(p.data<float>()[i] == want_p[i]);
      CHECK(m1.data<float>()[i] == want_m1[i]);
      CHECK(m2.data<float>()[i] == want_m2[i]);
    }
    CHECK(b1pt.data<float>()[0] == b1p * b1);
  }

  SECTION("all outputs written over their inputs, as Paddle programs do") {
    kernels::adam(p, g, lrt, m1, m2, b1pt, b2pt, nullptr, nullptr, nullptr, p, m1, m2, &b1pt, &b2pt, {});
    for (int i = 0; i < 4; ++i) {
      CHECK(p.data<float>()[i] == want_p[i]);
      CHECK(m1.data<float>()[i] == want_m1[i]);
      CHECK(m2.data<float>()[i] == want_m2[i]);
    }
    CHECK(b1pt.data<float>()[0] == b1p * b1);
    CHECK(b2pt.data<float>()[0] == b2p * b2);
    CHECK(b1pt.shape() == Shape{1});
  }
  SECTION("use_global_beta_pow leaves the beta powers alone") {
    Tensor po, m1o, m2o, b1o = f32(Shape{1}, {-1.0f}), b2o = f32(Shape{1}, {-1.0f});
    kernels::AdamAttrs a;
    a.use_global_beta_pow = true;
    kernels::adam(p, g, lrt, m1, m2, b1pt, b2pt, nullptr, nullptr, nullptr, po, m1o, m2o, &b1o, &b2o, a);
    CHECK(b1o.data<float>()[0] == -1.0f);
    CHECK(b2o.data<float>()[0] == -1.0f);
    CHECK(po.data<float>()[1] == want_p[1]);
  }
  SECTION("beta power outputs are optional") {
    Tensor po, m1o, m2o;
    kernels::adam(p, g, lrt, m1, m2, b1pt, b2pt, nullptr, nullptr, nullptr, po, m1o, m2o, nullptr, nullptr, {});
    CHECK(po.data<float>()[2] == want_p[2]);
    CHECK(b1pt.data<float>()[0] == b1p);
  }
  SECTION("fp64 parameters") {
    Tensor pd = f64(Shape{1}, {0.5}), gd = f64(Shape{1}, {0.1}), m1d = f64(Shape{1}, {0.0}),
           m2d = f64(Shape{1}, {0.0}), lrd = f64(Shape{1}, {0.1}), b1d = f64(Shape{1}, {0.9}),
           b2d = f64(Shape{1}, {0.999});
    kernels::AdamAttrs a;
    kernels::adam(pd, gd, lrd, m1d, m2d, b1d, b2d, nullptr, nullptr, nullptr, pd, m1d, m2d, &b1d, &b2d, a);
    const double b1f = static_cast<double>(a.beta1), b2f = static_cast<double>(a.beta2);
    const double lrd_t = 0.1 * (std::sqrt(1 - 0.999) / (1 - 0.9));
    const double mm1 = (1 - b1f) * 0.1, mm2 = (1 - b2f) * 0.1 * 0.1;
    const double epsd = static_cast<double>(a.epsilon) * std::sqrt(1 - 0.999);
    CHECK(pd.data<double>()[0] == Approx(0.5 - lrd_t * mm1 / (std::sqrt(mm2) + epsd)).epsilon(1e-12));
    CHECK(b1d.data<double>()[0] == Approx(0.9 * b1f).epsilon(1e-15));
  }
  SECTION("errors") {
    Tensor po, m1o, m2o;
    Tensor bad = f32(Shape{4}, {0, 0, 0, 0});
    CHECK_THROWS_WITH(kernels::adam(p, g, lrt, bad, m2, b1pt, b2pt, nullptr, nullptr, nullptr, po, m1o, m2o, nullptr, nullptr, {}),
                      Catch::Contains("Moment1"));
    Tensor b2 = f32(Shape{2}, {0.9f, 0.9f});
    CHECK_THROWS_AS(kernels::adam(p, g, lrt, m1, m2, b2, b2pt, nullptr, nullptr, nullptr, po, m1o, m2o, nullptr, nullptr, {}), rt::Error);
  }
}
