// test/unit/kernels/histogram_test.cc - bincount and histogram: counts, weights' dtypes, ranges and their edges, errors.
#include <catch2/catch.hpp>

#include <limits>

#include "kernels/histogram.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("bincount: counts, minlength, weights, an empty X, errors", "[histogram]") {
  Tensor out;
  k::bincount(i64(Shape{4}, {1, 1, 3, 0}), nullptr, out, k::BincountAttrs{6});
  CHECK(out.dtype() == DType::kInt64);
  CHECK(values(out) == std::vector<double>{1, 2, 0, 1, 0, 0});
  k::bincount(i32(Shape{3}, {2, 0, 2}), nullptr, out, k::BincountAttrs{});
  CHECK(values(out) == std::vector<double>{1, 0, 2});
  const Tensor wf = f32(Shape{3}, {0.5f, 1, 2}), wi = i32(Shape{3}, {2, 3, 4});
  k::bincount(i64(Shape{3}, {1, 1, 3}), &wf, out, k::BincountAttrs{});
  CHECK(out.dtype() == DType::kFP32);
  CHECK(values(out) == std::vector<double>{0, 1.5, 0, 2});
  k::bincount(i64(Shape{3}, {1, 1, 3}), &wi, out, k::BincountAttrs{});
  CHECK(out.dtype() == DType::kFP64);  // integer weights sum in fp64, as in Paddle 2.6.2
  CHECK(values(out) == std::vector<double>{0, 5, 0, 4});
  k::bincount(i64(Shape{0}, {}), nullptr, out, k::BincountAttrs{3});
  CHECK(out.shape() == Shape{0});  // Paddle ignores minlength for an empty X
  CHECK_THROWS_WITH(k::bincount(i64(Shape{2}, {1, -1}), nullptr, out, k::BincountAttrs{}),
                    Catch::Contains("bincount: X value -1 (entry 1) is negative"));
  CHECK_THROWS_WITH(k::bincount(f32(Shape{1}, {1}), nullptr, out, k::BincountAttrs{}), Catch::Contains("int32 or int64"));
}

TEST_CASE("histogram: a range with its upper edge in, X's own range, one value, errors", "[histogram]") {
  Tensor out;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  k::histogram(f32(Shape{9}, {0, 1, 1, 2.5f, 3, -1, 4, 3, nan}), out, k::HistogramAttrs{4, 0, 3});
  CHECK(values(out) == std::vector<double>{1, 2, 0, 3});
  k::histogram(f32(Shape{8}, {0, 1, 1, 2.5f, 3, -1, 4, 3}), out, k::HistogramAttrs{3, 0, 0});
  CHECK(values(out) == std::vector<double>{2, 2, 4});
  k::histogram(f64(Shape{3}, {2, 2, 2}), out, k::HistogramAttrs{3, 0, 0});
  CHECK(values(out) == std::vector<double>{0, 3, 0});
  CHECK_THROWS_WITH(k::histogram(f32(Shape{1}, {1}), out, k::HistogramAttrs{0, 0, 1}), Catch::Contains("bins 0"));
  const float inf = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(k::histogram(f32(Shape{2}, {1, inf}), out, k::HistogramAttrs{2, 0, 0}), Catch::Contains("not finite"));
  CHECK_THROWS_WITH(k::histogram(f32(Shape{1}, {1}), out, k::HistogramAttrs{2, 3, 1}),
                    Catch::Contains("min 3 is greater than max 1"));
}
