// test/unit/kernels/detection_rpn_test.cc - generate_proposals_v2 and distribute_fpn_proposals: hand-computed boxes and levels, an empty image, refusals.
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
