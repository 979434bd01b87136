// test/unit/kernels/roll_test.cc - roll: hand-computed values, flat and repeated axes, ShiftsTensor, errors, gradient.
#include <catch2/catch.hpp>

#include <climits>
#include <numeric>

#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::RollAttrs;

namespace {

RollAttrs roll_by(std::vector<int64_t> shifts, std::vector<int64_t> axis) {
  RollAttrs a;
  a.shifts = std::move(shifts);
  a.axis = std::move(axis);
  return a;
}

}  // namespace

TEST_CASE("roll: axes, flat, negative and large shifts, ShiftsTensor, in place", "[roll]") {
  Tensor out;
  kernels::roll(iota(Shape{2, 3}), nullptr, out, roll_by({1}, {1}));
  CHECK(values(out) == std::vector<double>{2, 0, 1, 5, 3, 4});
  kernels::roll(iota(Shape{2, 3}), nullptr, out, roll_by({-1}, {-1}));
  CHECK(values(out) == std::vector<double>{1, 2, 0, 4, 5, 3});
  kernels::roll(iota(Shape{2, 3}), nullptr, out, roll_by({1, 7}, {0, 1}));  // 7 = 1 (mod 3)
  CHECK(values(out) == std::vector<double>{5, 3, 4, 2, 0, 1});
  kernels::roll(iota(Shape{2, 3}), nullptr, out, roll_by({2}, {}));  // flat
  REQUIRE(out.shape() == Shape{2, 3});
  CHECK(values(out) == std::vector<double>{4, 5, 0, 1, 2, 3});
  kernels::roll(iota(Shape{4}), nullptr, out, roll_by({1, 2}, {0, 0}));  // a repeated axis adds
  CHECK(values(out) == std::vector<double>{1, 2, 3, 0});
  const Tensor st = i64(Shape{1}, {-2});
  kernels::roll(i64(Shape{4}, {5, 6, 7, 8}), &st, out, roll_by({1}, {0}));  // the tensor wins
  CHECK(values(out) == std::vector<double>{7, 8, 5, 6});
  // Extreme shifts wrap without overflowing (a program's values are untrusted).
  kernels::roll(iota(Shape{3}), nullptr, out, roll_by({INT64_MIN, INT64_MAX}, {0, 0}));
  CHECK(values(out) == std::vector<double>{1, 2, 0});  // -2^63 = 1 and 2^63 - 1 = 1 (mod 3): a shift of 2
  Tensor back;
  kernels::roll_grad(iota(Shape{3}), nullptr, out, &back, roll_by({INT64_MIN, INT64_MAX}, {0, 0}));
  CHECK(values(back) == std::vector<double>{0, 1, 2});
  Tensor x = iota(Shape{3});
  kernels::roll(x, nullptr, x, roll_by({1}, {0}));
  CHECK(values(x) == std::vector<double>{2, 0, 1});
  CHECK_THROWS_WITH(kernels::roll(iota(Shape{2}), nullptr, out, roll_by({1}, {1})), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(kernels::roll(iota(Shape{2}), nullptr, out, roll_by({1, 2}, {})), Catch::Contains("one shift"));
  CHECK_THROWS_WITH(kernels::roll(iota(Shape{2}), nullptr, out, roll_by({1, 2}, {0})),
                    Catch::Contains("one shift per axis"));
}

TEST_CASE("roll_grad matches finite differences", "[roll][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (auto a : {roll_by({1, -2}, {0, 2}), roll_by({5}, {})}) {
      std::mt19937 rng(3);
      Tensor x = random(Shape{2, 3, 4}, dt, rng);
      CHECK_GRADCHECK_OP("roll", {&x}, [&](Tensor& o) { kernels::roll(x, nullptr, o, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::roll_grad(x, nullptr, dout, g[0], a);
                         });
    }
}
