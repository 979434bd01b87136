// test/unit/kernels/manip_misc_test.cc - unbind and meshgrid: values, shapes, errors, meshgrid's gradient.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

}  // namespace

TEST_CASE("unbind: slices along an axis, the dim removed", "[unbind]") {
  Tensor a, b, c;
  Tensor* outs[3] = {&a, &b, &c};
  kernels::UnbindAttrs at;
  at.axis = 1;
  kernels::unbind(iota(Shape{2, 3}), outs, 3, at);
  REQUIRE(a.shape() == Shape{2});
  CHECK(values(a) == std::vector<double>{0, 3});
  CHECK(values(c) == std::vector<double>{2, 5});
  at.axis = -2;
  kernels::unbind(i64(Shape{2, 2}, {1, 2, 3, 4}), outs, 2, at);
  CHECK(values(b) == std::vector<double>{3, 4});
  at.axis = 1;
  CHECK_THROWS_WITH(kernels::unbind(iota(Shape{2, 3}), outs, 2, at), Catch::Contains("has 2 outputs"));
  at.axis = 2;
  CHECK_THROWS_WITH(kernels::unbind(iota(Shape{2, 3}), outs, 2, at), Catch::Contains("out of range"));
}

TEST_CASE("meshgrid: ij grids from 1-D and 0-D inputs", "[meshgrid]") {
  const Tensor x = f32(Shape{2}, {1, 2}), y = f32(Shape{3}, {7, 8, 9}), z = f32(Shape{}, {5});
  const Tensor* xs[3] = {&x, &y, &z};
  Tensor a, b, c;
  Tensor* outs[3] = {&a, &b, &c};
  kernels::meshgrid(xs, 2, outs, 2);
  REQUIRE(a.shape() == Shape{2, 3});
  CHECK(values(a) == std::vector<double>{1, 1, 1, 2, 2, 2});
  CHECK(values(b) == std::vector<double>{7, 8, 9, 7, 8, 9});
  kernels::meshgrid(xs, 3, outs, 3);
  REQUIRE(c.shape() == Shape{2, 3, 1});
  CHECK(values(c) == std::vector<double>(6, 5.0));
  // An unused output's gradient (uninitialized) counts as zeros.
  Tensor g0 = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), g1, dx, dy;
  const Tensor* gs[2] = {&g0, &g1};
  Tensor* dxs[2] = {&dx, &dy};
  kernels::meshgrid_grad(xs, 2, gs, 2, dxs, 2);
  CHECK(values(dx) == std::vector<double>{6, 15});
  CHECK(values(dy) == std::vector<double>{0, 0, 0});
  const Tensor m = iota(Shape{2, 2});
  const Tensor* bad[2] = {&x, &m};
  CHECK_THROWS_WITH(kernels::meshgrid(bad, 2, outs, 2), Catch::Contains("1-D or 0-D"));
  CHECK_THROWS_WITH(kernels::meshgrid(xs, 2, outs, 1), Catch::Contains("one output per input"));
}

TEST_CASE("meshgrid_grad matches finite differences", "[meshgrid][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (int which = 0; which < 3; ++which) {  // the loss through one output at a time
      std::mt19937 rng(5);
      Tensor x = random(Shape{2}, dt, rng), y = random(Shape{3}, dt, rng), z = random(Shape{4}, dt, rng);
      const Tensor* xs[3] = {&x, &y, &z};
      CHECK_GRADCHECK_OP("meshgrid", {&x, &y, &z},
                         [&](Tensor& o) {
                           Tensor a, b, c;
                           Tensor* outs[3] = {&a, &b, &c};
                           kernels::meshgrid(xs, 3, outs, 3);
                           o.copy_from(*outs[which]);
                         },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor none;
                           const Tensor* gs[3] = {&none, &none, &none};
                           gs[which] = &dout;
                           kernels::meshgrid_grad(xs, 3, gs, 3, g.data(), 3);
                         });
    }
}

// unbind's gradient is Paddle's stack of the Out gradients (zeros for the
// outputs the loss does not reach).
TEST_CASE("unbind's gradient (stack) matches finite differences", "[unbind][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (int which = 0; which < 3; ++which) {
      std::mt19937 rng(8);
      Tensor x = random(Shape{2, 3, 2}, dt, rng);
      kernels::UnbindAttrs ua;
      ua.axis = 1;
      kernels::StackAttrs sa;
      sa.axis = 1;
      CHECK_GRADCHECK_OP("unbind", {&x},
                         [&](Tensor& o) {
                           Tensor a, b, c;
                           Tensor* outs[3] = {&a, &b, &c};
                           kernels::unbind(x, outs, 3, ua);
                           o.copy_from(*outs[which]);
                         },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor zero;
                           zero.resize(dout.shape(), dout.dtype());
                           zero.zero();
                           const Tensor* gs[3] = {&zero, &zero, &zero};
                           gs[which] = &dout;
                           kernels::stack(gs, 3, *g[0], sa);
                         });
    }
}
