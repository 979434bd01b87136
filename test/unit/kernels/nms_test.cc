// test/unit/kernels/nms_test.cc - multiclass_nms 1/2/3, matrix_nms and nms: hand-worked suppression and decay, ties, keep_top_k, empty results, errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/detection_nms.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::MulticlassNmsAttrs;

namespace {

// Box 0 [0, 0, 1, 1], box 1 [0, 0.5, 1, 1.5] (IoU 0.5 / 1.5 = 1/3), box 2 [2, 2, 3, 3].
Tensor three_boxes() { return f32(Shape{1, 3, 4}, {0, 0, 1, 1, 0, 0.5f, 1, 1.5f, 2, 2, 3, 3}); }

MulticlassNmsAttrs attrs(float thr) {
  MulticlassNmsAttrs a;
  a.score_threshold = 0.05f;
  a.nms_threshold = thr;
  a.background_label = -1;
  return a;
}

}  // namespace

TEST_CASE("multiclass_nms3: IoU 1/3 suppressed below the threshold, kept above", "[nms]") {
  // One class; scores 0.9, 0.8, 0.7.
  Tensor s = f32(Shape{1, 1, 3}, {0.9f, 0.8f, 0.7f});
  Tensor out, index, num;
  kernels::multiclass_nms3(three_boxes(), s, nullptr, out, &index, &num, attrs(0.3f));
  REQUIRE(out.shape() == Shape{2, 6});
  std::vector<double> o = values(out);
  CHECK(o[1] == Approx(0.9));
  CHECK(o[7] == Approx(0.7));  // box 1 suppressed (1/3 > 0.3)
  CHECK(index.data<int32_t>()[1] == 2);
  CHECK(num.data<int32_t>()[0] == 2);
  CHECK(out.lod() == nullptr);
  kernels::multiclass_nms3(three_boxes(), s, nullptr, out, &index, &num, attrs(0.34f));
  CHECK(out.shape() == Shape{3, 6});
}

TEST_CASE("multiclass_nms: ties keep box order; keep_top_k cuts across classes, rows by class", "[nms]") {
  // Two classes; class 1 ties box 2 with class 0's best.
  Tensor s = f32(Shape{1, 2, 3}, {0.6f, 0.1f, 0.5f, 0.2f, 0.3f, 0.6f});
  MulticlassNmsAttrs a = attrs(0.5f);
  a.keep_top_k = 3;
  Tensor out, index;
  kernels::multiclass_nms2(three_boxes(), s, out, &index, a);
  // NMS at 0.5 keeps everything (the only overlap is 1/3). Candidates: c0 b0 0.6, c0 b2 0.5, c0 b1 0.1,
  // c1 b2 0.6, c1 b1 0.3, c1 b0 0.2. Best three, stably: c0 b0 0.6, c1 b2 0.6, c0 b2 0.5; rows class 0 first.
  REQUIRE(out.shape() == Shape{3, 6});
  std::vector<double> o = values(out);
  CHECK(o[0] == 0);
  CHECK(o[1] == Approx(0.6));
  CHECK(o[6] == 0);
  CHECK(o[7] == Approx(0.5));
  CHECK(o[12] == 1);
  CHECK(index.data<int32_t>()[2] == 2);
  REQUIRE(out.lod() != nullptr);
  CHECK((*out.lod())[0] == std::vector<uint64_t>{0, 3});
}

TEST_CASE("multiclass_nms: nothing detected gives Paddle's markers", "[nms]") {
  Tensor s = f32(Shape{1, 1, 3}, {0.01f, 0.02f, 0.03f});
  Tensor out, index, num;
  kernels::multiclass_nms(three_boxes(), s, out, attrs(0.3f));
  REQUIRE(out.shape() == Shape{1, 1});
  CHECK(values(out)[0] == -1);
  CHECK((*out.lod())[0] == std::vector<uint64_t>{0, 1});
  kernels::multiclass_nms3(three_boxes(), s, nullptr, out, &index, &num, attrs(0.3f));
  CHECK(out.shape() == Shape{0, 6});
  CHECK(index.shape() == Shape{0, 1});
  CHECK(num.data<int32_t>()[0] == 0);
}

TEST_CASE("multiclass_nms: bad inputs are clear errors", "[nms]") {
  Tensor out, index, num;
  CHECK_THROWS_WITH(kernels::multiclass_nms3(three_boxes(), f32(Shape{3, 1}, {1, 1, 1}), nullptr, out, &index, &num,
                                             attrs(0.3f)),
                    Catch::Contains("does not match Scores"));
  // Per-RoI form: RoisNum must cover the RoIs exactly.
  Tensor roi_boxes = f32(Shape{2, 1, 4}, {0, 0, 1, 1, 2, 2, 3, 3});
  Tensor roi_scores = f32(Shape{2, 1}, {0.9f, 0.8f});
  CHECK_THROWS_WITH(kernels::multiclass_nms3(roi_boxes, roi_scores, nullptr, out, &index, &num, attrs(0.3f)),
                    Catch::Contains("needs RoisNum"));
  Tensor bad = i32(Shape{2}, {1, 5});
  CHECK_THROWS_WITH(kernels::multiclass_nms3(roi_boxes, roi_scores, &bad, out, &index, &num, attrs(0.3f)),
                    Catch::Contains("runs past"));
  Tensor good = i32(Shape{3}, {1, 0, 1});
  kernels::multiclass_nms3(roi_boxes, roi_scores, &good, out, &index, &num, attrs(0.3f));
  REQUIRE(num.shape() == Shape{3});
  CHECK(num.data<int32_t>()[1] == 0);
  CHECK(index.data<int32_t>()[1] == 1);
  CHECK_THROWS_WITH(kernels::multiclass_nms(three_boxes(), f32(Shape{1, 1, 2}, {1, 1}), out, attrs(0.3f)),
                    Catch::Contains("boxes per image"));
  CHECK_THROWS_WITH(kernels::multiclass_nms(f32(Shape{1, 1, 5}, {0, 0, 1, 1, 0}), f32(Shape{1, 1, 1}, {1}), out,
                                            attrs(0.3f)),
                    Catch::Contains("last dim must be 4"));
}

TEST_CASE("matrix_nms: linear and gaussian decay worked by hand", "[nms]") {
  Tensor s = f32(Shape{1, 1, 3}, {0.9f, 0.8f, 0.7f});
  kernels::MatrixNmsAttrs a;
  a.score_threshold = 0.05f;
  a.post_threshold = 0.1f;
  a.background_label = -1;
  Tensor out, index, num;
  // Box 1 overlaps box 0 with IoU 1/3 (box 0's max IoU is 0): decay (1 - 1/3) / 1. Box 2 touches nothing:
  // min(1 / 1, 1 / (1 - 1/3)) = 1. Rows by decayed score.
  kernels::matrix_nms(three_boxes(), s, out, &index, &num, a);
  REQUIRE(out.shape() == Shape{3, 6});
  std::vector<double> o = values(out);
  CHECK(o[1] == Approx(0.9));
  CHECK(o[7] == Approx(0.7));
  CHECK(o[13] == Approx(0.8 * 2 / 3.));
  CHECK(index.data<int32_t>()[2] == 1);
  CHECK(num.data<int32_t>()[0] == 3);
  a.use_gaussian = true;
  a.gaussian_sigma = 2.f;
  a.post_threshold = 0.75f;  // gaussian: 0.8 * exp(-(1/9) * 2) = 0.6404 falls under it
  kernels::matrix_nms(three_boxes(), s, out, &index, &num, a);
  REQUIRE(out.shape() == Shape{1, 6});
  CHECK(values(out)[1] == Approx(0.9));
  a.post_threshold = 0.6f;
  kernels::matrix_nms(three_boxes(), s, out, &index, &num, a);
  REQUIRE(out.shape() == Shape{3, 6});
  CHECK(values(out)[13] == Approx(0.8 * std::exp(-2 / 9.)));
}

TEST_CASE("matrix_nms: a candidate count whose IoU matrix would take gigabytes is refused", "[nms]") {
  const int64_t m = 30000;
  std::vector<float> b(static_cast<size_t>(m * 4)), s(static_cast<size_t>(m), 0.5f);
  for (int64_t i = 0; i < m; ++i) {
    b[static_cast<size_t>(4 * i + 2)] = 1;
    b[static_cast<size_t>(4 * i + 3)] = 1;
  }
  kernels::MatrixNmsAttrs a;
  a.background_label = -1;
  Tensor out, index, num;
  CHECK_THROWS_WITH(kernels::matrix_nms(f32(Shape{1, m, 4}, b), f32(Shape{1, 1, m}, s), out, &index, &num, a),
                    Catch::Contains("set nms_top_k"));
  a.nms_top_k = 100;
  kernels::matrix_nms(f32(Shape{1, m, 4}, b), f32(Shape{1, 1, m}, s), out, &index, &num, a);
  CHECK(num.data<int32_t>()[0] >= 1);
}

TEST_CASE("nms: greedy over boxes in the order given, Paddle's IoU", "[nms]") {
  kernels::NmsAttrs a;
  a.iou_threshold = 0.3f;
  // Box 1 overlaps box 0 by 1/3 (dropped at 0.3), box 2 is apart, box 3 overlaps only the dropped box 1
  // ([0, 1, 1, 2] against box 1: IoU 1/3): a dropped box suppresses nothing, so box 3 is kept.
  Tensor boxes = f32(Shape{4, 4}, {0, 0, 1, 1, 0, 0.5f, 1, 1.5f, 2, 2, 3, 3, 0, 1, 1, 2}), keep;
  kernels::nms(boxes, keep, a);
  CHECK(keep.dtype() == DType::kInt64);
  CHECK(values(keep) == std::vector<double>{0, 2, 3});
  a.iou_threshold = 0.34f;  // above 1/3: nothing overlaps enough
  kernels::nms(boxes, keep, a);
  CHECK(values(keep) == std::vector<double>{0, 1, 2, 3});
  // Identical boxes: IoU 1; empty input: nothing kept.
  kernels::nms(f64(Shape{2, 4}, {0, 0, 2, 2, 0, 0, 2, 2}), keep, a);
  CHECK(values(keep) == std::vector<double>{0});
  kernels::nms(f32(Shape{0, 4}, {}), keep, a);
  CHECK(keep.shape() == Shape{0});
  CHECK_THROWS_WITH(kernels::nms(f32(Shape{2, 3}, {0, 0, 0, 0, 0, 0}), keep, a), Catch::Contains("[N, 4]"));
  CHECK_THROWS_WITH(kernels::nms(i32(Shape{1, 4}, {0, 0, 1, 1}), keep, a), Catch::Contains("int32"));
}
