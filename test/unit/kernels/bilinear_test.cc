// test/unit/kernels/bilinear_test.cc - bilinear_tensor_product: a hand-computed product, bias, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/bilinear.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("bilinear_tensor_product: x^T W_k y per output, with and without bias; bad shapes fail", "[bilinear]") {
  // B = 1, M = 2, N = 2, K = 2. W_0 = [[1, 2], [3, 4]], W_1 = identity.
  Tensor x = f32(Shape{1, 2}, {1, 2}), y = f32(Shape{1, 2}, {3, 5}), out;
  Tensor w = f32(Shape{2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1});
  k::bilinear_tensor_product(x, y, w, nullptr, out);
  CHECK(out.shape() == Shape{1, 2});
  // x W_0 = [7, 10] -> . y = 21 + 50 = 71; x . y = 3 + 10 = 13.
  CHECK(values(out) == std::vector<double>{71, 13});
  Tensor b = f32(Shape{1, 2}, {0.5f, -1});
  k::bilinear_tensor_product(x, y, w, &b, out);
  CHECK(values(out) == std::vector<double>{71.5, 12});
  Tensor b_flat = f32(Shape{2}, {0, 0});
  CHECK_THROWS_WITH(k::bilinear_tensor_product(x, y, w, &b_flat, out), Catch::Contains("Bias must be [1, 2]"));
  Tensor w_bad = f32(Shape{2, 3, 2}, std::vector<float>(12, 0));
  CHECK_THROWS_WITH(k::bilinear_tensor_product(x, y, w_bad, nullptr, out), Catch::Contains("needs [K, 2, 2]"));
  Tensor y_rows = f32(Shape{2, 2}, {0, 0, 0, 0});
  CHECK_THROWS_WITH(k::bilinear_tensor_product(x, y_rows, w, nullptr, out), Catch::Contains("X has 1 rows but Y has 2"));
  Tensor dout = f32(Shape{1, 3}, {0, 0, 0}), dx;
  CHECK_THROWS_WITH(k::bilinear_tensor_product_grad(x, y, w, dout, &dx, nullptr, nullptr, nullptr),
                    Catch::Contains("Out@GRAD is [1, 3] but Out is [1, 2]"));
}

TEST_CASE("bilinear_tensor_product_grad: finite differences over X, Y, Weight and Bias", "[bilinear][grad]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(11);
    Tensor x = random(Shape{3, 4}, dt, rng), y = random(Shape{3, 2}, dt, rng);
    Tensor w = random(Shape{5, 4, 2}, dt, rng), b = random(Shape{1, 5}, dt, rng);
    INFO("dtype " << static_cast<int>(dt));
    CHECK_GRADCHECK_OP("bilinear_tensor_product", {&x, &y, &w, &b},
                       [&](Tensor& out) { k::bilinear_tensor_product(x, y, w, &b, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         k::bilinear_tensor_product_grad(x, y, w, dout, g[0], g[1], g[2], g[3]);
                       });
  }
}
