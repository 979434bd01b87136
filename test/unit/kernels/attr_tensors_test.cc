// test/unit/kernels/attr_tensors_test.cc - attribute values given as tensors (Paddle's run-time inputs) win over the attributes.
#include <catch2/catch.hpp>

#include "kernels/activation.h"
#include "kernels/fill.h"
#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;

TEST_CASE("slice: StartsTensor/EndsTensor win over empty or placeholder attributes", "[attr_tensors]") {
  Tensor x = f32(Shape{3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), out;
  kernels::SliceAttrs a;
  a.axes = {1};  // Paddle leaves starts/ends empty when tensors give them
  Tensor starts = i32(Shape{1}, {1}), ends = i64(Shape{1}, {3});
  kernels::slice(x, &starts, &ends, nullptr, 0, nullptr, 0, out, a);
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == std::vector<double>{1, 2, 5, 6, 9, 10});
  // The tensor wins over an attribute that says otherwise.
  a.starts = {0}, a.ends = {1};
  kernels::slice(x, &starts, nullptr, nullptr, 0, nullptr, 0, out, a);
  CHECK(out.shape() == Shape{3, 0});
  // A tensor with the wrong count is named, not reported as attribute lengths.
  Tensor two = i32(Shape{2}, {0, 1});
  CHECK_THROWS_WITH(kernels::slice(x, &two, nullptr, nullptr, 0, nullptr, 0, out, a),
                    Catch::Contains("StartsTensor has 2 values for 1 axes"));
  Tensor f = f32(Shape{1}, {1});
  CHECK_THROWS_WITH(kernels::slice(x, &f, nullptr, nullptr, 0, nullptr, 0, out, a), Catch::Contains("int32 or int64"));
  // Without any bounds the message says which are missing.
  a.starts.clear();
  CHECK_THROWS_WITH(kernels::slice(x, nullptr, nullptr, nullptr, 0, nullptr, 0, out, a),
                    Catch::Contains("starts has 0 values for 1 axes"));
}

TEST_CASE("reshape2: ShapeTensor wins over Shape, which wins over the attribute", "[attr_tensors]") {
  Tensor x = f32(Shape{2, 6}, std::vector<float>(12, 1.0f)), out, xshape;
  kernels::Reshape2Attrs a;
  a.shape = {12};
  Tensor shape = i32(Shape{3}, {0, 3, -1});
  kernels::reshape2(x, &shape, nullptr, 0, out, &xshape, a);
  CHECK(out.shape() == Shape{2, 3, 2});
  CHECK(xshape.shape() == Shape{0, 2, 6});
  Tensor d0 = i64(Shape{1}, {4}), d1 = i32(Shape{1}, {-1});
  const Tensor* list[] = {&d0, &d1};
  kernels::reshape2(x, &shape, list, 2, out, nullptr, a);
  CHECK(out.shape() == Shape{4, 3});
  Tensor bad = i32(Shape{2}, {5, 5});
  CHECK_THROWS_AS(kernels::reshape2(x, &bad, nullptr, 0, out, nullptr, a), rt::Error);
}

TEST_CASE("fill_constant: ShapeTensor, ShapeTensorList and ValueTensor win over the attributes", "[attr_tensors]") {
  kernels::FillConstantAttrs a;
  a.shape = {1};
  a.value = 7.0f;
  Tensor out;
  Tensor shape = i64(Shape{2}, {2, 3});
  kernels::fill_constant(nullptr, &shape, nullptr, 0, out, a);
  CHECK(out.shape() == Shape{2, 3});
  CHECK(values(out) == std::vector<double>(6, 7.0));
  Tensor d0 = i32(Shape{1}, {4});
  const Tensor* list[] = {&d0};
  kernels::fill_constant(nullptr, nullptr, list, 1, out, a);
  CHECK(out.shape() == Shape{4});
  kernels::fill_constant(nullptr, &shape, list, 1, out, a);  // ShapeTensor first
  CHECK(out.shape() == Shape{2, 3});
  Tensor v = f64(Shape{1}, {2.5});
  a.str_value = "9";
  kernels::fill_constant(&v, nullptr, nullptr, 0, out, a);
  CHECK(out.shape() == Shape{1});
  CHECK(values(out) == std::vector<double>{2.5});
  // The value may be the output itself (a loop accumulator refilled).
  kernels::fill_constant(&out, &shape, nullptr, 0, out, a);
  CHECK(values(out) == std::vector<double>(6, 2.5));
  // An int64 value keeps every digit (2^53 + 1 is not a double).
  Tensor big = i64(Shape{1}, {9007199254740993LL});
  a.dtype = static_cast<int>(DType::kInt64);
  kernels::fill_constant(&big, nullptr, nullptr, 0, out, a);
  CHECK(out.data<int64_t>()[0] == 9007199254740993LL);
  a.dtype = static_cast<int>(DType::kFP32);
  Tensor neg = i32(Shape{2}, {2, -1});
  CHECK_THROWS_AS(kernels::fill_constant(nullptr, &neg, nullptr, 0, out, a), rt::Error);
  Tensor two = f32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(kernels::fill_constant(&two, nullptr, nullptr, 0, out, a), Catch::Contains("ValueTensor"));
}

TEST_CASE("scale: ScaleTensor wins over the scale attribute", "[attr_tensors]") {
  Tensor x = f32(Shape{3}, {1, 2, 3}), out;
  kernels::ScaleAttrs a;
  a.scale = 10.0f;
  a.bias = 1.0f;
  Tensor s = f32(Shape{1}, {2.0f});
  kernels::scale(x, &s, out, a);
  CHECK(values(out) == std::vector<double>{3, 5, 7});
  Tensor si = i64(Shape{1}, {-1});
  kernels::scale(x, &si, x, a);  // in place
  CHECK(values(x) == std::vector<double>{0, -1, -2});
}

TEST_CASE("uniform_random and gaussian_random: shape tensors win over the attribute", "[attr_tensors]") {
  Tensor out;
  Tensor shape = i32(Shape{2}, {3, 2});
  kernels::UniformRandomAttrs u;
  u.shape = {1};
  u.seed = 7;
  kernels::uniform_random(&shape, nullptr, 0, out, u);
  CHECK(out.shape() == Shape{3, 2});
  Tensor d0 = i64(Shape{1}, {5});
  const Tensor* list[] = {&d0};
  kernels::GaussianRandomAttrs g;
  g.seed = 7;
  kernels::gaussian_random(nullptr, list, 1, out, g);
  CHECK(out.shape() == Shape{5});
}
