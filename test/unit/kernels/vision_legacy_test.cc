// test/unit/kernels/vision_legacy_test.cc - affine_channel, shuffle_channel, lrn, norm, temporal_shift, index_sample.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "kernels/shuffle.h"
#include "kernels/vision_legacy.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

}  // namespace

TEST_CASE("affine_channel: channel axis 1 for NCHW, last otherwise (AnyLayout too)", "[vision_legacy]") {
  k::AffineChannelAttrs a;
  a.data_layout = "NCHW";
  Tensor out;
  k::affine_channel(iota(Shape{1, 2, 1, 2}), f32(Shape{2}, {2, 3}), f32(Shape{2}, {1, -1}), out, a);
  CHECK(values(out) == std::vector<double>{1, 3, 5, 8});
  a.data_layout = "AnyLayout";  // Paddle's default: the channel is the last axis
  k::affine_channel(iota(Shape{1, 2, 1, 2}), f32(Shape{2}, {2, 3}), f32(Shape{2}, {1, -1}), out, a);
  CHECK(values(out) == std::vector<double>{1, 2, 5, 8});
  CHECK_THROWS_WITH(k::affine_channel(iota(Shape{1, 2, 1, 3}), f32(Shape{2}, {2, 3}), f32(Shape{2}, {1, -1}), out, a),
                    Catch::Contains("affine_channel") && Catch::Contains("one value per channel"));
}

TEST_CASE("shuffle_channel: channel_shuffle of NCHW with `group`", "[vision_legacy]") {
  k::ShuffleChannelAttrs a;
  a.group = 2;
  Tensor out, back;
  k::shuffle_channel(iota(Shape{1, 6, 1, 1}), out, a);
  CHECK(values(out) == std::vector<double>{0, 3, 1, 4, 2, 5});
  k::shuffle_channel_grad(out, &back, a);  // the inverse move
  CHECK(values(back) == values(iota(Shape{1, 6, 1, 1})));
  a.group = 4;
  CHECK_THROWS_WITH(k::shuffle_channel(iota(Shape{1, 6, 1, 1}), out, a),
                    Catch::Contains("shuffle_channel") && Catch::Contains("multiple of groups 4"));
}

TEST_CASE("lrn: the window is clipped at the channel ends; n must be odd", "[vision_legacy]") {
  k::LrnAttrs a;
  a.n = 3, a.k = 1, a.alpha = 1, a.beta = 1;
  Tensor out, mid;
  // One pixel, channels 1, 2, 3: MidOut = 1 + (1+4), 1 + (1+4+9), 1 + (4+9).
  k::lrn(f32(Shape{1, 3, 1, 1}, {1, 2, 3}), out, mid, a);
  CHECK(values(mid) == std::vector<double>{6, 15, 14});
  CHECK(values(out)[2] == Approx(3.0 / 14));
  a.data_format = "NHWC";
  k::lrn(f32(Shape{1, 1, 1, 3}, {1, 2, 3}), out, mid, a);
  CHECK(values(mid) == std::vector<double>{6, 15, 14});
  a.n = 4;
  CHECK_THROWS_WITH(k::lrn(f32(Shape{1, 1, 1, 3}, {1, 2, 3}), out, mid, a), Catch::Contains("odd"));
}

TEST_CASE("norm: X / sqrt(sum X^2 + eps) along the axis; Norm keeps that dim as 1", "[vision_legacy]") {
  k::NormAttrs a;
  a.axis = -1;
  a.epsilon = 0;
  Tensor out, n;
  k::norm(f32(Shape{2, 2}, {3, 4, 0, 5}), out, &n, a);
  CHECK(n.shape() == Shape{2, 1});
  CHECK(values(n) == std::vector<double>{5, 5});
  CHECK(values(out) == std::vector<double>{0.6f, 0.8f, 0, 1});
  Tensor out2;
  k::norm(f32(Shape{2, 2}, {3, 4, 0, 5}), out2, nullptr, a);  // no Norm (is_test programs)
  CHECK(values(out2) == values(out));
  a.axis = 2;
  CHECK_THROWS_WITH(k::norm(f32(Shape{2, 2}, {3, 4, 0, 5}), out, &n, a), Catch::Contains("axis 2 is out of range"));
}

TEST_CASE("temporal_shift: bands from the previous and next frame, zeros at the ends", "[vision_legacy]") {
  k::TemporalShiftAttrs a;
  a.seg_num = 3;
  a.shift_ratio = 0.25f;  // C = 4: channel 0 from t-1, channel 1 from t+1
  Tensor out;
  Tensor x = iota(Shape{3, 4, 1, 1});  // frame t channel c = 4t + c
  k::temporal_shift(x, out, a);
  CHECK(values(out) == std::vector<double>{0, 5, 2, 3, 0, 9, 6, 7, 4, 0, 10, 11});
  a.data_format = "NHWC";
  k::temporal_shift(iota(Shape{3, 1, 1, 4}), out, a);
  CHECK(values(out) == std::vector<double>{0, 5, 2, 3, 0, 9, 6, 7, 4, 0, 10, 11});
  a.seg_num = 2;
  CHECK_THROWS_WITH(k::temporal_shift(x, out, a), Catch::Contains("not a multiple of seg_num 2"));
}

TEST_CASE("index_sample: per-row gather; out-of-range indices are located errors", "[vision_legacy]") {
  Tensor out, dx;
  const Tensor x = i64(Shape{2, 3}, {10, 11, 12, 20, 21, 22});
  k::index_sample(x, i32(Shape{2, 2}, {2, 0, 1, 1}), out);
  CHECK(values(out) == std::vector<double>{12, 10, 21, 21});
  // Repeated indices add up in the gradient.
  k::index_sample_grad(iota(Shape{2, 3}), i64(Shape{2, 2}, {2, 0, 1, 1}), f32(Shape{2, 2}, {1, 2, 3, 4}), &dx);
  CHECK(values(dx) == std::vector<double>{2, 0, 1, 0, 7, 0});
  CHECK_THROWS_WITH(k::index_sample(x, i64(Shape{2, 1}, {0, 3}), out),
                    Catch::Contains("index_sample") && Catch::Contains("value 3"));
  CHECK_THROWS_WITH(k::index_sample(x, i64(Shape{3, 1}, {0, 1, 2}), out), Catch::Contains("first dim"));
}

TEST_CASE("vision_legacy grads match finite differences", "[vision_legacy][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(11);
    for (const char* layout : {"NCHW", "NHWC", "AnyLayout"}) {
      k::AffineChannelAttrs a;
      a.data_layout = layout;
      Tensor x = random(Shape{2, 3, 2, 3}, dt, rng);
      Tensor s = random(Shape{3}, dt, rng);  // C = 3 on axis 1 and on the last axis
      Tensor b = random(Shape{3}, dt, rng);
      CHECK_GRADCHECK_OP("affine_channel", {&x, &s, &b}, [&](Tensor& out) { k::affine_channel(x, s, b, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           k::affine_channel_grad(x, s, dout, g[0], g[1], g[2], a);
                         });
    }
    k::ShuffleChannelAttrs sc;
    sc.group = 3;  // C = 6 != group^2: the permutation is not its own inverse
    Tensor c = random(Shape{2, 6, 2, 2}, dt, rng);
    CHECK_GRADCHECK_OP("shuffle_channel", {&c}, [&](Tensor& out) { k::shuffle_channel(c, out, sc); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { k::shuffle_channel_grad(dout, g[0], sc); });
    for (const char* fmt : {"NCHW", "NHWC"}) {
      INFO(fmt);
      k::LrnAttrs lr;
      lr.n = 3, lr.k = 1.0f, lr.alpha = 0.5f, lr.beta = 0.75f, lr.data_format = fmt;
      Tensor x = random(Shape{2, 5, 2, 5}, dt, rng);
      CHECK_GRADCHECK_OP("lrn", {&x}, [&](Tensor& out) { Tensor mid; k::lrn(x, out, mid, lr); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out, mid;
                           k::lrn(x, out, mid, lr);
                           k::lrn_grad(x, out, mid, dout, g[0], lr);
                         });
      k::TemporalShiftAttrs ts;
      ts.seg_num = 2, ts.shift_ratio = 0.25f, ts.data_format = fmt;
      Tensor t = random(Shape{4, 4, 2, 4}, dt, rng);
      CHECK_GRADCHECK_OP("temporal_shift", {&t}, [&](Tensor& out) { k::temporal_shift(t, out, ts); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           k::temporal_shift_grad(dout, g[0], ts);
                         });
    }
    for (int axis : {1, -1}) {
      k::NormAttrs na;
      na.axis = axis;
      Tensor x = random(Shape{2, 3, 4}, dt, rng);
      CHECK_GRADCHECK_OP("norm", {&x}, [&](Tensor& out) { Tensor n; k::norm(x, out, &n, na); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out, n;
                           k::norm(x, out, &n, na);
                           k::norm_grad(x, n, dout, g[0], na);
                         });
    }
    Tensor x = random(Shape{3, 5}, dt, rng);
    const Tensor idx = i64(Shape{3, 4}, {0, 4, 4, 1, 2, 2, 2, 3, 1, 0, 3, 4});
    CHECK_GRADCHECK_OP("index_sample", {&x}, [&](Tensor& out) { k::index_sample(x, idx, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { k::index_sample_grad(x, idx, dout, g[0]); });
  }
}
