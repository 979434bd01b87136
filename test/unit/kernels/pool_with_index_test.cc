// test/unit/kernels/pool_with_index_test.cc - max_pool{2,3}d_with_index: maxima, Mask indices, errors, gradients.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <numeric>

#include "kernels/pool.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::MaxPoolWithIndexAttrs attrs(std::vector<int> ks, std::vector<int> s, std::vector<int> p, bool adaptive = false) {
  k::MaxPoolWithIndexAttrs a;
  a.ksize = std::move(ks);
  a.strides = std::move(s);
  a.paddings = std::move(p);
  a.adaptive = adaptive;
  return a;
}

// Distinct values at least 0.05 apart (the fp32 gradcheck step is 0.01), so
// finite differences never move the max to another element.
Tensor spread(const Shape& s, DType dt, uint32_t seed) {
  std::vector<int> idx(static_cast<size_t>(s.numel()));
  std::iota(idx.begin(), idx.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(idx.begin(), idx.end(), rng);
  Tensor t;
  t.resize(s, dt);
  for (int64_t i = 0; i < s.numel(); ++i) set(t, i, 0.05 * idx[static_cast<size_t>(i)] - 1.0);
  return t;
}

}  // namespace

TEST_CASE("max_pool2d_with_index: maxima and their flat indices", "[pool]") {
  // 3x4 plane:  1 9 2 0 / 5 3 8 7 / 4 6 0 9
  const Tensor x = f32(Shape{1, 1, 3, 4}, {1, 9, 2, 0, 5, 3, 8, 7, 4, 6, 0, 9});
  Tensor out, mask;
  k::max_pool2d_with_index(x, out, mask, attrs({2, 2}, {2, 2}, {0, 0}));
  CHECK(out.shape() == Shape{1, 1, 1, 2});
  CHECK(values(out) == std::vector<double>{9, 8});
  CHECK(mask.dtype() == DType::kInt32);
  CHECK(values(mask) == std::vector<double>{1, 6});
  // Padding 1: windows clipped at the edges; ties keep the first (row-major).
  k::max_pool2d_with_index(x, out, mask, attrs({2, 2}, {2, 2}, {1, 1}));
  CHECK(out.shape() == Shape{1, 1, 2, 3});
  CHECK(values(out) == std::vector<double>{1, 9, 0, 5, 8, 9});
  CHECK(values(mask) == std::vector<double>{0, 1, 3, 4, 6, 11});
  // Adaptive 3x4 -> 2x3: rows [0,2) [1,3), columns [0,2) [1,3) [2,4).
  k::max_pool2d_with_index(x, out, mask, attrs({2, 3}, {1, 1}, {0, 0}, true));
  CHECK(values(out) == std::vector<double>{9, 9, 8, 6, 8, 9});
  CHECK(values(mask) == std::vector<double>{1, 1, 6, 9, 6, 11});
  // Global pooling: one window per plane, Paddle's paddings ignored.
  auto g = attrs({1, 1}, {1, 1}, {5, 5});
  g.global_pooling = true;
  k::max_pool2d_with_index(x, out, mask, g);
  CHECK(values(out) == std::vector<double>{9});
  CHECK(values(mask) == std::vector<double>{1});
  // A window of -inf: Paddle's lowest finite value and index -1; the gradient routes nothing.
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor neg = f32(Shape{1, 1, 1, 2}, {-inf, -inf});
  k::max_pool2d_with_index(neg, out, mask, attrs({1, 2}, {1, 1}, {0, 0}));
  CHECK(values(out) == std::vector<double>{std::numeric_limits<float>::lowest()});
  CHECK(values(mask) == std::vector<double>{-1});
  Tensor dx;
  k::max_pool2d_with_index_grad(neg, mask, f32(Shape{1, 1, 1, 1}, {1}), &dx, attrs({1, 2}, {1, 1}, {0, 0}));
  CHECK(values(dx) == std::vector<double>{0, 0});
}

TEST_CASE("max_pool3d_with_index: indices over the D*H*W plane", "[pool]") {
  std::vector<double> v(2 * 2 * 3);
  std::iota(v.begin(), v.end(), 0);
  Tensor out, mask;
  k::max_pool3d_with_index(f64(Shape{1, 1, 2, 2, 3}, v), out, mask, attrs({2, 2, 2}, {1, 1, 1}, {0, 0, 0}));
  CHECK(values(out) == std::vector<double>{10, 11});
  CHECK(values(mask) == std::vector<double>{10, 11});
}

TEST_CASE("max_pool_with_index: bad attributes and masks are located errors", "[pool]") {
  Tensor out, mask, dx;
  const Tensor x = f32(Shape{1, 1, 2, 2}, {1, 2, 3, 4});
  CHECK_THROWS_WITH(k::max_pool2d_with_index(x, out, mask, attrs({2, 2}, {1, 1}, {0, 0, 0, 0})),
                    Catch::Contains("max_pool2d_with_index") && Catch::Contains("one per spatial dim"));
  CHECK_THROWS_WITH(k::max_pool3d_with_index(x, out, mask, attrs({2, 2, 2}, {1, 1, 1}, {0, 0, 0})),
                    Catch::Contains("rank 5"));
  const auto a = attrs({2, 2}, {2, 2}, {0, 0});
  CHECK_THROWS_WITH(k::max_pool2d_with_index_grad(x, i32(Shape{1, 1, 1, 1}, {4}), f32(Shape{1, 1, 1, 1}, {1}), &dx, a),
                    Catch::Contains("Mask value 4"));
  CHECK_THROWS_WITH(k::max_pool2d_with_index_grad(x, f32(Shape{1, 1, 1, 1}, {0}), f32(Shape{1, 1, 1, 1}, {1}), &dx, a),
                    Catch::Contains("Mask has unsupported dtype"));
  CHECK_THROWS_WITH(k::max_pool2d_with_index_grad(x, i32(Shape{1, 1, 1, 1}, {0}), f32(Shape{1, 2}, {1, 1}), &dx, a),
                    Catch::Contains("Out@GRAD has shape"));
}

TEST_CASE("max_pool_with_index grads match finite differences", "[pool][grad][gradcheck]") {
  struct Case {
    std::vector<int> k, s, p;
    bool adaptive;
  };
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Case& c : {Case{{2, 2}, {2, 2}, {0, 0}, false}, Case{{3, 3}, {2, 2}, {1, 1}, false},
                          Case{{2, 3}, {1, 1}, {0, 0}, true}}) {
      INFO("adaptive " << c.adaptive << " " << rt::dtype_name(dt));
      const auto a = attrs(c.k, c.s, c.p, c.adaptive);
      Tensor x = spread(Shape{1, 2, 5, 5}, dt, 7);
      CHECK_GRADCHECK_OP("max_pool2d_with_index", {&x},
                         [&](Tensor& out) {
                           Tensor mask;
                           k::max_pool2d_with_index(x, out, mask, a);
                         },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out, mask;
                           k::max_pool2d_with_index(x, out, mask, a);
                           k::max_pool2d_with_index_grad(x, mask, dout, g[0], a);
                         });
    }
  const auto a = attrs({2, 2, 2}, {1, 2, 1}, {0, 1, 0});
  Tensor x = spread(Shape{1, 2, 3, 3, 4}, DType::kFP64, 9);
  CHECK_GRADCHECK_OP("max_pool3d_with_index", {&x},
                     [&](Tensor& out) {
                       Tensor mask;
                       k::max_pool3d_with_index(x, out, mask, a);
                     },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       Tensor out, mask;
                       k::max_pool3d_with_index(x, out, mask, a);
                       k::max_pool3d_with_index_grad(x, mask, dout, g[0], a);
                     });
}
