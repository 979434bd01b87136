// test/unit/kernels/linalg_misc_test.cc - diag_v2, eye, trace, kron, cross, mv: small worked values, errors, finite-difference gradients.
#include <catch2/catch.hpp>

#include "kernels/linalg_misc.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("diag_v2 and eye: vectors to matrices, diagonals out, offsets, errors", "[linalg_misc]") {
  Tensor out;
  k::diag_v2(f32(Shape{2}, {1, 2}), out, k::DiagV2Attrs{1, 9.0f});
  CHECK(out.shape() == Shape{3, 3});
  CHECK(values(out) == std::vector<double>{9, 1, 9, 9, 9, 2, 9, 9, 9});
  k::diag_v2(i64(Shape{3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), out, k::DiagV2Attrs{-1, 0.0f});
  CHECK(values(out) == std::vector<double>{4, 9});
  k::diag_v2(f32(Shape{2, 3}, {0, 1, 2, 3, 4, 5}), out, k::DiagV2Attrs{3, 0.0f});
  CHECK(out.shape() == Shape{0});
  CHECK_THROWS_WITH(k::diag_v2(f32(Shape{2, 3}, {0, 1, 2, 3, 4, 5}), out, k::DiagV2Attrs{4, 0.0f}),
                    Catch::Contains("diag_v2: offset 4 is outside X [2, 3]"));
  k::eye(out, k::EyeAttrs{2, 3, 3});
  CHECK(out.dtype() == DType::kInt64);
  CHECK(values(out) == std::vector<double>{1, 0, 0, 0, 1, 0});
  k::eye(out, k::EyeAttrs{2, -1, 5});
  CHECK(out.shape() == Shape{2, 2});
  CHECK_THROWS_WITH(k::eye(out, k::EyeAttrs{-2, -1, 5}), Catch::Contains("must not be negative"));
  CHECK_THROWS_WITH(k::eye(out, k::EyeAttrs{2, 2, 77}), Catch::Contains("not a tensor dtype"));
}

TEST_CASE("trace, kron, cross: worked values and errors", "[linalg_misc]") {
  Tensor out;
  Tensor m = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  k::trace(m, out, k::TraceAttrs{0, 0, 1});
  CHECK(out.shape() == Shape{});
  CHECK(values(out)[0] == 6);
  k::trace(m, out, k::TraceAttrs{1, 1, 0});  // swapped axes: rows are still axis 0 (Paddle's rule)
  CHECK(values(out)[0] == 8);
  k::trace(m, out, k::TraceAttrs{5, 0, 1});
  CHECK(values(out)[0] == 0);
  CHECK_THROWS_WITH(k::trace(m, out, k::TraceAttrs{0, 1, -1}), Catch::Contains("name the same axis"));
  k::kron(f32(Shape{2}, {1, 10}), f32(Shape{2, 2}, {1, 2, 3, 4}), out);
  CHECK(out.shape() == Shape{2, 4});
  CHECK(values(out) == std::vector<double>{1, 2, 10, 20, 3, 4, 30, 40});
  CHECK_THROWS_WITH(k::kron(f32(Shape{1}, {1}), f64(Shape{1}, {1}), out), Catch::Contains("kron: X is float32 but Y is float64"));
  k::cross(f32(Shape{3}, {1, 0, 0}), f32(Shape{3}, {0, 1, 0}), out, k::CrossAttrs{});
  CHECK(values(out) == std::vector<double>{0, 0, 1});
  Tensor sq = f32(Shape{2, 2}, {1, 2, 3, 4});
  CHECK_THROWS_WITH(k::cross(sq, sq, out, k::CrossAttrs{}), Catch::Contains("has no axis of size 3"));
  CHECK_THROWS_WITH(k::cross(m, m, out, k::CrossAttrs{0}), Catch::Contains("must have size 3"));
  k::mv(m, f32(Shape{3}, {1, 0, -1}), out);
  CHECK(out.shape() == Shape{2});
  CHECK(values(out) == std::vector<double>{-2, -2});
  CHECK_THROWS_WITH(k::mv(m, f32(Shape{2}, {1, 0}), out), Catch::Contains("mv: X [2, 3]'s columns must match Vec [2]"));
}

TEST_CASE("linalg_misc gradients match finite differences", "[linalg_misc][grad]") {
  std::mt19937 rng(11);
  for (int off : {-1, 0, 2}) {
    Tensor v = random(Shape{3}, DType::kFP64, rng), m = random(Shape{4, 5}, DType::kFP64, rng);
    const k::DiagV2Attrs a{off, 0.5f};
    INFO("diag offset " << off);
    CHECK_GRADCHECK_OP("diag_v2", {&v}, [&](Tensor& o) { k::diag_v2(v, o, a); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) { k::diag_v2_grad(v, d, g[0], a); });
    CHECK_GRADCHECK_OP("diag_v2", {&m}, [&](Tensor& o) { k::diag_v2(m, o, a); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) { k::diag_v2_grad(m, d, g[0], a); });
  }
  Tensor x3 = random(Shape{2, 3, 4}, DType::kFP64, rng);
  for (k::TraceAttrs a : {k::TraceAttrs{1, 1, 2}, k::TraceAttrs{-1, 2, 0}}) {
    CHECK_GRADCHECK_OP("trace", {&x3}, [&](Tensor& o) { k::trace(x3, o, a); },
                       [&](const Tensor& d, std::vector<Tensor*>& g) { k::trace_grad(x3, d, g[0], a); });
  }
  Tensor kx = random(Shape{3}, DType::kFP64, rng), ky = random(Shape{2, 2}, DType::kFP64, rng);
  CHECK_GRADCHECK_OP("kron", {&kx, &ky}, [&](Tensor& o) { k::kron(kx, ky, o); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) { k::kron_grad(kx, ky, d, g[0], g[1]); });
  Tensor mx = random(Shape{4, 3}, DType::kFP64, rng), mvec = random(Shape{3}, DType::kFP64, rng);
  CHECK_GRADCHECK_OP("mv", {&mx, &mvec}, [&](Tensor& o) { k::mv(mx, mvec, o); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) { k::mv_grad(mx, mvec, d, g[0], g[1]); });
  Tensor cx = random(Shape{2, 3, 2}, DType::kFP64, rng), cy = random(Shape{2, 3, 2}, DType::kFP64, rng);
  const k::CrossAttrs ca{};
  CHECK_GRADCHECK_OP("cross", {&cx, &cy}, [&](Tensor& o) { k::cross(cx, cy, o, ca); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) { k::cross_grad(cx, cy, d, g[0], g[1], ca); });
}
