// test/unit/kernels/control_test.cc - comparisons, isclose/allclose, logic, conditions, increment, select and tensor arrays.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/compare.h"
#include "kernels/control.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;

TEST_CASE("comparisons broadcast and yield bool", "[control]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), y = f32(Shape{3}, {2, 2, 7}), out;
  kernels::less_than(x, y, out, {});
  CHECK(out.dtype() == DType::kBool);
  CHECK(out.shape() == Shape{2, 3});
  const bool want[] = {true, false, true, false, false, true};
  for (int i = 0; i < 6; ++i) CHECK(out.data<bool>()[i] == want[i]);
  kernels::greater_equal(x, y, out, {});
  CHECK(out.data<bool>()[1] == true);
  Tensor n = i64(Shape{1}, {5}), i = i64(Shape{1}, {5});
  kernels::equal(n, i, out, {});
  CHECK(out.data<bool>()[0]);
  kernels::not_equal(n, i, out, {});
  CHECK_FALSE(out.data<bool>()[0]);
  CHECK_THROWS_AS(kernels::less_than(x, n, out, {}), rt::Error);  // dtypes differ
}

TEST_CASE("logical ops, also in place", "[control]") {
  Tensor a, b, out;
  a.resize(Shape{3}, DType::kBool);
  b.resize(Shape{3}, DType::kBool);
  a.data<bool>()[0] = true, a.data<bool>()[1] = false, a.data<bool>()[2] = true;
  b.data<bool>()[0] = true, b.data<bool>()[1] = true, b.data<bool>()[2] = false;
  kernels::logical_and(a, b, out);
  CHECK((out.data<bool>()[0] && !out.data<bool>()[1] && !out.data<bool>()[2]));
  kernels::logical_xor(a, b, out);
  CHECK((!out.data<bool>()[0] && out.data<bool>()[1] && out.data<bool>()[2]));
  kernels::logical_not(a, a);
  CHECK((!a.data<bool>()[0] && a.data<bool>()[1]));
}

TEST_CASE("conditions: one element, bool or number", "[control]") {
  Tensor c;
  c.resize(Shape{}, DType::kBool);
  c.data<bool>()[0] = true;
  CHECK(kernels::condition_holds(c, "while"));
  Tensor z = f32(Shape{1}, {0.0f});
  CHECK_FALSE(kernels::condition_holds(z, "while"));
  Tensor two = f32(Shape{2}, {1, 1});
  CHECK_THROWS_AS(kernels::condition_holds(two, "while"), rt::Error);
  Tensor empty = f32(Shape{0}, {});
  const Tensor* conds[] = {&two, &empty};
  CHECK_FALSE(kernels::all_nonempty(conds, 2));
  CHECK(kernels::all_nonempty(conds, 1));
}

TEST_CASE("increment and select", "[control]") {
  Tensor i = i64(Shape{1}, {3}), out;
  kernels::IncrementAttrs a;
  a.step = 2.0f;
  kernels::increment(i, i, a);
  CHECK(i.data<int64_t>()[0] == 5);
  Tensor x0 = f32(Shape{1}, {10}), x1 = f32(Shape{1}, {20}), mask = i32(Shape{1}, {1});
  const Tensor* xs[] = {&x0, &x1};
  kernels::select_input(xs, 2, mask, out);
  CHECK(out.data<float>()[0] == 20.0f);
  Tensor o0, o1;
  Tensor* outs[] = {&o0, &o1};
  kernels::select_output(x0, mask, outs, 2);
  CHECK(o1.data<float>()[0] == 10.0f);
  CHECK_FALSE(o0.initialized());
  Tensor bad = i32(Shape{1}, {2});
  CHECK_THROWS_AS(kernels::select_input(xs, 2, bad, out), rt::Error);
}

TEST_CASE("tensor arrays grow on write and check reads", "[control]") {
  rt::TensorArray arr;
  Tensor x = f32(Shape{2}, {1, 2}), idx = i64(Shape{1}, {2}), out, len;
  kernels::write_to_array(x, idx, arr);
  kernels::array_length(arr, len);
  CHECK(len.data<int64_t>()[0] == 3);
  kernels::read_from_array(arr, idx, out);
  CHECK(out.data<float>()[1] == 2.0f);
  Tensor zero = i64(Shape{1}, {0}), far = i64(Shape{1}, {7});
  CHECK_THROWS_AS(kernels::read_from_array(arr, zero, out), rt::Error);  // never written
  CHECK_THROWS_AS(kernels::read_from_array(arr, far, out), rt::Error);
}

TEST_CASE("tensor_array_to_tensor: concatenated and stacked, OutIndex, errors", "[control][array]") {
  fluidc::rt::TensorArray arr(2);
  arr[0].resize(fluidc::rt::Shape{2, 1}, fluidc::rt::DType::kFP32);
  arr[1].resize(fluidc::rt::Shape{2, 2}, fluidc::rt::DType::kFP32);
  const float a0[] = {1, 2}, a1[] = {3, 4, 5, 6};  // rows: [1 | 3 4], [2 | 5 6]
  std::copy(a0, a0 + 2, arr[0].data<float>());
  std::copy(a1, a1 + 4, arr[1].data<float>());
  fluidc::kernels::TensorArrayToTensorAttrs cat;
  cat.axis = -1;
  fluidc::rt::Tensor out, index;
  fluidc::kernels::tensor_array_to_tensor(arr, out, index, cat);
  REQUIRE(out.shape() == fluidc::rt::Shape{2, 3});
  const float want[] = {1, 3, 4, 2, 5, 6};
  for (int i = 0; i < 6; ++i) CHECK(out.data<float>()[i] == want[i]);
  REQUIRE(index.numel() == 2);
  CHECK(index.data<int32_t>()[0] == 1);
  CHECK(index.data<int32_t>()[1] == 2);
  // Stacking needs equal shapes; on a new middle axis: [2, 2, 1].
  fluidc::kernels::TensorArrayToTensorAttrs stack;
  stack.axis = 1;
  stack.use_stack = true;
  CHECK_THROWS_WITH(fluidc::kernels::tensor_array_to_tensor(arr, out, index, stack),
                    Catch::Contains("element 1 is float32 [2, 2] but element 0 is float32 [2, 1]"));
  arr[1].resize(fluidc::rt::Shape{2, 1});
  fluidc::kernels::tensor_array_to_tensor(arr, out, index, stack);
  REQUIRE(out.shape() == fluidc::rt::Shape{2, 2, 1});
  const float stacked[] = {1, 3, 2, 4};
  for (int i = 0; i < 4; ++i) CHECK(out.data<float>()[i] == stacked[i]);
  CHECK(index.data<int32_t>()[0] == 1);
  CHECK(index.data<int32_t>()[1] == 1);
  stack.axis = 3;
  CHECK_THROWS_WITH(fluidc::kernels::tensor_array_to_tensor(arr, out, index, stack), Catch::Contains("out of range"));
  fluidc::rt::TensorArray empty;
  CHECK_THROWS_WITH(fluidc::kernels::tensor_array_to_tensor(empty, out, index, cat), Catch::Contains("empty"));
}

TEST_CASE("isclose and allclose: Paddle's tolerance rule, NaN, tolerance tensors, refusals", "[control]") {
  const double nan = std::nan("");
  Tensor a = f64(Shape{6}, {1, 1, nan, nan, 100, 5}), b = f64(Shape{6}, {1, 1.001, nan, 0, 100.5, 4});
  Tensor out;
  kernels::isclose(a, b, nullptr, nullptr, out, {});
  REQUIRE(out.dtype() == DType::kBool);
  CHECK(values(out) == std::vector<double>{1, 0, 0, 0, 0, 0});
  // |1 - 1.001| = 0.001 <= 0 + 0.01 * 1.001; |100 - 100.5| = 0.5 <= 0.01 * 100.5; |5 - 4| = 1 > 0.04.
  kernels::IscloseAttrs loose{"0.01", "0", true};
  kernels::isclose(a, b, nullptr, nullptr, out, loose);
  CHECK(values(out) == std::vector<double>{1, 1, 1, 0, 1, 0});
  kernels::allclose(a, b, nullptr, nullptr, out, loose);
  CHECK(out.shape() == Shape{});
  CHECK(get(out, 0) == 0);
  // An Atol tensor of 1 replaces the attribute: now 5 and 4 are close too, but NaN and 0 are not.
  Tensor one = f64(Shape{1}, {1});
  kernels::isclose(a, b, nullptr, &one, out, loose);
  CHECK(values(out) == std::vector<double>{1, 1, 1, 0, 1, 1});
  Tensor c = f32(Shape{2}, {1, 2}), d = f32(Shape{2}, {1, 2});
  kernels::allclose(c, d, nullptr, nullptr, out, {});
  CHECK(get(out, 0) == 1);
  // Tolerance strings must be whole finite numbers; shapes and dtypes must agree.
  CHECK_THROWS_WITH(kernels::isclose(c, d, nullptr, nullptr, out, {"1e-5x", "0", false}),
                    Catch::Contains("attribute rtol (5 characters) is not a finite number"));
  CHECK_THROWS_WITH(kernels::isclose(c, d, nullptr, nullptr, out, {"1e-5", "inf", false}),
                    Catch::Contains("attribute atol"));
  CHECK_THROWS_WITH(kernels::isclose(c, f32(Shape{1, 2}, {1, 2}), nullptr, nullptr, out, {}),
                    Catch::Contains("must have one shape"));
  CHECK_THROWS_WITH(kernels::allclose(c, f64(Shape{2}, {1, 2}), nullptr, nullptr, out, {}),
                    Catch::Contains("Other is"));
  CHECK_THROWS_WITH(kernels::isclose(i32(Shape{1}, {1}), i32(Shape{1}, {1}), nullptr, nullptr, out, {}),
                    Catch::Contains("unsupported dtype"));
}
