// test/unit/kernels/multiplex_test.cc - multiplex: rows picked by Ids, refusals, and the gradient's rows.
#include <catch2/catch.hpp>

#include "kernels/multiplex.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("multiplex: row i from the input Ids[i] names, any dtype", "[multiplex]") {
  Tensor a = f32(Shape{3, 2}, {0, 1, 2, 3, 4, 5}), b = f32(Shape{3, 2}, {10, 11, 12, 13, 14, 15});
  const Tensor* xs[] = {&a, &b};
  Tensor out;
  k::multiplex(i32(Shape{3, 1}, {1, 0, 1}), xs, 2, out);
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == std::vector<double>{10, 11, 2, 3, 14, 15});
  Tensor ia = i64(Shape{2}, {1, 2}), ib = i64(Shape{2}, {7, 8});
  const Tensor* is[] = {&ia, &ib};
  k::multiplex(i64(Shape{2, 1}, {0, 1}), is, 2, out);
  CHECK(values(out) == std::vector<double>{1, 8});
  // Out over an input: rows are read from a copy.
  k::multiplex(i32(Shape{3, 1}, {1, 1, 0}), xs, 2, a);
  CHECK(values(a) == std::vector<double>{10, 11, 12, 13, 4, 5});
}

TEST_CASE("multiplex: ids out of range, mismatched inputs", "[multiplex][errors]") {
  Tensor a = f32(Shape{2, 2}, {0, 1, 2, 3}), b = f32(Shape{2, 2}, {4, 5, 6, 7}), out;
  const Tensor* xs[] = {&a, &b};
  CHECK_THROWS_WITH(k::multiplex(i32(Shape{2, 1}, {0, 2}), xs, 2, out), Catch::Contains("Ids value 2"));
  CHECK_THROWS_WITH(k::multiplex(i32(Shape{2, 1}, {-1, 0}), xs, 2, out), Catch::Contains("Ids value -1"));
  CHECK_THROWS_WITH(k::multiplex(i32(Shape{3, 1}, {0, 0, 0}), xs, 2, out), Catch::Contains("one id per row"));
  CHECK_THROWS_WITH(k::multiplex(f32(Shape{2, 1}, {0, 1}), xs, 2, out), Catch::Contains("int32 or int64"));
  Tensor c = f32(Shape{2, 3}, {0, 0, 0, 0, 0, 0});
  const Tensor* mixed[] = {&a, &c};
  CHECK_THROWS_WITH(k::multiplex(i32(Shape{2, 1}, {0, 1}), mixed, 2, out), Catch::Contains("shape"));
  CHECK_THROWS_WITH(k::multiplex(i32(Shape{2, 1}, {0, 1}), xs, 0, out), Catch::Contains("at least one X"));
}

TEST_CASE("multiplex_grad: each X@GRAD takes the rows its input gave, zeros elsewhere", "[multiplex][grad]") {
  Tensor dout = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), ga, gb;
  Tensor* grads[] = {&ga, &gb};
  k::multiplex_grad(i64(Shape{3, 1}, {1, 0, 1}), nullptr, 0, dout, grads, 2);
  CHECK(values(ga) == std::vector<double>{0, 0, 3, 4, 0, 0});
  CHECK(values(gb) == std::vector<double>{1, 2, 0, 0, 5, 6});
  Tensor* only_b[] = {nullptr, &gb};
  k::multiplex_grad(i64(Shape{3, 1}, {0, 0, 1}), nullptr, 0, dout, only_b, 2);
  CHECK(values(gb) == std::vector<double>{0, 0, 0, 0, 5, 6});

  std::mt19937 rng(4);
  Tensor x0 = random(Shape{4, 3}, DType::kFP64, rng), x1 = random(Shape{4, 3}, DType::kFP64, rng);
  Tensor x2 = random(Shape{4, 3}, DType::kFP64, rng);
  const Tensor ids = i32(Shape{4, 1}, {2, 0, 2, 1});
  const Tensor* xs[] = {&x0, &x1, &x2};
  CHECK_GRADCHECK_OP("multiplex", {&x0, &x1, &x2}, [&](Tensor& out) { k::multiplex(ids, xs, 3, out); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) { k::multiplex_grad(ids, xs, 3, d, g.data(), 3); });
}
