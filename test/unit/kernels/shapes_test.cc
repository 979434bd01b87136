// test/unit/kernels/shapes_test.cc - the shared shape rules of kernels/shapes/, including run-time (-1) dims.
#include <catch2/catch.hpp>

#include "kernels/shapes/broadcast.h"
#include "kernels/shapes/matmul.h"
#include "kernels/shapes/reduce.h"

using namespace fluidc;
using rt::Shape;
using shapes::kUnknown;

TEST_CASE("a dim pair broadcasts; an unknown dim defers to the known one", "[shapes]") {
  int64_t out = 0;
  CHECK((shapes::broadcast_dim(3, 1, out) && out == 3));
  CHECK((shapes::broadcast_dim(1, 3, out) && out == 3));
  CHECK((shapes::broadcast_dim(kUnknown, 1, out) && out == kUnknown));
  CHECK((shapes::broadcast_dim(1, kUnknown, out) && out == kUnknown));
  CHECK((shapes::broadcast_dim(kUnknown, 5, out) && out == 5));
  CHECK_FALSE(shapes::broadcast_dim(2, 3, out));
}

TEST_CASE("Paddle's axis rule: equal ranks ignore axis, lower rank sits at axis", "[shapes]") {
  Shape xa, ya, out;
  CHECK(shapes::broadcast_paddle(Shape{2, 3}, Shape{2, 3}, 1, xa, ya, out).empty());
  CHECK(out == Shape{2, 3});
  CHECK(shapes::broadcast_paddle(Shape{2, 3, 4}, Shape{3}, 1, xa, ya, out).empty());
  CHECK(ya == Shape{1, 3, 1});
  CHECK_THAT(shapes::broadcast_paddle(Shape{2, 3, 4}, Shape{3}, 3, xa, ya, out), Catch::Contains("axis 3"));
  CHECK_THAT(shapes::broadcast_paddle(Shape{2, 3}, Shape{4}, -1, xa, ya, out), Catch::Contains("cannot be broadcast"));
}

TEST_CASE("reduce: default dim {0}, empty dim or reduce_all fold everything, counts with unknown dims", "[shapes]") {
  shapes::ReducePlan p;
  kernels::ReduceAttrs a;  // dim = {0}
  REQUIRE(shapes::reduce_shape(Shape{3, 4}, a, p).empty());
  CHECK(p.out == Shape{4});
  CHECK(p.count == 3);
  a.dim = {};
  REQUIRE(shapes::reduce_shape(Shape{3, 4}, a, p).empty());
  CHECK(p.out == Shape{});
  a.dim = {-1};
  a.keep_dim = true;
  REQUIRE(shapes::reduce_shape(Shape{kUnknown, 4}, a, p).empty());
  CHECK(p.out == Shape{kUnknown, 1});
  CHECK(p.count == 4);
  a.dim = {0};
  REQUIRE(shapes::reduce_shape(Shape{kUnknown, 4}, a, p).empty());
  CHECK(p.count == kUnknown);
  a.dim = {2};
  CHECK_THAT(shapes::reduce_shape(Shape{3, 4}, a, p), Catch::Contains("dim 2 is out of range"));
}

TEST_CASE("matmul rules with run-time dims", "[shapes]") {
  shapes::MatmulShape s;
  // v1: an unknown batch count cannot be refuted at compile time.
  REQUIRE(shapes::matmul_shape(Shape{kUnknown, 4, 5}, Shape{3, 5, 6}, {}, s).empty());
  CHECK(s.out == Shape{kUnknown, 4, 6});
  CHECK_THAT(shapes::matmul_shape(Shape{2, 4, 5}, Shape{3, 5, 6}, {}, s), Catch::Contains("batch sizes differ"));
  CHECK_THAT(shapes::matmul_shape(Shape{4, 5}, Shape{4, 6}, {}, s), Catch::Contains("5 columns"));
  REQUIRE(shapes::matmul_shape(Shape{3}, Shape{3}, {}, s).empty());
  CHECK(s.out == Shape{1});
  // v2: numpy batch broadcast, 1-D @ 1-D is 0-D.
  REQUIRE(shapes::matmul_v2_shape(Shape{kUnknown, 1, 4, 5}, Shape{3, 5, kUnknown}, {}, s).empty());
  CHECK(s.out == Shape{kUnknown, 3, 4, kUnknown});
  REQUIRE(shapes::matmul_v2_shape(Shape{3}, Shape{3}, {}, s).empty());
  CHECK(s.out == Shape{});
  // mul: an unknown leading dim leaves M unknown, the product still checks K.
  kernels::MulAttrs m;
  REQUIRE(shapes::mul_shape(Shape{kUnknown, 4}, Shape{4, 2}, m, s).empty());
  CHECK(s.out == Shape{kUnknown, 2});
  CHECK(s.M == kUnknown);
  CHECK_FALSE(shapes::mul_shape(Shape{kUnknown, 4}, Shape{5, 2}, m, s).empty());
}

TEST_CASE("reduce_sum's Out dtype: out_dtype, else int64 for bool and int32", "[shapes]") {
  kernels::ReduceAttrs a;
  CHECK(shapes::reduce_sum_dtype(static_cast<int>(rt::DType::kInt32), a) == static_cast<int>(rt::DType::kInt64));
  CHECK(shapes::reduce_sum_dtype(static_cast<int>(rt::DType::kBool), a) == static_cast<int>(rt::DType::kInt64));
  CHECK(shapes::reduce_sum_dtype(static_cast<int>(rt::DType::kFP32), a) == static_cast<int>(rt::DType::kFP32));
  a.out_dtype = static_cast<int>(rt::DType::kFP64);
  CHECK(shapes::reduce_sum_dtype(static_cast<int>(rt::DType::kInt32), a) == static_cast<int>(rt::DType::kFP64));
}
