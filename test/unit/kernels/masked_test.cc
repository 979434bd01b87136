// test/unit/kernels/masked_test.cc - where_index and masked_select: run-time lengths, broadcasting, empty results, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/masked.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

Tensor mask(const Shape& s, const std::vector<int>& v) {
  Tensor t;
  t.resize(s, DType::kBool);
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i] != 0;
  return t;
}

}  // namespace

TEST_CASE("where_index: coordinates of nonzero elements, any dtype, none, 0-D", "[masked]") {
  Tensor out;
  k::where_index(f32(Shape{2, 3}, {0, 1.5f, 0, -2, 0, 0.25f}), out);
  CHECK(out.dtype() == DType::kInt64);
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == std::vector<double>{0, 1, 1, 0, 1, 2});
  k::where_index(mask(Shape{2, 1, 2}, {0, 1, 1, 0}), out);
  CHECK(out.shape() == Shape{2, 3});
  CHECK(values(out) == std::vector<double>{0, 0, 1, 1, 0, 0});
  k::where_index(i32(Shape{4}, {0, 0, 0, 0}), out);
  CHECK(out.shape() == Shape{0, 1});
  k::where_index(i64(Shape{}, {7}), out);
  CHECK(out.shape() == Shape{1, 0});
  Tensor unset;
  CHECK_THROWS_WITH(k::where_index(unset, out), Catch::Contains("where_index: input Condition is not initialized"));
}

TEST_CASE("masked_select: row-major picks over the broadcast shape, empty picks, errors", "[masked]") {
  Tensor y;
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  k::masked_select(x, mask(Shape{2, 3}, {1, 0, 1, 0, 0, 1}), y);
  CHECK(y.shape() == Shape{3});
  CHECK(values(y) == std::vector<double>{1, 3, 6});
  // Mask [3] repeats over X's rows; X [2, 1] repeats over Mask's columns.
  k::masked_select(x, mask(Shape{3}, {0, 1, 1}), y);
  CHECK(values(y) == std::vector<double>{2, 3, 5, 6});
  k::masked_select(f32(Shape{2, 1}, {7, 8}), mask(Shape{2, 3}, {1, 1, 0, 0, 1, 1}), y);
  CHECK(values(y) == std::vector<double>{7, 7, 8, 8});
  k::masked_select(i64(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), mask(Shape{2, 3}, {0, 0, 0, 0, 0, 0}), y);
  CHECK(y.shape() == Shape{0});
  CHECK(y.dtype() == DType::kInt64);
  CHECK_THROWS_WITH(k::masked_select(x, mask(Shape{2}, {1, 1}), y), Catch::Contains("X and Mask: "));
  CHECK_THROWS_WITH(k::masked_select(x, i32(Shape{2, 3}, {1, 0, 1, 0, 0, 1}), y),
                    Catch::Contains("Mask must be bool, got int32"));
  Tensor dy = f32(Shape{2}, {1, 1}), dx;
  CHECK_THROWS_WITH(k::masked_select_grad(x, mask(Shape{2, 3}, {1, 0, 1, 0, 0, 1}), dy, &dx),
                    Catch::Contains("the mask selects 3 elements"));
}

TEST_CASE("masked_select_grad: finite differences, broadcast X sums its picks", "[masked][grad]") {
  std::mt19937 rng(5);
  for (bool broadcast_x : {false, true}) {
    Tensor x = random(broadcast_x ? Shape{3, 1, 4} : Shape{3, 2, 4}, DType::kFP64, rng);
    Tensor m = mask(Shape{2, 1}, {1, 0});
    Tensor full = mask(Shape{3, 2, 4}, {1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0});
    const Tensor& mk = broadcast_x ? full : m;
    INFO("broadcast X " << broadcast_x);
    CHECK_GRADCHECK_OP("masked_select", {&x}, [&](Tensor& out) { k::masked_select(x, mk, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { k::masked_select_grad(x, mk, dout, g[0]); });
  }
}
