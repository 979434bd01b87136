// test/unit/kernels/detection_rpn_test.cc - generate_proposals (v2 and v1), distribute_fpn_proposals and collect_fpn_proposals: hand-computed boxes and levels, an empty image, refusals.
#include <catch2/catch.hpp>

#include "kernels/detection_rpn.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

std::vector<double> dv(std::initializer_list<double> v) { return v; }

}  // namespace

TEST_CASE("generate_proposals_v2 decodes, clips and suppresses per image", "[detection_rpn]") {
  // One image, one position, two anchors: [0, 0, 15, 15] (zero deltas: itself) and [4, 4, 19, 19] shifted
  // right by half its width (deltas dx = 0.5: [12, 4, 27, 19]); pixel boxes, image 20 x 24 (h x w).
  Tensor scores = f32(Shape{1, 2, 1, 1}, {0.9f, 0.8f});
  Tensor deltas = f32(Shape{1, 8, 1, 1}, {0, 0, 0, 0, 0.5f, 0, 0, 0});  // channel 4 * anchor + coordinate
  Tensor im = f32(Shape{1, 2}, {20, 24});
  Tensor anchors = f32(Shape{1, 1, 2, 4}, {0, 0, 15, 15, 4, 4, 19, 19});
  Tensor var = f32(Shape{1, 1, 2, 4}, {1, 1, 1, 1, 1, 1, 1, 1});
  Tensor rois, probs, num;
  kernels::GenerateProposalsAttrs a;
  a.pixel_offset = true;
  kernels::generate_proposals_v2(scores, deltas, im, anchors, var, rois, probs, &num, a);
  // The second box is clipped at the image's right edge (x2 <= 24 - 1) and overlaps the first by
  // 4 x 12 pixels of 16 x 16 + 12 x 16 - 4 x 12: IoU 0.12, kept at the 0.5 threshold.
  CHECK(values(rois) == dv({0, 0, 15, 15, 12, 4, 23, 19}));
  CHECK(values(probs) == dv({static_cast<double>(0.9f), static_cast<double>(0.8f)}));
  CHECK(values(num) == dv({2}));
  CHECK(rois.lod() == nullptr);
  // A threshold under their IoU keeps only the better one.
  a.nms_thresh = 0.1f;
  kernels::generate_proposals_v2(scores, deltas, im, anchors, var, rois, probs, &num, a);
  CHECK(values(rois) == dv({0, 0, 15, 15}));
  // Nothing big enough: Paddle's one zero box of score 0.
  a.min_size = 100;
  kernels::generate_proposals_v2(scores, deltas, im, anchors, var, rois, probs, &num, a);
  CHECK(values(rois) == dv({0, 0, 0, 0}));
  CHECK(values(num) == dv({1}));
  Tensor bad_deltas = f32(Shape{1, 4, 1, 1}, {0, 0, 0, 0});
  CHECK_THROWS_WITH(kernels::generate_proposals_v2(scores, bad_deltas, im, anchors, var, rois, probs, &num, a),
                    Catch::Contains("BboxDeltas must be [N, 4A, H, W] = [1, 8, 1, 1]"));
  Tensor few_anchors = f32(Shape{1, 1, 1, 4}, {0, 0, 15, 15});
  CHECK_THROWS_WITH(kernels::generate_proposals_v2(scores, deltas, im, few_anchors, var, rois, probs, &num, a),
                    Catch::Contains("Anchors must hold [H, W, A, 4]"));
}

TEST_CASE("distribute_fpn_proposals sends each box to its level and records where it went", "[detection_rpn]") {
  // Sides 224 (level 4 = refer_level), 56 (two levels down: 2), 448 (5), 112 (3), without pixel offset;
  // image 0 holds the first three, image 1 the last, and image 2 none (Paddle 2.6.2 stops on that).
  Tensor rois = f32(Shape{4, 4}, {0, 0, 224, 224, 0, 0, 56, 56, 0, 0, 448, 448, 0, 0, 112, 112});
  Tensor count = i32(Shape{3}, {3, 1, 0});
  Tensor l2, l3, l4, l5, restore, n2, n3, n4, n5;
  Tensor* levels[] = {&l2, &l3, &l4, &l5};
  Tensor* counts[] = {&n2, &n3, &n4, &n5};
  kernels::DistributeFpnProposalsAttrs a{2, 5, 4, 224, false};
  kernels::distribute_fpn_proposals(rois, &count, levels, 4, restore, counts, 4, a);
  CHECK(values(l2) == dv({0, 0, 56, 56}));
  CHECK(values(l3) == dv({0, 0, 112, 112}));
  CHECK(values(l4) == dv({0, 0, 224, 224}));
  CHECK(values(l5) == dv({0, 0, 448, 448}));
  // The levels' concatenation is l2, l3, l4, l5: box 0 (level 4) is its row 2, box 1 row 0, box 2 row 3, box 3 row 1.
  CHECK(values(restore) == dv({2, 0, 3, 1}));
  CHECK(values(n3) == dv({0, 1, 0}));
  CHECK(values(n4) == dv({1, 0, 0}));
  REQUIRE(l3.lod() != nullptr);
  CHECK((*l3.lod())[0] == std::vector<uint64_t>{0, 0, 1, 1});
  Tensor* three[] = {&l2, &l3, &l4};
  CHECK_THROWS_WITH(kernels::distribute_fpn_proposals(rois, &count, three, 3, restore, counts, 0, a),
                    Catch::Contains("levels 2 to 5 need 4 MultiFpnRois"));
  Tensor wrong = i32(Shape{2}, {3, 2});
  CHECK_THROWS_WITH(kernels::distribute_fpn_proposals(rois, &wrong, levels, 4, restore, counts, 4, a),
                    Catch::Contains("the images hold 5 boxes but FpnRois has 4 rows"));
  Tensor negative = i32(Shape{2}, {5, -1});
  CHECK_THROWS_WITH(kernels::distribute_fpn_proposals(rois, &negative, levels, 4, restore, counts, 4, a),
                    Catch::Contains("RoisNum value -1 (image 1) is negative"));
  CHECK_THROWS_WITH(kernels::distribute_fpn_proposals(rois, nullptr, levels, 4, restore, counts, 4, a),
                    Catch::Contains("FpnRois needs RoisNum or a LoD of one level"));
}

TEST_CASE("collect_fpn_proposals keeps the best boxes of all levels, grouped by image", "[detection_rpn]") {
  // Level 0: a0 (image 0, 0.5), a1 (image 1, 0.9). Level 1: b0, b1 (image 0, 0.7 and 0.2), b2 (image 1, 0.9).
  // By score a1 and b2 tie: level 0 first (stable). The best four a1 b2 b0 a0, by image: b0 a0 | a1 b2.
  Tensor a = f32(Shape{2, 4}, {0, 0, 1, 1, 1, 1, 2, 2});
  Tensor b = f32(Shape{3, 4}, {10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13});
  Tensor sa = f32(Shape{2, 1}, {0.5f, 0.9f}), sb = f32(Shape{3, 1}, {0.7f, 0.2f, 0.9f});
  Tensor na = i32(Shape{2}, {1, 1}), nb = i32(Shape{2}, {2, 1});
  const Tensor* rois[] = {&a, &b};
  const Tensor* scores[] = {&sa, &sb};
  const Tensor* nums[] = {&na, &nb};
  Tensor out, num;
  kernels::collect_fpn_proposals(rois, 2, scores, 2, nums, 2, out, &num, kernels::CollectFpnProposalsAttrs{4});
  CHECK(values(out) == dv({10, 10, 11, 11, 0, 0, 1, 1, 1, 1, 2, 2, 12, 12, 13, 13}));
  CHECK(values(num) == dv({2, 2}));
  REQUIRE(out.lod() != nullptr);
  CHECK((*out.lod())[0] == std::vector<uint64_t>{0, 2, 4});
  // Image 0 has no box at level 1: every level-1 box is image 1's (Paddle 2.6.2 files b0 under image 0).
  Tensor nb0 = i64(Shape{2}, {0, 3});
  const Tensor* nums0[] = {&na, &nb0};
  kernels::collect_fpn_proposals(rois, 2, scores, 2, nums0, 2, out, &num, kernels::CollectFpnProposalsAttrs{10});
  CHECK(values(num) == dv({1, 4}));
  CHECK(values(out) == dv({0, 0, 1, 1, 1, 1, 2, 2, 12, 12, 13, 13, 10, 10, 11, 11, 11, 11, 12, 12}));
  // The same images from the levels' LoD.
  a.mutable_lod() = {{0, 1, 2}};
  b.mutable_lod() = {{0, 2, 3}};
  Tensor lod_out;
  kernels::collect_fpn_proposals(rois, 2, scores, 2, nullptr, 0, lod_out, nullptr, kernels::CollectFpnProposalsAttrs{4});
  CHECK(values(lod_out) == dv({10, 10, 11, 11, 0, 0, 1, 1, 1, 1, 2, 2, 12, 12, 13, 13}));
  // Refusals: a level without scores, scores of the wrong length, images that disagree, a negative cut.
  CHECK_THROWS_WITH(kernels::collect_fpn_proposals(rois, 2, scores, 1, nums, 2, out, &num, {4}),
                    Catch::Contains("2 MultiLevelRois need as many MultiLevelScores"));
  const Tensor* short_scores[] = {&sa, &sa};
  CHECK_THROWS_WITH(kernels::collect_fpn_proposals(rois, 2, short_scores, 2, nums, 2, out, &num, {4}),
                    Catch::Contains("MultiLevelScores 1 must be [3, 1]"));
  Tensor three = i32(Shape{3}, {2, 1, 0});
  const Tensor* mixed[] = {&na, &three};
  CHECK_THROWS_WITH(kernels::collect_fpn_proposals(rois, 2, scores, 2, mixed, 2, out, &num, {4}),
                    Catch::Contains("level 1 has 3 images, level 0 has 2"));
  const Tensor* overrun[] = {&na, &na};
  CHECK_THROWS_WITH(kernels::collect_fpn_proposals(rois, 2, scores, 2, overrun, 2, out, &num, {4}),
                    Catch::Contains("the images hold 2 boxes but MultiLevelRois has 3 rows"));
  CHECK_THROWS_WITH(kernels::collect_fpn_proposals(rois, 2, scores, 2, nums, 2, out, &num, {-1}),
                    Catch::Contains("post_nms_topN must not be negative"));
}

TEST_CASE("generate_proposals (v1) filters sizes at the original scale and writes the per-image LoD", "[detection_rpn]") {
  // generate_proposals_v2's first case twice: image 0 at scale 1, image 1 at scale 2. The boxes [0, 0, 15, 15]
  // and [12, 4, 23, 19] are 16 and 12 pixels wide: at scale 2, 15 / 2 + 1 and 11 / 2 + 1, both under
  // min_size 12, so image 1 gets Paddle's zero box.
  Tensor scores = f32(Shape{2, 2, 1, 1}, {0.9f, 0.8f, 0.9f, 0.8f});
  Tensor deltas = f32(Shape{2, 8, 1, 1}, {0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0.5f, 0, 0, 0});
  Tensor im = f32(Shape{2, 3}, {20, 24, 1, 20, 24, 2});
  Tensor anchors = f32(Shape{1, 1, 2, 4}, {0, 0, 15, 15, 4, 4, 19, 19});
  Tensor var = f32(Shape{1, 1, 2, 4}, {1, 1, 1, 1, 1, 1, 1, 1});
  Tensor rois, probs, num;
  kernels::GenerateProposalsV1Attrs a;
  a.min_size = 12;
  kernels::generate_proposals(scores, deltas, im, anchors, var, rois, probs, &num, a);
  CHECK(values(rois) == dv({0, 0, 15, 15, 12, 4, 23, 19, 0, 0, 0, 0}));
  CHECK(values(num) == dv({2, 1}));
  REQUIRE(rois.lod() != nullptr);
  REQUIRE(probs.lod() != nullptr);
  CHECK((*rois.lod())[0] == std::vector<uint64_t>{0, 2, 3});
  CHECK((*probs.lod())[0] == std::vector<uint64_t>{0, 2, 3});
  Tensor im2 = f32(Shape{2, 2}, {20, 24, 20, 24});
  CHECK_THROWS_WITH(kernels::generate_proposals(scores, deltas, im2, anchors, var, rois, probs, &num, a),
                    Catch::Contains("ImInfo must be [N, 3] (height, width, scale)"));
  Tensor zero_scale = f32(Shape{2, 3}, {20, 24, 1, 20, 24, 0});
  CHECK_THROWS_WITH(kernels::generate_proposals(scores, deltas, zero_scale, anchors, var, rois, probs, &num, a),
                    Catch::Contains("ImInfo's scale of image 1 must be positive"));
}
