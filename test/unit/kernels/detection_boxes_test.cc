// test/unit/kernels/detection_boxes_test.cc - box_clip (LoD and LoD-free forms), iou_similarity, anchor_generator, box_decoder_and_assign.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/detection_boxes.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("box_clip: each image's boxes to its rounded, unscaled size", "[detection_boxes]") {
  // Image 0: 10 x 20 at scale 1 -> x in [0, 19], y in [0, 9]; image 1: 9 x 9 at scale 2 -> round(4.5) = 5, so [0, 4].
  const Tensor info = f32(Shape{2, 3}, {10, 20, 1, 9, 9, 2});
  Tensor out;
  SECTION("rank 3, one row per image, no LoD") {
    k::box_clip(f32(Shape{2, 1, 4}, {-1, -2, 30, 30, 3, 3, 7, 2}), info, out);
    CHECK(values(out) == std::vector<double>{0, 0, 19, 9, 3, 3, 4, 2});
  }
  SECTION("rank 2 with a LoD: rows per image") {
    Tensor in = f32(Shape{3, 4}, {-1, -2, 30, 30, 3, 3, 7, 2, 6, 1, 1, 6});
    in.mutable_lod() = {{0, 2, 3}};
    k::box_clip(in, info, out);
    CHECK(values(out) == std::vector<double>{0, 0, 19, 9, 3, 3, 7, 2, 4, 1, 1, 4});
    REQUIRE(out.lod());
    CHECK(*out.lod() == rt::Lod{{0, 2, 3}});
    in.mutable_lod() = {{0, 3}};
    CHECK_THROWS_WITH(k::box_clip(in, info, out), Catch::Contains("1 sequences but ImInfo describes 2"));
  }
  SECTION("a 2-D Input without LoD is one image") {
    k::box_clip(f32(Shape{1, 4}, {-1, -2, 30, 30}), f32(Shape{1, 3}, {10, 20, 1}), out);
    CHECK(values(out) == std::vector<double>{0, 0, 19, 9});
    CHECK_THROWS_WITH(k::box_clip(f32(Shape{1, 4}, {0, 0, 1, 1}), info, out), Catch::Contains("box_clip"));
    CHECK_THROWS_WITH(k::box_clip(f32(Shape{1, 3}, {0, 0, 1}), f32(Shape{1, 3}, {10, 20, 1}), out),
                      Catch::Contains("multiple of 4"));
  }
}

TEST_CASE("iou_similarity: normalised and pixel boxes", "[detection_boxes]") {
  k::IouSimilarityAttrs a;
  Tensor out;
  // [0,0,2,2] vs [1,1,3,3]: intersection 1, union 7; vs itself 1; vs a far box 0.
  const Tensor x = f64(Shape{1, 4}, {0, 0, 2, 2});
  k::iou_similarity(x, f64(Shape{3, 4}, {1, 1, 3, 3, 0, 0, 2, 2, 5, 5, 6, 6}), out, a);
  CHECK(out.shape() == Shape{1, 3});
  CHECK(values(out)[0] == Approx(1.0 / 7));
  CHECK(values(out)[1] == 1.0);
  CHECK(values(out)[2] == 0.0);
  a.box_normalized = false;  // pixel boxes: 3x3 each, intersection 2x2 = 4, union 14
  k::iou_similarity(x, f64(Shape{1, 4}, {1, 1, 3, 3}), out, a);
  CHECK(values(out)[0] == Approx(4.0 / 14));
  CHECK_THROWS_WITH(k::iou_similarity(x, f64(Shape{1, 3}, {1, 1, 3}), out, a), Catch::Contains("must be [M, 4]"));
}

TEST_CASE("anchor_generator: centres, sizes, ratio-major order, variances", "[detection_boxes]") {
  k::AnchorGeneratorAttrs a;
  a.anchor_sizes = {32};
  a.aspect_ratios = {1, 4};
  a.variances = {0.1f, 0.2f, 0.3f, 0.4f};
  Tensor anchors, var;
  k::anchor_generator(f32(Shape{1, 1, 1, 2}, {0, 0}), anchors, var, a);
  CHECK(anchors.shape() == Shape{1, 2, 2, 4});
  // Cell (0, 1): centre (16 + 7.5, 7.5). Ratio 1: base 16x16 scaled by 2 -> 32x32.
  // Ratio 4: base w round(sqrt(64)) = 8, h 32, scaled by 2 -> 16 x 64.
  const std::vector<double> v = values(anchors);
  CHECK(std::vector<double>(v.begin() + 8, v.end()) ==
        std::vector<double>{23.5 - 15.5, 7.5 - 15.5, 23.5 + 15.5, 7.5 + 15.5, 23.5 - 7.5, 7.5 - 31.5, 23.5 + 7.5,
                            7.5 + 31.5});
  CHECK(values(var)[5] == Approx(0.2));
  a.variances = {0.1f};
  CHECK_THROWS_WITH(k::anchor_generator(f32(Shape{1, 1, 1, 2}, {0, 0}), anchors, var, a),
                    Catch::Contains("anchor_generator") && Catch::Contains("4 values"));
}

TEST_CASE("box_decoder_and_assign decodes every class and assigns the best non-background one", "[detection_boxes]") {
  // Prior 0: [0, 0, 9, 9] (10 x 10 pixels, centre 5, 5). Class 1 moves the centre by 0.1 x 10 and -0.2 x 10
  // and doubles the width: centre (6, 3), 20 x 10 -> [-4, -2, 15, 7]. Prior 1: [2, 2, 5, 7] (4 x 6, centre
  // (4, 5)); class 1's width delta 10 is clipped to log 2: 8 x 6 -> [0, 2, 7, 7]. Its class-1 score -1 is
  // not above Paddle's start value: it keeps its prior box.
  Tensor prior = f32(Shape{2, 4}, {0, 0, 9, 9, 2, 2, 5, 7});
  prior.mutable_lod() = {{0, 2}};
  Tensor var = f32(Shape{4}, {1, 1, 1, 1});
  Tensor target = f32(Shape{2, 8}, {0, 0, 0, 0, 0.1f, -0.2f, std::log(2.0f), 0, 0, 0, 0, 0, 0, 0, 10, 0});
  Tensor score = f32(Shape{2, 2}, {0.2f, 0.5f, 0.9f, -1});
  kernels::BoxDecoderAndAssignAttrs a;
  a.box_clip = std::log(2.0f);
  Tensor decoded, assigned;
  kernels::box_decoder_and_assign(prior, &var, target, score, decoded, assigned, a);
  CHECK(decoded.shape() == Shape{2, 8});
  CHECK_THAT(values(decoded), Catch::Matchers::Approx(std::vector<double>{0, 0, 9, 9, -4, -2, 15, 7,  //
                                                                          2, 2, 5, 7, 0, 2, 7, 7}));
  CHECK_THAT(values(assigned), Catch::Matchers::Approx(std::vector<double>{-4, -2, 15, 7, 2, 2, 5, 7}));
  CHECK(decoded.lod() == nullptr);
  REQUIRE(assigned.lod() != nullptr);
  CHECK((*assigned.lod())[0] == std::vector<uint64_t>{0, 2});
  CHECK_THROWS_WITH(kernels::box_decoder_and_assign(prior, nullptr, target, score, decoded, assigned, a),
                    Catch::Contains("PriorBoxVar is required"));
  Tensor var3 = f32(Shape{3}, {1, 1, 1});
  CHECK_THROWS_WITH(kernels::box_decoder_and_assign(prior, &var3, target, score, decoded, assigned, a),
                    Catch::Contains("PriorBoxVar [3] must be [4]"));
  Tensor score3 = f32(Shape{2, 3}, {0, 0, 0, 0, 0, 0});
  CHECK_THROWS_WITH(kernels::box_decoder_and_assign(prior, &var, target, score3, decoded, assigned, a),
                    Catch::Contains("must be [N, 4 x classes]"));
  Tensor var64 = f64(Shape{4}, {1, 1, 1, 1});
  CHECK_THROWS_WITH(kernels::box_decoder_and_assign(prior, &var64, target, score, decoded, assigned, a),
                    Catch::Contains("PriorBoxVar"));
}
