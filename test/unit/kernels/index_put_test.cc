// test/unit/kernels/index_put_test.cc - index_put: hand-checked places, bad indices fail cleanly, gradients.
#include <catch2/catch.hpp>

#include "kernels/index_put.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::IndexPutAttrs;

namespace {

IndexPutAttrs acc(bool a) {
  IndexPutAttrs r;
  r.accumulate = a;
  return r;
}

void put(const Tensor& x, std::vector<const Tensor*> idx, const Tensor& v, Tensor& out, bool accumulate) {
  kernels::index_put(x, idx.data(), static_cast<int>(idx.size()), v, out, acc(accumulate));
}

}  // namespace

TEST_CASE("index_put: places, accumulation, bool masks, bad indices", "[index_put]") {
  Tensor x = f32(Shape{2, 3}, {0, 0, 0, 0, 0, 0}), out;
  Tensor r = i64(Shape{3}, {1, 1, -2}), c = i64(Shape{3}, {2, 2, 0}), v = f32(Shape{1}, {5});
  put(x, {&r, &c}, v, out, true);  // (1, 2) twice, (0, 0) once
  CHECK(values(out) == std::vector<double>{5, 0, 0, 0, 0, 10});
  Tensor m = make<bool>(Shape{2}, {false, true}), row = f32(Shape{3}, {1, 2, 3});
  put(x, {&m}, row, out, false);
  CHECK(values(out) == std::vector<double>{0, 0, 0, 1, 2, 3});
  Tensor bad = i64(Shape{1}, {2});
  CHECK_THROWS_WITH(put(x, {&bad}, v, out, false), Catch::Contains("indices[0] holds 2 at entry 0, out of range"));
  Tensor neg = i32(Shape{1}, {-4});
  Tensor two = i64(Shape{2}, {0, 1});
  CHECK_THROWS_WITH(put(x, {&r, &two}, v, out, false), Catch::Contains("cannot be broadcast"));
  CHECK_THROWS_WITH(put(x, {&bad, &neg}, v, out, false), Catch::Contains("out of range"));
  Tensor wide = f32(Shape{4}, {1, 2, 3, 4});
  CHECK_THROWS_WITH(put(x, {&r, &c}, wide, out, false), Catch::Contains("value [4] does not broadcast"));
  Tensor fidx = f32(Shape{1}, {0});
  CHECK_THROWS_WITH(put(x, {&fidx}, v, out, false), Catch::Contains("must be int32, int64 or bool"));
}

TEST_CASE("index_put_grad: finite differences over x and a broadcast value", "[index_put][grad]") {
  std::mt19937 rng(11);
  Tensor r = i64(Shape{2, 1}, {0, 2}), c = i64(Shape{3}, {1, -1, 0});
  std::vector<const Tensor*> idx = {&r, &c};
  for (bool accumulate : {false, true}) {
    Tensor x = random(Shape{3, 4, 2}, DType::kFP64, rng), v = random(Shape{3, 1}, DType::kFP64, rng);
    INFO("accumulate " << accumulate);
    CHECK_GRADCHECK_OP("index_put", {&x, &v}, [&](Tensor& out) { put(x, idx, v, out, accumulate); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::index_put_grad(x, idx.data(), 2, v, dout, g[0], g[1], acc(accumulate));
                       });
  }
}
