// test/unit/kernels/detection_test.cc - prior_box and box_coder: hand-computed priors, encode/decode round trips, errors.
#include <catch2/catch.hpp>

#include "kernels/detection.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::BoxCoderAttrs;
using kernels::PriorBoxAttrs;

namespace {

Tensor zeros(const Shape& s) { return f32(s, std::vector<float>(static_cast<size_t>(s.numel()), 0.f)); }

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(tol));
}

}  // namespace

TEST_CASE("prior_box: priors of one cell", "[detection]") {
  PriorBoxAttrs a;
  a.min_sizes = {4};
  a.max_sizes = {16};
  a.aspect_ratios = {4};
  a.variances = {0.1f, 0.1f, 0.2f, 0.2f};
  a.clip = false;
  Tensor boxes, vars;
  // One 1x2 feature map over a 10x20 image: step 10, cell centres (5, 5), (15, 5).
  kernels::prior_box(zeros(Shape{1, 1, 1, 2}), zeros(Shape{1, 1, 10, 20}), boxes, vars, a);
  REQUIRE(boxes.shape() == Shape{1, 2, 4, 4});  // ratios 1, 4, 1/4 and the max square
  std::vector<double> b = values(boxes);
  // Cell 0: ratio 1 (half 2), ratio 4 (half 4 x 1), ratio 1/4 (half 1 x 4), sqrt(4 * 16) = 8 (half 4).
  check_close({b.begin(), b.begin() + 16}, {3 / 20., 3 / 10., 7 / 20., 7 / 10., 1 / 20., 4 / 10., 9 / 20., 6 / 10.,
                                            4 / 20., 1 / 10., 6 / 20., 9 / 10., 1 / 20., 1 / 10., 9 / 20., 9 / 10.});
  CHECK(b[16] == Approx(13 / 20.));
  std::vector<double> v = values(vars);
  check_close({v.begin(), v.begin() + 8}, {0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.2, 0.2});

  a.clip = true;
  a.min_max_aspect_ratios_order = true;  // min square, max square, then the other ratios
  kernels::prior_box(zeros(Shape{1, 1, 1, 2}), zeros(Shape{1, 1, 10, 20}), boxes, vars, a);
  b = values(boxes);
  check_close({b.begin(), b.begin() + 8}, {3 / 20., 3 / 10., 7 / 20., 7 / 10., 1 / 20., 1 / 10., 9 / 20., 9 / 10.});
  a.variances = {0.1f};
  CHECK_THROWS_WITH(kernels::prior_box(zeros(Shape{1, 1, 1, 2}), zeros(Shape{1, 1, 10, 20}), boxes, vars, a),
                    Catch::Contains("variances"));
}

TEST_CASE("box_coder: encode then decode gives the boxes back", "[detection]") {
  const Tensor prior = f32(Shape{2, 4}, {0.1f, 0.1f, 0.5f, 0.3f, 0.2f, 0.4f, 0.6f, 0.9f});
  const Tensor target = f32(Shape{3, 4}, {0.f, 0.f, 0.4f, 0.4f, 0.3f, 0.2f, 0.7f, 0.5f, 0.15f, 0.5f, 0.25f, 0.8f});
  for (bool normalized : {true, false}) {
    BoxCoderAttrs enc;
    enc.box_normalized = normalized;
    enc.variance = {0.1f, 0.1f, 0.2f, 0.2f};
    Tensor code, back;
    kernels::box_coder(prior, nullptr, target, code, enc);
    REQUIRE(code.shape() == Shape{3, 2, 4});
    if (normalized) {
      // Target 0 against prior 0: centres (0.2, 0.2) and (0.3, 0.2), sizes 0.4 x 0.4 and 0.4 x 0.2.
      check_close({get(code, 0), get(code, 1), get(code, 2), get(code, 3)},
                  {(0.2 - 0.3) / 0.4 / 0.1, 0.0, 0.0, std::log(2.0) / 0.2}, 1e-5);
    }
    BoxCoderAttrs dec = enc;
    dec.code_type = "decode_center_size";
    kernels::box_coder(prior, nullptr, code, back, dec);
    REQUIRE(back.shape() == Shape{3, 2, 4});
    // Pixel boxes come back half a pixel lower: Paddle's encode takes the
    // target's centre without the +1 its width gets, its decode takes 1 off xmax.
    const double shift = normalized ? 0.0 : -0.5;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 4; ++k)
          CHECK(get(back, (i * 2 + j) * 4 + k) == Approx(get(target, i * 4 + k) + shift).margin(1e-5));
  }
  // A variance tensor divides like the attribute.
  const Tensor var = f32(Shape{2, 4}, {0.1f, 0.1f, 0.2f, 0.2f, 0.1f, 0.1f, 0.2f, 0.2f});
  BoxCoderAttrs plain, with_attr;
  with_attr.variance = {0.1f, 0.1f, 0.2f, 0.2f};
  Tensor a, b;
  kernels::box_coder(prior, &var, target, a, plain);
  kernels::box_coder(prior, nullptr, target, b, with_attr);
  check_close(values(a), values(b));
  BoxCoderAttrs bad;
  bad.code_type = "decode_center_size";
  CHECK_THROWS_WITH(kernels::box_coder(prior, nullptr, target, a, bad), Catch::Contains("[N, M, 4]"));
}

TEST_CASE("yolo_box: one cell decoded by hand; thresholds and clipping", "[detection]") {
  kernels::YoloBoxAttrs a;
  a.anchors = {10, 8};
  a.class_num = 1;
  a.conf_thresh = 0.1f;
  a.downsample_ratio = 32;
  // All logits 0: every sigmoid is 0.5. One 1x1 cell of a 32x32 input, image 32 high and 64 wide.
  const Tensor x = zeros(Shape{1, 6, 1, 1});
  const Tensor size = i32(Shape{1, 2}, {32, 64});
  Tensor boxes, scores;
  kernels::yolo_box(x, size, boxes, scores, a);
  REQUIRE(boxes.shape() == Shape{1, 1, 4});
  REQUIRE(scores.shape() == Shape{1, 1, 1});
  // Centre (0.5 * 64, 0.5 * 32), size (10 * 64 / 32, 8 * 32 / 32).
  check_close(values(boxes), {22, 12, 42, 20});
  check_close(values(scores), {0.25});
  a.scale_x_y = 2.0f;  // centre offset 0.5 * 2 - 0.5 = 0.5: unchanged for a zero logit
  kernels::yolo_box(x, size, boxes, scores, a);
  check_close(values(boxes), {22, 12, 42, 20});
  a.anchors = {200, 8};  // 400 wide: clipped to [0, 63]
  kernels::yolo_box(x, size, boxes, scores, a);
  check_close(values(boxes), {0, 12, 63, 20});
  a.conf_thresh = 0.6f;  // under the threshold: all zero
  kernels::yolo_box(x, size, boxes, scores, a);
  check_close(values(boxes), {0, 0, 0, 0});
  check_close(values(scores), {0});
  a.class_num = 2;
  CHECK_THROWS_WITH(kernels::yolo_box(x, size, boxes, scores, a), Catch::Contains("channels"));
}
