// test/unit/kernels/repeat_put_test.cc - repeat_interleave and put_along_axis: worked values, every Reduce, errors, finite-difference gradients.
#include <catch2/catch.hpp>

#include "kernels/repeat_put.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("repeat_interleave: scalar and per-slice counts, negative dim, errors", "[repeat_put]") {
  Tensor out;
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  k::repeat_interleave(x, nullptr, out, k::RepeatInterleaveAttrs{2, -1});
  CHECK(out.shape() == Shape{2, 4});
  CHECK(values(out) == std::vector<double>{1, 1, 2, 2, 3, 3, 4, 4});
  Tensor r = i64(Shape{2}, {0, 3});
  k::repeat_interleave(x, &r, out, k::RepeatInterleaveAttrs{1, 0});
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == std::vector<double>{3, 4, 3, 4, 3, 4});
  Tensor bad = i32(Shape{2}, {1, -1});
  CHECK_THROWS_WITH(k::repeat_interleave(x, &bad, out, k::RepeatInterleaveAttrs{1, 0}), Catch::Contains("RepeatsTensor"));
  Tensor short_r = i32(Shape{3}, {1, 1, 1});
  CHECK_THROWS_WITH(k::repeat_interleave(x, &short_r, out, k::RepeatInterleaveAttrs{1, 0}),
                    Catch::Contains("must be 1-D with X's dim 0 size 2"));
}

TEST_CASE("put_along_axis: assign, add, mul, include_self, errors", "[repeat_put]") {
  Tensor out;
  Tensor in = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor idx = i64(Shape{2, 2}, {2, 2, 0, 1});
  Tensor v = f32(Shape{2, 2}, {10, 20, 30, 40});
  k::put_along_axis(in, idx, v, out, k::PutAlongAxisAttrs{1, "assign", true});
  CHECK(values(out) == std::vector<double>{1, 2, 20, 30, 40, 6});
  k::put_along_axis(in, idx, v, out, k::PutAlongAxisAttrs{1, "add", true});
  CHECK(values(out) == std::vector<double>{1, 2, 33, 34, 45, 6});
  k::put_along_axis(in, idx, v, out, k::PutAlongAxisAttrs{1, "add", false});
  CHECK(values(out) == std::vector<double>{1, 2, 30, 30, 40, 6});
  k::put_along_axis(in, idx, v, out, k::PutAlongAxisAttrs{-1, "multiply", true});
  CHECK(values(out) == std::vector<double>{1, 2, 600, 120, 200, 6});
  CHECK_THROWS_WITH(k::put_along_axis(in, idx, v, out, k::PutAlongAxisAttrs{1, "mean", true}),
                    Catch::Contains("Reduce 'mean' is not supported"));
  Tensor far = i64(Shape{2, 2}, {2, 3, 0, 1});
  CHECK_THROWS_WITH(k::put_along_axis(in, far, v, out, k::PutAlongAxisAttrs{1, "add", true}), Catch::Contains("Index"));
}

TEST_CASE("repeat_put gradients match finite differences", "[repeat_put][grad]") {
  std::mt19937 rng(23);
  Tensor x = random(Shape{2, 3, 2}, DType::kFP64, rng);
  Tensor r = i32(Shape{3}, {2, 0, 3});
  for (const Tensor* rp : {static_cast<const Tensor*>(nullptr), static_cast<const Tensor*>(&r)}) {
    const k::RepeatInterleaveAttrs a{2, 1};
    CHECK_GRADCHECK_OP("repeat_interleave", {&x}, [&](Tensor& o) { k::repeat_interleave(x, rp, o, a); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) { k::repeat_interleave_grad(x, rp, d, g[0], a); });
  }
  Tensor in = random(Shape{3, 4}, DType::kFP64, rng, 0.5, 1.5);
  Tensor v = random(Shape{2, 3}, DType::kFP64, rng, 0.5, 1.5);
  Tensor idx = i64(Shape{2, 3}, {1, 1, 3, 0, 1, 1});  // repeated targets in column 1 of row 0... and row 1
  for (const char* red : {"assign", "add", "mul"})
    for (bool self : {true, false}) {
      const k::PutAlongAxisAttrs a{1, red, self};
      INFO("Reduce " << red << " Include_self " << self);
      CHECK_GRADCHECK_OP("put_along_axis", {&in, &v}, [&](Tensor& o) { k::put_along_axis(in, idx, v, o, a); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           Tensor res;
                           k::put_along_axis(in, idx, v, res, a);
                           k::put_along_axis_grad(in, idx, v, res, d, g[0], g[1], a);
                         });
    }
}
