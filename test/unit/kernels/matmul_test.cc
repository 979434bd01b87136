// test/unit/kernels/matmul_test.cc - mul, matmul, matmul_v2, addmm: shape rules, values, aliasing, errors, gradients.
#include <catch2/catch.hpp>

#include <type_traits>

#include "kernels/matmul.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

/// Reference C[M,N] = A[M,K] @ B[K,N] in double (row-major, no transposes).
std::vector<double> ref_mm(const std::vector<double>& a, const std::vector<double>& b, int M, int N, int K) {
  std::vector<double> c(static_cast<size_t>(M * N), 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int p = 0; p < K; ++p) c[i * N + j] += a[i * K + p] * b[p * N + j];
  return c;
}

/// Transpose of a row-major [R, C] matrix.
std::vector<double> transpose(const std::vector<double>& a, int R, int C) {
  std::vector<double> t(a.size());
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) t[j * R + i] = a[i * C + j];
  return t;
}

void check_close(const Tensor& t, const std::vector<double>& want, double eps = 1e-5) {
  REQUIRE(t.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) CHECK(get(t, static_cast<int64_t>(i)) == Approx(want[i]).epsilon(eps));
}

kernels::MatmulAttrs v1(bool tx, bool ty, float alpha = 1.0f) {
  kernels::MatmulAttrs a;
  a.transpose_X = tx;
  a.transpose_Y = ty;
  a.alpha = alpha;
  return a;
}

kernels::MatmulV2Attrs v2(bool tx, bool ty) {
  kernels::MatmulV2Attrs a;
  a.trans_x = tx;
  a.trans_y = ty;
  return a;
}

}  // namespace

TEST_CASE("mul flattens at num_col_dims", "[matmul][mul]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = f32(Shape{3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor out;
  kernels::mul(x, y, out, {});
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{4, 5, 10, 11});

  SECTION("x_num_col_dims = 2 keeps the leading dims") {
    std::mt19937 rng(1);
    Tensor a = random(Shape{2, 3, 4}, DType::kFP32, rng);
    Tensor b = random(Shape{4, 5}, DType::kFP32, rng);
    kernels::MulAttrs at;
    at.x_num_col_dims = 2;
    kernels::mul(a, b, out, at);
    CHECK(out.shape() == Shape{2, 3, 5});
    check_close(out, ref_mm(values(a), values(b), 6, 5, 4));
  }
  SECTION("y_num_col_dims = 2 flattens Y's leading dims into rows") {
    std::mt19937 rng(2);
    Tensor a = random(Shape{3, 6}, DType::kFP32, rng);
    Tensor b = random(Shape{2, 3, 4}, DType::kFP32, rng);
    kernels::MulAttrs at;
    at.y_num_col_dims = 2;
    kernels::mul(a, b, out, at);
    CHECK(out.shape() == Shape{3, 4});
    check_close(out, ref_mm(values(a), values(b), 3, 4, 6));
  }
  SECTION("mismatch message names both shapes") {
    Tensor bad = f32(Shape{4, 5}, std::vector<float>(20, 1.0f));
    CHECK_THROWS_WITH(kernels::mul(x, bad, out, {}),
                      "mul: X has 3 columns after flattening but Y has 4 rows (X [2, 3], Y [4, 5])");
  }
  SECTION("num_col_dims out of range") {
    kernels::MulAttrs at;
    at.x_num_col_dims = 2;
    CHECK_THROWS_AS(kernels::mul(x, y, out, at), rt::Error);
  }
}

TEST_CASE("fp32 GEMM agrees with a double reference on odd sizes", "[matmul]") {
  std::mt19937 rng(3);
  Tensor a = random(Shape{37, 53}, DType::kFP32, rng);
  Tensor b = random(Shape{53, 29}, DType::kFP32, rng);
  Tensor out;
  kernels::matmul_v2(a, b, out, {});
  check_close(out, ref_mm(values(a), values(b), 37, 29, 53), 1e-4);
  // The fp64 loop gives the same numbers.
  Tensor a64 = f64(a.shape(), values(a)), b64 = f64(b.shape(), values(b)), o64;
  kernels::matmul_v2(a64, b64, o64, {});
  CHECK(o64.dtype() == DType::kFP64);
  check_close(o64, ref_mm(values(a), values(b), 37, 29, 53), 1e-12);
}

TEST_CASE("matmul v1: transposes, alpha, vectors, batches", "[matmul][v1]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor out;
  kernels::matmul(x, y, out, v1(false, false, 0.5f));
  CHECK(out.shape() == Shape{2, 2});
  check_close(out, {11, 14, 24.5, 32});

  kernels::matmul(x, x, out, v1(false, true));  // X @ X^T
  CHECK(out.shape() == Shape{2, 2});
  check_close(out, {14, 32, 32, 77});
  kernels::matmul(x, x, out, v1(true, false));  // X^T @ X
  CHECK(out.shape() == Shape{3, 3});
  check_close(out, {17, 22, 27, 22, 29, 36, 27, 36, 45});
  kernels::matmul(y, x, out, v1(true, true));  // Y^T @ X^T = (X Y)^T
  check_close(out, {22, 49, 28, 64});

  SECTION("1-D operands; two vectors give shape [1]") {
    Tensor v = f32(Shape{3}, {1, 1, 2});
    kernels::matmul(v, y, out, {});
    CHECK(out.shape() == Shape{2});
    check_close(out, {14, 18});
    kernels::matmul(x, v, out, {});
    CHECK(out.shape() == Shape{2});
    check_close(out, {9, 21});
    kernels::matmul(v, v, out, {});
    CHECK(out.shape() == Shape{1});
    check_close(out, {6});
  }
  SECTION("batched X with a shared Y") {
    Tensor xb = f32(Shape{2, 1, 3}, {1, 2, 3, 4, 5, 6});
    kernels::matmul(xb, y, out, {});
    CHECK(out.shape() == Shape{2, 1, 2});
    check_close(out, {22, 28, 49, 64});
  }
  SECTION("batch sizes must agree") {
    Tensor xb = f32(Shape{2, 2, 3}, std::vector<float>(12, 1.0f));
    Tensor yb = f32(Shape{3, 3, 2}, std::vector<float>(18, 1.0f));
    CHECK_THROWS_AS(kernels::matmul(xb, yb, out, {}), rt::Error);
  }
  SECTION("inner dims must agree") {
    CHECK_THROWS_WITH(kernels::matmul(x, x, out, {}), Catch::Contains("matmul") && Catch::Contains("[2, 3]"));
  }
}

TEST_CASE("matmul_v2: numpy semantics", "[matmul][v2]") {
  Tensor out;
  SECTION("1-D @ 1-D is a 0-D dot product") {
    Tensor a = f32(Shape{3}, {1, 2, 3});
    kernels::matmul_v2(a, a, out, {});
    CHECK(out.rank() == 0);
    CHECK(get(out, 0) == 14);
  }
  SECTION("1-D X against batched Y drops the M dim") {
    Tensor a = f32(Shape{2}, {1, -1});
    Tensor b = f32(Shape{3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    kernels::matmul_v2(a, b, out, {});
    CHECK(out.shape() == Shape{3, 2});
    check_close(out, {-2, -2, -2, -2, -2, -2});
    kernels::matmul_v2(a, b, out, v2(true, true));  // trans_x ignored for a vector
    CHECK(out.shape() == Shape{3, 2});
    check_close(out, {-1, -1, -1, -1, -1, -1});
  }
  SECTION("batched X with 1-D Y drops the N dim") {
    Tensor a = f32(Shape{2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    Tensor b = f32(Shape{3}, {1, 0, 1});
    kernels::matmul_v2(a, b, out, {});
    CHECK(out.shape() == Shape{2, 2});
    check_close(out, {4, 10, 16, 22});
  }
  SECTION("batch dims broadcast both ways") {
    std::mt19937 rng(4);
    Tensor a = random(Shape{2, 1, 2, 3}, DType::kFP32, rng);
    Tensor b = random(Shape{3, 3, 4}, DType::kFP32, rng);
    kernels::matmul_v2(a, b, out, {});
    REQUIRE(out.shape() == Shape{2, 3, 2, 4});
    auto av = values(a), bv = values(b);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) {
        std::vector<double> am(av.begin() + i * 6, av.begin() + i * 6 + 6);
        std::vector<double> bm(bv.begin() + j * 12, bv.begin() + j * 12 + 12);
        auto want = ref_mm(am, bm, 2, 4, 3);
        for (int k = 0; k < 8; ++k) CHECK(get(out, (i * 3 + j) * 8 + k) == Approx(want[k]).epsilon(1e-5));
      }
  }
  SECTION("transposes") {
    std::mt19937 rng(5);
    Tensor a = random(Shape{4, 3}, DType::kFP32, rng);  // used as A^T: [3, 4]
    Tensor b = random(Shape{5, 4}, DType::kFP32, rng);  // used as B^T: [4, 5]
    kernels::matmul_v2(a, b, out, v2(true, true));
    CHECK(out.shape() == Shape{3, 5});
    check_close(out, ref_mm(transpose(values(a), 4, 3), transpose(values(b), 5, 4), 3, 5, 4));
  }
  SECTION("errors") {
    Tensor a = f32(Shape{2, 3}, std::vector<float>(6, 1.0f));
    Tensor b = f32(Shape{2, 3}, std::vector<float>(6, 1.0f));
    CHECK_THROWS_AS(kernels::matmul_v2(a, b, out, {}), rt::Error);
    Tensor c = f32(Shape{2, 3, 3}, std::vector<float>(18, 1.0f));
    Tensor d = f32(Shape{4, 3, 3}, std::vector<float>(36, 1.0f));
    CHECK_THROWS_WITH(kernels::matmul_v2(c, d, out, {}), Catch::Contains("cannot be broadcast"));
    Tensor s = f32(Shape{}, {1});
    CHECK_THROWS_AS(kernels::matmul_v2(s, a, out, {}), rt::Error);
    Tensor i = i32(Shape{2, 2}, {1, 2, 3, 4});
    CHECK_THROWS_WITH(kernels::matmul_v2(i, i, out, {}), Catch::Contains("int32"));
  }
}

TEST_CASE("matmul outputs may alias inputs", "[matmul][alias]") {
  Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  Tensor y = f32(Shape{2, 2}, {0, 1, 1, 0});
  kernels::matmul_v2(x, y, x, {});
  check_close(x, {2, 1, 4, 3});
  kernels::matmul_v2(x, x, x, {});
  check_close(x, {8, 5, 20, 13});
  kernels::mul(y, x, y, {});
  check_close(y, {20, 13, 8, 5});

  SECTION("gradients written over Out@GRAD") {
    Tensor a = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = f32(Shape{3, 2}, {1, 0, 0, 1, 1, 1});
    Tensor g = f32(Shape{2, 2}, {1, 0, 0, 1});
    Tensor dx_ref, dy_ref;
    kernels::matmul_v2_grad(a, b, g, &dx_ref, &dy_ref, {});
    Tensor dy;
    kernels::matmul_v2_grad(a, b, g, &g, &dy, {});
    CHECK(values(g) == values(dx_ref));
    CHECK(values(dy) == values(dy_ref));
  }
}

namespace {

template <class Attrs>
using MmFwd = void (*)(const Tensor&, const Tensor&, Tensor&, const Attrs&);
template <class Attrs>
using MmBwd = void (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor*, const Attrs&);

template <class Attrs>
void check_mm_grad(MmFwd<Attrs> fwd, MmBwd<Attrs> bwd, const Shape& xs, const Shape& ys, const Attrs& a) {
  const char* op = std::is_same_v<Attrs, kernels::MulAttrs>      ? "mul"
                   : std::is_same_v<Attrs, kernels::MatmulAttrs> ? "matmul"
                                                                   : "matmul_v2";
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO("X " << xs.str() << " Y " << ys.str() << " " << rt::dtype_name(dt));
    std::mt19937 rng(21);
    Tensor x = random(xs, dt, rng);
    Tensor y = random(ys, dt, rng);
    CHECK_GRADCHECK_OP(op, {&x, &y}, [&](Tensor& out) { fwd(x, y, out, a); },
                    [&](const Tensor& dout, std::vector<Tensor*>& g) { bwd(x, y, dout, g[0], g[1], a); });
  }
}

}  // namespace

TEST_CASE("mul_grad matches finite differences", "[matmul][grad][gradcheck]") {
  check_mm_grad<kernels::MulAttrs>(kernels::mul, kernels::mul_grad, Shape{3, 4}, Shape{4, 2}, {});
  kernels::MulAttrs a;
  a.x_num_col_dims = 2;
  check_mm_grad<kernels::MulAttrs>(kernels::mul, kernels::mul_grad, Shape{2, 3, 4}, Shape{4, 2}, a);
  kernels::MulAttrs b;
  b.y_num_col_dims = 2;
  check_mm_grad<kernels::MulAttrs>(kernels::mul, kernels::mul_grad, Shape{3, 4}, Shape{2, 2, 3}, b);
}

TEST_CASE("matmul_grad matches finite differences", "[matmul][v1][grad][gradcheck]") {
  using A = kernels::MatmulAttrs;
  for (bool tx : {false, true})
    for (bool ty : {false, true}) {
      INFO("transpose_X " << tx << " transpose_Y " << ty);
      const Shape xs = tx ? Shape{4, 3} : Shape{3, 4};
      const Shape ys = ty ? Shape{2, 4} : Shape{4, 2};
      check_mm_grad<A>(kernels::matmul, kernels::matmul_grad, xs, ys, v1(tx, ty, 0.5f));
      // Batched X, shared Y: Y@GRAD sums over the batch.
      const Shape xb = tx ? Shape{2, 4, 3} : Shape{2, 3, 4};
      check_mm_grad<A>(kernels::matmul, kernels::matmul_grad, xb, ys, v1(tx, ty, 2.0f));
      // Shared X, batched Y.
      const Shape yb = ty ? Shape{3, 2, 4} : Shape{3, 4, 2};
      check_mm_grad<A>(kernels::matmul, kernels::matmul_grad, xs, yb, v1(tx, ty));
    }
  check_mm_grad<A>(kernels::matmul, kernels::matmul_grad, Shape{4}, Shape{4, 2}, v1(false, false));
  check_mm_grad<A>(kernels::matmul, kernels::matmul_grad, Shape{2, 3, 4}, Shape{4}, v1(false, false));
  check_mm_grad<A>(kernels::matmul, kernels::matmul_grad, Shape{4}, Shape{4}, v1(false, false, 3.0f));
}

TEST_CASE("matmul_v2_grad matches finite differences", "[matmul][v2][grad][gradcheck]") {
  using A = kernels::MatmulV2Attrs;
  for (bool tx : {false, true})
    for (bool ty : {false, true}) {
      INFO("trans_x " << tx << " trans_y " << ty);
      const Shape xs = tx ? Shape{4, 3} : Shape{3, 4};
      const Shape ys = ty ? Shape{2, 4} : Shape{4, 2};
      check_mm_grad<A>(kernels::matmul_v2, kernels::matmul_v2_grad, xs, ys, v2(tx, ty));
      // Batch broadcast in both directions: X [2,1,..], Y [3,..] -> Out [2,3,..].
      const Shape xb = tx ? Shape{2, 1, 4, 3} : Shape{2, 1, 3, 4};
      const Shape yb = ty ? Shape{3, 2, 4} : Shape{3, 4, 2};
      check_mm_grad<A>(kernels::matmul_v2, kernels::matmul_v2_grad, xb, yb, v2(tx, ty));
    }
  check_mm_grad<A>(kernels::matmul_v2, kernels::matmul_v2_grad, Shape{4}, Shape{2, 4, 3}, v2(false, false));
  check_mm_grad<A>(kernels::matmul_v2, kernels::matmul_v2_grad, Shape{2, 4, 3}, Shape{4}, v2(true, false));
  check_mm_grad<A>(kernels::matmul_v2, kernels::matmul_v2_grad, Shape{5}, Shape{5}, v2(false, false));
}

TEST_CASE("bmm multiplies batch by batch and rejects broadcasting", "[matmul][bmm]") {
  Tensor x = f32(Shape{2, 1, 2}, {1, 2, 3, 4}), y = f32(Shape{2, 2, 1}, {5, 6, 7, 8}), out;
  kernels::bmm(x, y, out);
  CHECK(out.shape() == Shape{2, 1, 1});
  CHECK(values(out) == std::vector<double>{17, 53});
  Tensor y1 = f32(Shape{1, 2, 1}, {5, 6});
  CHECK_THROWS_AS(kernels::bmm(x, y1, out), rt::Error);
  Tensor y2 = f32(Shape{2, 1}, {5, 6});
  CHECK_THROWS_AS(kernels::bmm(x, y2, out), rt::Error);
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(9);
    Tensor a = random(Shape{3, 2, 4}, dt, rng), b = random(Shape{3, 4, 5}, dt, rng);
    CHECK_GRADCHECK_OP("bmm", {&a, &b}, [&](Tensor& o) { kernels::bmm(a, b, o); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::bmm_grad(a, b, dout, g[0], g[1]); },
                       GradCheckOptions::for_dtype(dt));
  }
}

TEST_CASE("addmm: Beta * Input + Alpha * X @ Y with each broadcast form of Input", "[matmul]") {
  // X @ Y = [[1*1 + 2*3, 1*2 + 2*4], [3*1 + 4*3, 3*2 + 4*4]] = [[7, 10], [15, 22]].
  Tensor x = f64(Shape{2, 2}, {1, 2, 3, 4}), y = f64(Shape{2, 2}, {1, 2, 3, 4}), out;
  const kernels::AddmmAttrs a{.Alpha = 2.0f, .Beta = 0.5f};
  kernels::addmm(f64(Shape{2, 2}, {2, 4, 6, 8}), x, y, out, a);
  CHECK(values(out) == std::vector<double>{15, 22, 33, 48});
  kernels::addmm(f64(Shape{1, 2}, {2, 4}), x, y, out, a);  // a row for every row
  CHECK(values(out) == std::vector<double>{15, 22, 31, 46});
  kernels::addmm(f64(Shape{2, 1}, {2, 4}), x, y, out, a);  // a column for every column
  CHECK(values(out) == std::vector<double>{15, 21, 32, 46});
  kernels::addmm(f64(Shape{2}, {2, 4}), x, y, out, a);  // 1-D: a row
  CHECK(values(out) == std::vector<double>{15, 22, 31, 46});
  kernels::addmm(f64(Shape{1}, {2}), x, y, out, a);
  CHECK(values(out) == std::vector<double>{15, 21, 31, 45});
  // Out written over a broadcast Input.
  Tensor in = f64(Shape{1, 2}, {2, 4});
  kernels::addmm(in, x, y, in, a);
  CHECK(values(in) == std::vector<double>{15, 22, 31, 46});
  CHECK_THROWS_WITH(kernels::addmm(f64(Shape{3}, {1, 2, 3}), x, y, out, a), Catch::Contains("does not broadcast"));
  CHECK_THROWS_WITH(kernels::addmm(f64(Shape{2, 2}, {1, 2, 3, 4}), x, f64(Shape{3, 1}, {1, 2, 3}), out, a),
                    Catch::Contains("do not chain"));
}

TEST_CASE("addmm_grad matches finite differences for each Input form", "[matmul][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Shape& is : {Shape{3, 4}, Shape{1, 4}, Shape{3, 1}, Shape{4}, Shape{1}}) {
      INFO("Input " << is.str() << " " << rt::dtype_name(dt));
      std::mt19937 rng(7);
      Tensor in = random(is, dt, rng), x = random(Shape{3, 5}, dt, rng), y = random(Shape{5, 4}, dt, rng);
      const kernels::AddmmAttrs a{.Alpha = 1.5f, .Beta = -0.5f};
      CHECK_GRADCHECK_OP("addmm", {&in, &x, &y}, [&](Tensor& out) { kernels::addmm(in, x, y, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::addmm_grad(in, x, y, dout, g[0], g[1], g[2], a);
                         });
    }
}
