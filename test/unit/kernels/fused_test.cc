// test/unit/kernels/fused_test.cc - plan_fused: the loop nest it derives, and every case it must decline.
#include <catch2/catch.hpp>

#include "kernels/fused.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::Bcast;
using kernels::plan_fused;

namespace {
Tensor zeros(const Shape& s) { return f32(s, std::vector<float>(static_cast<size_t>(s.numel()), 0.0f)); }
}  // namespace

TEST_CASE("plan_fused: rows at the trailing and a middle axis, full operands, no operands", "[fused]") {
  Tensor x = zeros(Shape{2, 3, 4}), out;
  Tensor row_last = zeros(Shape{4}), row_mid = zeros(Shape{3}), full = zeros(Shape{2, 3, 4});
  auto p = plan_fused(x, DType::kFP32, {{&row_last, Bcast::kRow, -1}, {&full, Bcast::kFull, -1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 6 && p.n == 4 && p.post == 1));
  CHECK(out.shape() == x.shape());
  p = plan_fused(x, DType::kFP32, {{&row_mid, Bcast::kRow, 1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 2 && p.n == 3 && p.post == 4));
  p = plan_fused(x, DType::kFP32, {}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 1 && p.n == 24 && p.post == 1));
  // fused_for visits every element once, with the row index of its middle dim.
  std::vector<int> seen(24, 0);
  p = plan_fused(x, DType::kFP32, {{&row_mid, Bcast::kRow, 1}}, out);
  kernels::fused_for(p, [&](int64_t i, int64_t j) {
    ++seen[static_cast<size_t>(i)];
    CHECK(j == (i / 4) % 3);
  });
  CHECK(std::count(seen.begin(), seen.end(), 1) == 24);
}

TEST_CASE("plan_fused: same-rank rows, ones around one run of X's dims", "[fused]") {
  Tensor x = zeros(Shape{2, 3, 4, 5}), out;
  Tensor se = zeros(Shape{2, 3, 1, 1}), bias = zeros(Shape{1, 3, 1, 1}), last = zeros(Shape{1, 1, 1, 5});
  auto p = plan_fused(x, DType::kFP32, {{&se, Bcast::kRow, -1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 1 && p.n == 6 && p.post == 20));
  p = plan_fused(x, DType::kFP32, {{&bias, Bcast::kRow, -1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 2 && p.n == 3 && p.post == 20));
  p = plan_fused(x, DType::kFP32, {{&last, Bcast::kRow, -1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 24 && p.n == 5 && p.post == 1));
  // A same-rank row indexes Y[j] with j = n * 3 + c for element (n, c, h, w).
  p = plan_fused(x, DType::kFP32, {{&se, Bcast::kRow, -1}}, out);
  kernels::fused_for(p, [&](int64_t i, int64_t j) { CHECK(j == i / 20); });
  Tensor gap = zeros(Shape{2, 1, 1, 5}), wrong = zeros(Shape{2, 4, 1, 1});
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&gap, Bcast::kRow, -1}}, out).ok);    // two runs
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&wrong, Bcast::kRow, -1}}, out).ok);  // a run of other dims
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&se, Bcast::kRow, -1}, {&bias, Bcast::kRow, -1}}, out).ok);  // two nests
}

TEST_CASE("plan_fused: one-element operands sit beside a row nest and leave it alone", "[fused]") {
  Tensor x = zeros(Shape{2, 3, 4}), out;
  Tensor scalar = zeros(Shape{1}), scalar_3d = zeros(Shape{1, 1, 1}), row_mid = zeros(Shape{3});
  auto p = plan_fused(x, DType::kFP32, {{&scalar, Bcast::kScalar, -1}, {&row_mid, Bcast::kRow, 1}, {&scalar_3d, Bcast::kScalar, 1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 2 && p.n == 3 && p.post == 4));
  p = plan_fused(x, DType::kFP32, {{&scalar, Bcast::kScalar, -1}}, out);
  REQUIRE(p.ok);
  CHECK((p.pre == 1 && p.n == 24 && p.post == 1));
  CHECK(out.shape() == x.shape());
}

TEST_CASE("plan_fused declines what the ordinary kernels must handle", "[fused]") {
  Tensor x = zeros(Shape{2, 3}), out, unset;
  Tensor one = zeros(Shape{1}), wrong_row = zeros(Shape{2}), other_shape = zeros(Shape{3, 2});
  Tensor x64 = f64(Shape{2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor row = zeros(Shape{3}), row2 = zeros(Shape{2});
  CHECK_FALSE(plan_fused(unset, DType::kFP32, {}, out).ok);                             // uninitialised X
  CHECK_FALSE(plan_fused(x64, DType::kFP32, {}, out).ok);                               // X of another dtype
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&x64, Bcast::kFull, -1}}, out).ok);         // operand dtype
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&one, Bcast::kRow, -1}}, out).ok);          // size-1 broadcast
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&wrong_row, Bcast::kRow, -1}}, out).ok);    // row of the wrong size
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&other_shape, Bcast::kFull, -1}}, out).ok); // not the same shape
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&row, Bcast::kRow, 5}}, out).ok);           // axis out of range
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&row, Bcast::kRow, -1}, {&row2, Bcast::kRow, 0}}, out).ok);  // two nests
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&row, Bcast::kRow, -1}}, row).ok);          // out over a row operand
  Tensor one_4d = zeros(Shape{1, 1, 1, 1}), one64 = f64(Shape{1}, {0});
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&row, Bcast::kScalar, -1}}, out).ok);       // not one element
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&one_4d, Bcast::kScalar, -1}}, out).ok);    // a higher rank than X
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&one64, Bcast::kScalar, -1}}, out).ok);     // operand dtype
  CHECK_FALSE(plan_fused(x, DType::kFP32, {{&unset, Bcast::kScalar, -1}}, out).ok);     // uninitialised operand
  CHECK_FALSE(plan_fused(one, DType::kFP32, {{&one, Bcast::kScalar, -1}}, one).ok);     // out over a scalar operand
  CHECK_FALSE(out.initialized());  // declining leaves out alone
}
