// test/unit/kernels/reduce_test.cc - mean, reduce_sum/mean (dims, keep_dim, 0-D, dtypes), sum; gradients.
#include <catch2/catch.hpp>

#include "kernels/reduce.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::ReduceAttrs;

namespace {

ReduceAttrs dims(std::vector<int> d, bool keep = false, bool all = false) {
  ReduceAttrs a;
  a.dim = std::move(d);
  a.keep_dim = keep;
  a.reduce_all = all;
  return a;
}

}  // namespace

TEST_CASE("mean gives a 0-D tensor", "[reduce]") {
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 6});
  Tensor out;
  kernels::mean(x, out);
  CHECK(out.rank() == 0);
  CHECK(out.numel() == 1);
  CHECK(get(out, 0) == 3);
  Tensor g = f32(Shape{}, {2});
  Tensor dx;
  kernels::mean_grad(x, g, &dx);
  CHECK(dx.shape() == Shape{2, 2});
  CHECK(values(dx) == std::vector<double>{0.5, 0.5, 0.5, 0.5});
  kernels::mean(x, x);  // in place
  CHECK(x.rank() == 0);
  CHECK(get(x, 0) == 3);
}

TEST_CASE("reduce_sum over dims", "[reduce]") {
  Tensor x = iota(Shape{2, 3, 4});
  Tensor out;
  kernels::reduce_sum(x, out, dims({1}));
  REQUIRE(out.shape() == Shape{2, 4});
  CHECK(values(out) == std::vector<double>{12, 15, 18, 21, 48, 51, 54, 57});

  kernels::reduce_sum(x, out, dims({1}, true));
  CHECK(out.shape() == Shape{2, 1, 4});

  kernels::reduce_sum(x, out, dims({-1, 0}));  // negative dims count from the end
  REQUIRE(out.shape() == Shape{3});
  CHECK(values(out) == std::vector<double>{6 + 54, 22 + 70, 38 + 86});

  SECTION("reduce_all and all-dims give 0-D; keep_dim keeps rank") {
    kernels::reduce_sum(x, out, dims({0}, false, true));
    CHECK(out.rank() == 0);
    CHECK(get(out, 0) == 276);
    kernels::reduce_sum(x, out, dims({0, 1, 2}));
    CHECK(out.rank() == 0);
    kernels::reduce_sum(x, out, dims({}));
    CHECK(out.rank() == 0);
    kernels::reduce_sum(x, out, dims({0}, true, true));
    CHECK(out.shape() == Shape{1, 1, 1});
    CHECK(get(out, 0) == 276);
  }
  SECTION("dtypes: int32 and bool sum to int64, out_dtype wins") {
    Tensor xi = i32(Shape{2, 2}, {1, 2, 3, 4});
    kernels::reduce_sum(xi, out, dims({0}));
    CHECK(out.dtype() == DType::kInt64);
    CHECK(values(out) == std::vector<double>{4, 6});
    Tensor b = make<bool>(Shape{3}, {true, false, true});
    kernels::reduce_sum(b, out, dims({0}));
    CHECK(out.dtype() == DType::kInt64);
    CHECK(get(out, 0) == 2);
    ReduceAttrs a = dims({1});
    a.out_dtype = static_cast<int>(DType::kFP64);
    kernels::reduce_sum(xi, out, a);
    CHECK(out.dtype() == DType::kFP64);
    CHECK(values(out) == std::vector<double>{3, 7});
    Tensor xl = i64(Shape{2}, {int64_t{1} << 50, 1});
    kernels::reduce_sum(xl, out, dims({0}));
    CHECK(out.data<int64_t>()[0] == (int64_t{1} << 50) + 1);
  }
  SECTION("Out may be X") {
    kernels::reduce_sum(x, x, dims({2}));
    CHECK(x.shape() == Shape{2, 3});
    CHECK(values(x) == std::vector<double>{6, 22, 38, 54, 70, 86});
  }
  SECTION("0-D input") {
    Tensor s = f32(Shape{}, {5});
    kernels::reduce_sum(s, out, dims({0}));
    CHECK(out.rank() == 0);
    CHECK(get(out, 0) == 5);
  }
}

TEST_CASE("reduce_mean", "[reduce]") {
  Tensor x = iota(Shape{2, 3});
  Tensor out;
  kernels::reduce_mean(x, out, dims({1}));
  CHECK(values(out) == std::vector<double>{1, 4});
  kernels::reduce_mean(x, out, dims({0}, true));
  CHECK(out.shape() == Shape{1, 3});
  CHECK(values(out) == std::vector<double>{1.5, 2.5, 3.5});
  Tensor xi = i32(Shape{2, 2}, {1, 2, 3, 5});
  kernels::reduce_mean(xi, out, dims({1}));
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == std::vector<double>{1, 4});  // integer means truncate
  kernels::reduce_mean(x, out, dims({0}, false, true));
  CHECK(out.rank() == 0);
  CHECK(get(out, 0) == 2.5);
}

TEST_CASE("reduce gradients, hand-computed", "[reduce][grad]") {
  Tensor x = iota(Shape{2, 3});
  Tensor g = f32(Shape{2}, {1, 2});
  Tensor dx;
  kernels::reduce_sum_grad(x, g, &dx, dims({1}));
  CHECK(dx.shape() == Shape{2, 3});
  CHECK(values(dx) == std::vector<double>{1, 1, 1, 2, 2, 2});
  kernels::reduce_mean_grad(x, g, &dx, dims({-1}));
  CHECK(get(dx, 0) == Approx(1.0 / 3));
  Tensor g0 = f32(Shape{}, {6});
  kernels::reduce_mean_grad(x, g0, &dx, dims({0}, false, true));
  CHECK(values(dx) == std::vector<double>(6, 1.0));
  Tensor gk = f32(Shape{2, 1}, {1, 2});  // keep_dim form is accepted as well
  kernels::reduce_sum_grad(x, gk, &dx, dims({1}));
  CHECK(values(dx) == std::vector<double>{1, 1, 1, 2, 2, 2});
  kernels::reduce_sum_grad(x, gk, &gk, dims({1}));  // X@GRAD over Out@GRAD's tensor
  CHECK(values(gk) == std::vector<double>{1, 1, 1, 2, 2, 2});
}

TEST_CASE("reduce: invalid inputs throw rt::Error", "[reduce][errors]") {
  Tensor x = iota(Shape{2, 3});
  Tensor out, dx;
  CHECK_THROWS_WITH(kernels::reduce_sum(x, out, dims({2})), Catch::Contains("reduce_sum") && Catch::Contains("dim 2"));
  CHECK_THROWS_AS(kernels::reduce_mean(x, out, dims({-3})), rt::Error);
  Tensor g = f32(Shape{3}, {1, 1, 1});
  CHECK_THROWS_AS(kernels::reduce_sum_grad(x, g, &dx, dims({1})), rt::Error);
  Tensor b = make<bool>(Shape{2}, {true, true});
  CHECK_THROWS_AS(kernels::reduce_mean(b, out, dims({0})), rt::Error);
  CHECK_THROWS_AS(kernels::mean(i32(Shape{2}, {1, 2}), out), rt::Error);
  Tensor g2 = f32(Shape{2}, {1, 1});
  CHECK_THROWS_AS(kernels::mean_grad(x, g2, &dx), rt::Error);
}

TEST_CASE("sum of several tensors", "[reduce][sum]") {
  Tensor a = f32(Shape{3}, {1, 2, 3});
  Tensor b = f32(Shape{3}, {10, 20, 30});
  Tensor c = f32(Shape{3}, {100, 200, 300});
  Tensor out;
  const Tensor* xs[] = {&a, &b, &c};
  kernels::sum(xs, 3, out);
  CHECK(values(out) == std::vector<double>{111, 222, 333});

  SECTION("Out aliases the first or a later input") {
    kernels::sum(xs, 3, a);
    CHECK(values(a) == std::vector<double>{111, 222, 333});
    kernels::sum(xs, 3, c);
    CHECK(values(c) == std::vector<double>{221, 442, 663});
  }
  SECTION("uninitialized inputs are skipped") {
    Tensor none;
    const Tensor* ys[] = {&none, &b, &none, &c};
    kernels::sum(ys, 4, out);
    CHECK(values(out) == std::vector<double>{110, 220, 330});
  }
  SECTION("long inputs cross the block boundary") {
    std::vector<int64_t> v(1000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
    Tensor p = i64(Shape{10, 100}, v), q = i64(Shape{10, 100}, v);
    const Tensor* ys[] = {&p, &q, &p};
    kernels::sum(ys, 3, q);
    for (int64_t i = 0; i < 1000; ++i) REQUIRE(q.data<int64_t>()[i] == 3 * i);
  }
  SECTION("errors") {
    Tensor d = f32(Shape{4}, {1, 2, 3, 4});
    const Tensor* ys[] = {&a, &d};
    CHECK_THROWS_AS(kernels::sum(ys, 2, out), rt::Error);
    Tensor e = f64(Shape{3}, {1, 2, 3});
    const Tensor* zs[] = {&a, &e};
    CHECK_THROWS_AS(kernels::sum(zs, 2, out), rt::Error);
    Tensor none;
    const Tensor* ns[] = {&none};
    CHECK_THROWS_AS(kernels::sum(ns, 1, out), rt::Error);
  }
}

TEST_CASE("reduce grads match finite differences", "[reduce][grad][gradcheck]") {
  const ReduceAttrs cases[] = {dims({1}), dims({0, 2}, true), dims({-1}), dims({0}, false, true),
                               dims({0, 1, 2})};
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(51);
    Tensor x = random(Shape{2, 3, 4}, dt, rng);
    CHECK_GRADCHECK_OP("mean", {&x}, [&](Tensor& out) { kernels::mean(x, out); },
                    [&](const Tensor& d, std::vector<Tensor*>& g) { kernels::mean_grad(x, d, g[0]); });
    for (const ReduceAttrs& a : cases) {
      INFO(rt::dtype_name(dt) << " keep_dim " << a.keep_dim << " reduce_all " << a.reduce_all);
      CHECK_GRADCHECK_OP("reduce_sum", {&x}, [&](Tensor& out) { kernels::reduce_sum(x, out, a); },
                      [&](const Tensor& d, std::vector<Tensor*>& g) { kernels::reduce_sum_grad(x, d, g[0], a); });
      CHECK_GRADCHECK_OP("reduce_mean", {&x}, [&](Tensor& out) { kernels::reduce_mean(x, out, a); },
                      [&](const Tensor& d, std::vector<Tensor*>& g) { kernels::reduce_mean_grad(x, d, g[0], a); });
    }
  }
}
