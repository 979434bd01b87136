// test/unit/kernels/quant_test.cc - fake quantization: rounding ties, clamps, scales, int8 weights, errors, the straight-through gradient.
#include <catch2/catch.hpp>

#include "kernels/quant.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::QuantLinearAttrs linear(int axis, int round_type) {
  k::QuantLinearAttrs a;
  a.quant_axis = axis;
  a.round_type = round_type;
  return a;
}

// Scale 127 with 8 bits: the level of x is x itself, so k + 0.5 are ties.
const std::vector<float> kTies{127, 2.5f, -2.5f, 3.5f, 0.5f, -0.5f, 200, -130.2f};

}  // namespace

TEST_CASE("quantize_linear: round_type 0 ties to even then clamps to [-128, 127]; 1 clamps to +-s then ties away",
          "[quant]") {
  // The values Paddle 2.6.2 printed for these inputs.
  Tensor x = f32(Shape{8}, kTies), s = f32(Shape{1}, {127}), zp = f32(Shape{1}, {0}), y;
  k::quantize_linear(x, s, zp, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(-1, 0));
  CHECK(values(y) == std::vector<double>{127, 2, -2, 4, 0, 0, 127, -128});
  k::quantize_linear(x, s, zp, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(-1, 1));
  CHECK(values(y) == std::vector<double>{127, 3, -3, 4, 1, -1, 127, -127});
  // Y bound to X (same-index loop).
  k::quantize_linear(x, s, zp, nullptr, nullptr, x, nullptr, nullptr, nullptr, linear(-1, 1));
  CHECK(values(x) == std::vector<double>{127, 3, -3, 4, 1, -1, 127, -127});
}

TEST_CASE("quantize_linear per channel along axis 1; a zero scale gives finite levels", "[quant]") {
  Tensor x = f32(Shape{2, 2, 2}, {1, -1, 0.5f, 3, 1, -1, 0.5f, 3}), s = f32(Shape{2}, {127, 0}),
         zp = f32(Shape{2}, {0, 0}), y;
  k::quantize_linear(x, s, zp, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(1, 0));
  // Channel 1 has scale 0: inverse is 1/1e-6, and the levels clamp at 127.
  CHECK(values(y) == std::vector<double>{1, -1, 127, 127, 1, -1, 127, 127});
}

TEST_CASE("dequantize_linear: int8 weights per channel become Scale's dtype", "[quant]") {
  Tensor w;
  w.resize(Shape{2, 3}, rt::DType::kInt8);
  const int8_t v[] = {127, -127, 0, 64, -1, 1};
  for (int i = 0; i < 6; ++i) w.data<int8_t>()[i] = v[i];
  Tensor s = f32(Shape{2}, {1.27f, 2.54f}), zp = f32(Shape{2}, {0, 0}), y;
  k::dequantize_linear(w, s, zp, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(0, 0));
  CHECK(y.dtype() == rt::DType::kFP32);
  const std::vector<double> got = values(y);
  const std::vector<double> want{1.27, -1.27, 0, 64 * 0.02, -0.02, 0.02};
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-6));
}

TEST_CASE("quant kernels reject malformed programs with located messages", "[quant]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), s1 = f32(Shape{1}, {1}), s3 = f32(Shape{3}, {1, 1, 1}), y, o;
  CHECK_THROWS_WITH(k::quantize_linear(x, s3, s3, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(0, 0)),
                    Catch::Contains("Scale [3] must hold 2 value(s)"));
  CHECK_THROWS_WITH(k::quantize_linear(x, s1, s1, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(2, 0)),
                    Catch::Contains("quant_axis 2 must be 0 or 1"));
  CHECK_THROWS_WITH(k::quantize_linear(x, s1, s1, nullptr, nullptr, y, nullptr, nullptr, nullptr, linear(-1, 2)),
                    Catch::Contains("round_type 2"));
  k::QuantLinearAttrs train = linear(-1, 0);
  train.is_test = false;
  CHECK_THROWS_WITH(k::quantize_linear(x, s1, s1, nullptr, nullptr, y, nullptr, nullptr, nullptr, train),
                    Catch::Contains("needs input InAccum"));
  k::FakeQuantAbsMaxAttrs bits;
  bits.bit_length = 0;
  CHECK_THROWS_WITH(k::fake_quantize_abs_max(x, y, o, bits), Catch::Contains("bit_length 0 is not in [1, 16]"));
  k::FakeQuantRangeAttrs range;
  CHECK_THROWS_WITH(k::fake_quantize_range_abs_max(x, s1, nullptr, y, o, nullptr, range),
                    Catch::Contains("needs input Iter"));
  Tensor it = i64(Shape{1}, {3}), ring;
  CHECK_THROWS_WITH(k::fake_quantize_range_abs_max(x, s1, &it, y, o, &ring, range),
                    Catch::Contains("needs output OutScales"));
  const Tensor* two[] = {&s3, &s1, &s1};
  CHECK_THROWS_WITH(k::fake_channel_wise_dequantize_max_abs(x, two, 3, y, k::FakeChannelDequantAttrs{}),
                    Catch::Contains("1 or 2 are allowed"));
}

TEST_CASE("the quantize-dequantize ops' gradient passes Out@GRAD straight through", "[quant]") {
  // The forward is a staircase (finite differences give 0 or a jump), so the
  // check is the definition: X@GRAD = Out@GRAD, also when bound to it.
  Tensor g = f32(Shape{2, 2}, {0.5f, -1, 2, 0}), gx;
  k::stright_throuth_estimator_grad(g, &gx);
  CHECK(values(gx) == values(g));
  k::stright_throuth_estimator_grad(g, &g);
  CHECK(values(g) == std::vector<double>{0.5, -1, 2, 0});
  k::stright_throuth_estimator_grad(g, nullptr);
}

TEST_CASE("straight-through gradients match finite differences of a 16-bit quantize-dequantize", "[quant]") {
  // With 16 bits the staircase's step is s/32767 (6e-5 for s = 2): a central
  // difference with h = 1e-2 sees slope 1 up to about step/h per output
  // touched, inside gradcheck's fp32 tolerance. X in [-1, 1] stays inside the
  // clipping range, where the straight-through rule is the derivative.
  std::mt19937 rng(7);
  Tensor x = random(Shape{2, 3}, DType::kFP32, rng), out_scale, state, accum;
  auto st = [](const Tensor& dout, std::vector<Tensor*>& g) { k::stright_throuth_estimator_grad(dout, g[0]); };
  k::FakeQuantMovingAttrs moving;
  moving.bit_length = 16;
  moving.is_test = true;
  Tensor s = f32(Shape{1}, {2});
  CHECK_GRADCHECK_OP("fake_quantize_dequantize_moving_average_abs_max", {&x}, [&](Tensor& out) {
    k::fake_quantize_dequantize_moving_average_abs_max(x, s, nullptr, nullptr, out, out_scale, nullptr, nullptr,
                                                       moving);
  }, st);
  // The abs_max forms take the scale from X, so perturbing the largest
  // element moves every other element's grid: each adds up to step/(2h) of
  // rounding jitter (1.5e-5/2e-2 with s = 0.5), so one other element per
  // scale keeps the total under gradcheck's 1e-3 absolute tolerance.
  Tensor xm = f32(Shape{2}, {0.5f, 0.2f});
  k::FakeQuantAbsMaxAttrs abs_max;
  abs_max.bit_length = 16;
  CHECK_GRADCHECK_OP("fake_quantize_dequantize_abs_max", {&xm},
                     [&](Tensor& out) { k::fake_quantize_dequantize_abs_max(xm, out, out_scale, abs_max); }, st);
  Tensor xc = f32(Shape{2, 2}, {0.5f, 0.2f, -0.5f, 0.1f});
  k::FakeChannelQuantAttrs channel;
  channel.bit_length = 16;
  CHECK_GRADCHECK_OP("fake_channel_wise_quantize_dequantize_abs_max", {&xc}, [&](Tensor& out) {
    k::fake_channel_wise_quantize_dequantize_abs_max(xc, out, out_scale, channel);
  }, st);
}

TEST_CASE("fake_quantize_range_abs_max training: a window of past scales indexed by Iter", "[quant]") {
  // Paddle 2.6.2 gave these for X = linspace(-1.5, 1.2, 12), window 4,
  // InScale 3 and the ring [0.5, 3, 1, 0.2] bound to OutScales.
  std::vector<float> xv(12);
  for (int i = 0; i < 12; ++i) xv[i] = -1.5f + 2.7f * static_cast<float>(i) / 11.0f;
  Tensor x = f32(Shape{3, 4}, xv), s = f32(Shape{1}, {3}), out, out_scale;
  k::FakeQuantRangeAttrs a;
  a.window_size = 4;
  // Iter 5: slot 1 held InScale's 3 and now max|X| = 1.5: the window is scanned again.
  Tensor it = i64(Shape{1}, {5}), ring = f32(Shape{4}, {0.5f, 3, 1, 0.2f});
  k::fake_quantize_range_abs_max(x, s, &it, out, out_scale, &ring, a);
  CHECK(values(out_scale) == std::vector<double>{1.5});
  CHECK(values(ring) == std::vector<double>{0.5, 1.5, 1, static_cast<float>(0.2)});
  std::vector<double> levels = values(out);
  CHECK(std::vector<double>(levels.begin(), levels.begin() + 3) == std::vector<double>{-127, -106, -85});
  // Iter 6: slot 2 is replaced, InScale 3 stays the larger.
  it = i64(Shape{1}, {6});
  ring = f32(Shape{4}, {0.5f, 3, 1, 0.2f});
  k::fake_quantize_range_abs_max(x, s, &it, out, out_scale, &ring, a);
  CHECK(values(out_scale) == std::vector<double>{3});
  CHECK(values(ring) == std::vector<double>{0.5, 3, 1.5, static_cast<float>(0.2)});
  levels = values(out);
  CHECK(std::vector<double>(levels.begin(), levels.begin() + 3) == std::vector<double>{-64, -53, -43});
}
