// test/unit/kernels/index_add_test.cc - index_add: repeated indices add up, axes, in place, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/index.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {
k::IndexAddAttrs along(int axis) {
  k::IndexAddAttrs a;
  a.axis = axis;
  return a;
}
}  // namespace

TEST_CASE("index_add: slices added at their indices, repeats add up", "[index_add]") {
  const Tensor x = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor out;
  // Rows: index [2, 0, 2] adds rows 0 and 2 of AddValue to row 2, row 1 to row 0.
  k::index_add(x, i64(Shape{3}, {2, 0, 2}), f32(Shape{3, 2}, {10, 20, 30, 40, 50, 60}), out, along(0));
  CHECK(values(out) == std::vector<double>{31, 42, 3, 4, 65, 86});
  // Columns (axis -1): AddValue [3, 1] at column 1.
  k::index_add(x, i32(Shape{1}, {1}), f32(Shape{3, 1}, {100, 200, 300}), out, along(-1));
  CHECK(values(out) == std::vector<double>{1, 102, 3, 204, 5, 306});
  // A middle axis of a 3-D X, int64 elements, in place (Out is X).
  Tensor xi = i64(Shape{2, 3, 1}, {1, 2, 3, 4, 5, 6});
  k::index_add(xi, i32(Shape{2}, {0, 0}), i64(Shape{2, 2, 1}, {1, 1, 2, 2}), xi, along(1));
  CHECK(values(xi) == std::vector<double>{3, 2, 3, 8, 5, 6});
}

TEST_CASE("index_add: refusals", "[index_add][errors]") {
  const Tensor x = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor out;
  const Tensor v = f32(Shape{1, 2}, {1, 1});
  CHECK_THROWS_WITH(k::index_add(x, i64(Shape{1}, {3}), v, out, along(0)), Catch::Contains("Index value 3"));
  CHECK_THROWS_WITH(k::index_add(x, i64(Shape{1}, {-1}), v, out, along(0)), Catch::Contains("Index value -1"));
  CHECK_THROWS_WITH(k::index_add(x, i64(Shape{2}, {0, 1}), v, out, along(0)), Catch::Contains("AddValue"));
  CHECK_THROWS_WITH(k::index_add(x, i64(Shape{1, 1}, {0}), v, out, along(0)), Catch::Contains("Index must be 1-D"));
  CHECK_THROWS_WITH(k::index_add(x, i64(Shape{1}, {0}), v, out, along(2)), Catch::Contains("axis 2"));
  CHECK_THROWS_WITH(k::index_add(x, i64(Shape{1}, {0}), f64(Shape{1, 2}, {1, 1}), out, along(0)),
                    Catch::Contains("float64"));
}

TEST_CASE("index_add_grad: X@GRAD is Out@GRAD, AddValue@GRAD its indexed slices", "[index_add][grad]") {
  const Tensor index = i64(Shape{3}, {2, 0, 2});
  const Tensor value = f32(Shape{3, 2}, {0, 0, 0, 0, 0, 0});
  const Tensor g = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor dx, dv;
  k::index_add_grad(index, value, g, &dx, &dv, along(0));
  CHECK(values(dx) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(values(dv) == std::vector<double>{5, 6, 1, 2, 5, 6});
  std::mt19937 rng(8);
  for (int axis : {0, 1, -1}) {
    INFO("axis " << axis);
    Tensor x = random(Shape{3, 4, 2}, DType::kFP64, rng);
    const int a = axis < 0 ? axis + 3 : axis;
    Shape vs = x.shape();
    vs.d[a] = 3;
    Tensor v = random(vs, DType::kFP64, rng);
    const Tensor idx = i32(Shape{3}, {1, 0, 1});
    CHECK_GRADCHECK_OP("index_add", {&x, &v}, [&](Tensor& out) { k::index_add(x, idx, v, out, along(axis)); },
                       [&](const Tensor& d, std::vector<Tensor*>& gr) {
                         k::index_add_grad(idx, v, d, gr[0], gr[1], along(axis));
                       });
  }
}
