// test/unit/kernels/set_value_test.cc - set_value: hand-computed regions, bad run-time bounds, gradients.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/set_value.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::SetValueAttrs;

namespace {

SetValueAttrs region(std::vector<int64_t> axes, std::vector<int64_t> starts, std::vector<int64_t> ends,
                     std::vector<int64_t> steps) {
  SetValueAttrs a;
  a.axes = std::move(axes);
  a.starts = std::move(starts);
  a.ends = std::move(ends);
  a.steps = std::move(steps);
  return a;
}

void set(const Tensor& x, const Tensor* v, Tensor& out, const SetValueAttrs& a, const Tensor* const* starts = nullptr,
         int ns = 0, const Tensor* const* steps = nullptr, int nt = 0, const double* values = nullptr,
         int64_t nv = 0) {
  kernels::set_value(x, v, starts, ns, nullptr, 0, steps, nt, out, a, values, nv);
}

}  // namespace

TEST_CASE("set_value: strided region, broadcast value, constants, in place", "[set_value]") {
  Tensor x = iota(Shape{3, 4}), out;
  // x[0:3:2, 1:3] = [[-1, -2]] (broadcast over the two rows)
  Tensor v = f32(Shape{1, 2}, {-1, -2});
  set(x, &v, out, region({0, 1}, {0, 1}, {3, 3}, {2, 1}));
  CHECK(values(out) == std::vector<double>{0, -1, -2, 3, 4, 5, 6, 7, 8, -1, -2, 11});
  // x[::-2, -1] = 9 from a constant: rows 2 and 0, the last column decreased.
  SetValueAttrs a = region({0, 1}, {INT32_MAX, -1}, {-1, INT32_MAX}, {-2, 1});
  a.decrease_axes = {1};
  a.shape = {1};
  const double nine[] = {9};
  set(x, nullptr, x, a, nullptr, 0, nullptr, 0, nine, 1);  // Out is Input
  CHECK(values(x) == std::vector<double>{0, 1, 2, 9, 4, 5, 6, 7, 8, 9, 10, 9});
}

TEST_CASE("set_value: run-time bounds and bad regions fail cleanly", "[set_value]") {
  Tensor x = iota(Shape{4, 5}), out;
  Tensor v = f32(Shape{1}, {7});
  Tensor start = i64(Shape{1}, {2}), step = i32(Shape{1}, {0});
  const Tensor* starts[] = {&start};
  set(x, &v, out, region({0}, {0}, {4}, {1}), starts, 1);
  CHECK(values(out)[9] == 9);
  CHECK(values(out)[10] == 7);
  const Tensor* steps[] = {&step};
  CHECK_THROWS_WITH(set(x, &v, out, region({0}, {0}, {4}, {1}), starts, 1, steps, 1),
                    Catch::Contains("steps[0] is 0"));
  CHECK_THROWS_WITH(set(x, &v, out, region({0}, {3}, {1}, {1})), Catch::Contains("end 1 is before start 3"));
  CHECK_THROWS_WITH(set(x, &v, out, region({2}, {0}, {1}, {1})), Catch::Contains("out of range"));
  Tensor wide = f32(Shape{3}, {1, 2, 3});
  CHECK_THROWS_WITH(set(x, &wide, out, region({1}, {0}, {2}, {1})), Catch::Contains("does not broadcast"));
  Tensor two = i64(Shape{2}, {1, 2});
  const Tensor* bad[] = {&two};
  CHECK_THROWS_WITH(set(x, &v, out, region({0}, {0}, {4}, {1}), bad, 1), Catch::Contains("has 2 values, needs 1"));
  const double three[] = {1, 2, 3};
  SetValueAttrs a = region({0}, {0}, {1}, {1});
  a.shape = {2};
  CHECK_THROWS_WITH(set(x, nullptr, out, a, nullptr, 0, nullptr, 0, three, 3), Catch::Contains("holds 2 values"));
}

TEST_CASE("set_value_grad: finite differences through Input and a broadcast ValueTensor", "[set_value][grad]") {
  std::mt19937 rng(7);
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    Tensor x = random(Shape{4, 6}, dt, rng), v = random(Shape{2, 1}, dt, rng);
    SetValueAttrs a = region({0, 1}, {-1, 1}, {0, 6}, {-2, 2});
    CHECK_GRADCHECK_OP("set_value", {&x, &v}, [&](Tensor& out) { set(x, &v, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::set_value_grad(dout, &v, nullptr, 0, nullptr, 0, nullptr, 0, g[0], g[1], a);
                       });
  }
}
