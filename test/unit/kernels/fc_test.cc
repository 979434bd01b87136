// test/unit/kernels/fc_test.cc - fc's product, bias and relu against hand-computed values, and what it refuses.
#include <catch2/catch.hpp>

#include "kernels/fc.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("fc flattens Input at in_num_col_dims, adds the bias row and applies relu", "[fc]") {
  // Input [1, 2, 2] at in_num_col_dims 2: rows (1, 2) and (-3, 1) times W [2, 2], bias (0.5, -1).
  Tensor x = f32(Shape{1, 2, 2}, {1, 2, -3, 1});
  Tensor w = f32(Shape{2, 2}, {1, -1, 2, 0.5f});
  Tensor b = f32(Shape{2}, {0.5f, -1});
  Tensor out;
  k::FcAttrs a;
  a.in_num_col_dims = 2;
  k::fc(x, w, &b, out, a);
  REQUIRE(out.shape() == Shape{1, 2, 2});
  CHECK(out.data<float>()[0] == Approx(5.5f));   // 1 + 4 + 0.5
  CHECK(out.data<float>()[1] == Approx(-1.0f));  // -1 + 1 - 1
  CHECK(out.data<float>()[2] == Approx(-0.5f));  // -3 + 2 + 0.5
  CHECK(out.data<float>()[3] == Approx(2.5f));   // 3 + 0.5 - 1
  a.activation_type = "relu";
  k::fc(x, w, &b, out, a);
  CHECK(out.data<float>()[1] == 0.0f);
  CHECK(out.data<float>()[2] == 0.0f);
  CHECK(out.data<float>()[3] == Approx(2.5f));
}

TEST_CASE("fc names what it does not take", "[fc]") {
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  Tensor w = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor out;
  k::FcAttrs a;
  a.activation_type = "gelu";
  CHECK_THROWS_WITH(k::fc(x, w, nullptr, out, a), Catch::Contains("activation_type 'gelu' is not supported"));
  a = {};
  a.padding_weights = true;
  CHECK_THROWS_WITH(k::fc(x, w, nullptr, out, a), Catch::Contains("padding_weights"));
  Tensor bad_bias = f32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(k::fc(x, w, &bad_bias, out, {}), Catch::Contains("Bias must hold N = 3 values"));
  a = {};
  a.in_num_col_dims = 2;
  CHECK_THROWS_WITH(k::fc(x, w, nullptr, out, a), Catch::Contains("in_num_col_dims 2 must be in [1, 2)"));
}
