// test/unit/kernels/linalg_lu_test.cc - inverse, determinant, slogdeterminant, matrix_power: worked values, singular matrices, errors, finite-difference gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/linalg_lu.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

// Random matrices with `shift` added on the diagonal: well away from singular.
Tensor regular(const Shape& s, std::mt19937& rng, double shift = 3.0) {
  Tensor t = random(s, DType::kFP64, rng);
  const int64_t n = s.d[s.rank - 1];
  double* v = t.data<double>();
  for (int64_t m = 0; m < t.numel() / (n * n); ++m)
    for (int64_t i = 0; i < n; ++i) v[m * n * n + i * n + i] += shift;
  return t;
}

}  // namespace

TEST_CASE("inverse, determinant, slogdeterminant: worked values", "[linalg_lu]") {
  Tensor out;
  // [[0, 2], [1, 1]] needs a row swap: det -2, inverse [[-0.5, 1], [0.5, 0]].
  Tensor a = f32(Shape{2, 2}, {0, 2, 1, 1});
  k::inverse(a, out);
  CHECK(values(out) == std::vector<double>{-0.5, 1, 0.5, 0});
  k::determinant(a, out);
  CHECK(out.shape() == Shape{});
  CHECK(values(out)[0] == -2);
  k::slogdeterminant(a, out);
  CHECK(out.shape() == Shape{2});
  CHECK(values(out)[0] == -1);
  CHECK(values(out)[1] == Approx(std::log(2.0)));
  // A batch of two with a singular one: det 0, sign 0, log -inf.
  Tensor b = f64(Shape{2, 2, 2}, {2, 0, 0, 3, 1, 2, 2, 4});
  k::determinant(b, out);
  CHECK(values(out) == std::vector<double>{6, 0});
  k::slogdeterminant(b, out);
  CHECK(out.shape() == Shape{2, 2});
  const std::vector<double> sl = values(out);
  CHECK(sl[0] == 1);
  CHECK(sl[1] == 0);
  CHECK(sl[2] == Approx(std::log(6.0)));
  CHECK(std::isinf(sl[3]));
  CHECK(sl[3] < 0);
  CHECK_THROWS_WITH(k::inverse(b, out), Catch::Contains("inverse: matrix 1 of Input [2, 2, 2] is not invertible"));
}

TEST_CASE("determinant and slogdeterminant gradients of a batch with a singular matrix follow Paddle", "[linalg_lu]") {
  Tensor b = f64(Shape{2, 2, 2}, {2, 0, 0, 3, 1, 2, 2, 4}), det, slog, g;
  k::determinant(b, det);
  k::determinant_grad(b, det, f64(Shape{2}, {1, 1}), &g);
  CHECK(values(g) == std::vector<double>(8, 0.0));  // all zeros, the regular matrix's too
  k::slogdeterminant(b, slog);
  k::slogdeterminant_grad(b, slog, f64(Shape{2, 2}, {1, 1, 1, 1}), &g);
  for (double v : values(g)) CHECK(std::isnan(v));
}

TEST_CASE("matrix_power: powers, identity, negative powers, errors", "[linalg_lu]") {
  Tensor out;
  Tensor a = f32(Shape{2, 2}, {1, 1, 0, 1});
  k::matrix_power(a, out, k::MatrixPowerAttrs{5});
  CHECK(values(out) == std::vector<double>{1, 5, 0, 1});
  k::matrix_power(a, out, k::MatrixPowerAttrs{0});
  CHECK(values(out) == std::vector<double>{1, 0, 0, 1});
  k::matrix_power(a, out, k::MatrixPowerAttrs{-3});
  CHECK(values(out) == std::vector<double>{1, -3, 0, 1});
  Tensor s = f32(Shape{2, 2}, {1, 2, 2, 4});
  k::matrix_power(s, out, k::MatrixPowerAttrs{2});
  CHECK(values(out) == std::vector<double>{5, 10, 10, 20});
  CHECK_THROWS_WITH(k::matrix_power(s, out, k::MatrixPowerAttrs{-1}), Catch::Contains("not invertible"));
  CHECK_THROWS_WITH(k::matrix_power(f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, k::MatrixPowerAttrs{2}),
                    Catch::Contains("matrix_power: X [2, 3]'s last two dims must be equal"));
  CHECK_THROWS_WITH(k::determinant(f32(Shape{3}, {1, 2, 3}), out), Catch::Contains("must have rank >= 2"));
  CHECK_THROWS_WITH(k::inverse(i64(Shape{1, 1}, {1}), out), Catch::Contains("inverse"));
}

TEST_CASE("linalg_lu gradients match finite differences", "[linalg_lu][grad]") {
  std::mt19937 rng(17);
  Tensor x = regular(Shape{2, 3, 3}, rng);
  CHECK_GRADCHECK_OP("inverse", {&x}, [&](Tensor& o) { k::inverse(x, o); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) {
                       Tensor o;
                       k::inverse(x, o);
                       k::inverse_grad(o, d, g[0]);
                     });
  CHECK_GRADCHECK_OP("determinant", {&x}, [&](Tensor& o) { k::determinant(x, o); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) {
                       Tensor o;
                       k::determinant(x, o);
                       k::determinant_grad(x, o, d, g[0]);
                     });
  CHECK_GRADCHECK_OP("slogdeterminant", {&x}, [&](Tensor& o) { k::slogdeterminant(x, o); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) {
                       Tensor o;
                       k::slogdeterminant(x, o);
                       k::slogdeterminant_grad(x, o, d, g[0]);
                     });
  Tensor p = regular(Shape{2, 3, 3}, rng, 1.5);
  for (int n : {1, 2, 3, 5, -1, -2}) {
    INFO("matrix_power n " << n);
    const k::MatrixPowerAttrs a{n};
    CHECK_GRADCHECK_OP("matrix_power", {&p}, [&](Tensor& o) { k::matrix_power(p, o, a); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) {
                         Tensor o;
                         k::matrix_power(p, o, a);
                         k::matrix_power_grad(p, o, d, g[0], a);
                       });
  }
}
