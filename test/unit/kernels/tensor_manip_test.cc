// test/unit/kernels/tensor_manip_test.cc - reshape2, slice and concat: values, run-time bounds, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

kernels::SliceAttrs slice_attrs(std::vector<int> axes, std::vector<int> starts, std::vector<int> ends,
                                std::vector<int> decrease = {}) {
  kernels::SliceAttrs a;
  a.axes = axes, a.starts = starts, a.ends = ends, a.decrease_axis = decrease;
  return a;
}

void slice_attrs_only(const Tensor& in, Tensor& out, const kernels::SliceAttrs& a) {
  kernels::slice(in, nullptr, nullptr, nullptr, 0, nullptr, 0, out, a);
}

}  // namespace

TEST_CASE("reshape2 infers -1, copies 0 dims and records XShape", "[tensor_manip]") {
  Tensor x = f32(Shape{2, 3, 4}, std::vector<float>(24, 1.0f)), out, xshape;
  for (int i = 0; i < 24; ++i) x.data<float>()[i] = static_cast<float>(i);
  kernels::Reshape2Attrs a;
  a.shape = {0, -1};
  kernels::reshape2(x, out, &xshape, a);
  CHECK(out.shape() == Shape{2, 12});
  CHECK(out.data<float>()[13] == 13.0f);
  CHECK(xshape.shape() == Shape{0, 2, 3, 4});
  Tensor dx;
  kernels::reshape2_grad(xshape, out, &dx);
  CHECK(dx.shape() == Shape{2, 3, 4});
  CHECK(dx.data<float>()[23] == 23.0f);
  a.shape = {5, -1};
  CHECK_THROWS_AS(kernels::reshape2(x, out, nullptr, a), rt::Error);
}

TEST_CASE("slice keeps a window, clamps and wraps bounds, drops decreased axes", "[tensor_manip]") {
  Tensor x = f32(Shape{3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), out;
  slice_attrs_only(x, out, slice_attrs({1}, {1}, {3}));
  CHECK(out.shape() == Shape{3, 2});
  CHECK(out.data<float>()[0] == 1.0f);
  CHECK(out.data<float>()[5] == 10.0f);
  slice_attrs_only(x, out, slice_attrs({0, 1}, {-1, 2}, {100, 3}, {0}));
  CHECK(out.shape() == Shape{1});
  CHECK(out.data<float>()[0] == 10.0f);
  // Bounds computed at run time (a loop counter) replace the attributes.
  Tensor start = i64(Shape{1}, {2}), end = i64(Shape{1}, {3});
  const Tensor* starts[] = {&start};
  const Tensor* ends[] = {&end};
  kernels::slice(x, nullptr, nullptr, starts, 1, ends, 1, out, slice_attrs({1}, {-1}, {-1}));
  CHECK(out.shape() == Shape{3, 1});
  CHECK(out.data<float>()[2] == 10.0f);
  CHECK_THROWS_AS(slice_attrs_only(x, out, slice_attrs({2}, {0}, {1})), rt::Error);
  CHECK_THROWS_AS(slice_attrs_only(x, out, slice_attrs({0}, {0}, {2}, {0})), rt::Error);
}

TEST_CASE("concat joins along an axis and concat_grad splits back", "[tensor_manip]") {
  Tensor a = f32(Shape{2, 1}, {1, 2}), b = f32(Shape{2, 2}, {3, 4, 5, 6}), out;
  const Tensor* xs[] = {&a, &b};
  kernels::ConcatAttrs attrs;
  attrs.axis = -1;
  kernels::concat(xs, 2, out, attrs);
  CHECK(out.shape() == Shape{2, 3});
  CHECK(std::vector<float>(out.data<float>(), out.data<float>() + 6) == std::vector<float>{1, 3, 4, 2, 5, 6});
  Tensor gb;
  Tensor* grads[] = {nullptr, &gb};
  kernels::concat_grad(xs, 2, out, grads, 2, attrs);
  CHECK(gb.shape() == Shape{2, 2});
  CHECK(gb.data<float>()[3] == 6.0f);
  Tensor c = f32(Shape{3, 1}, {0, 0, 0});
  const Tensor* bad[] = {&a, &c};
  CHECK_THROWS_AS(kernels::concat(bad, 2, out, attrs), rt::Error);
}

TEST_CASE("finite differences agree with slice_grad, concat_grad and reshape2_grad", "[tensor_manip][grad]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(5);
    Tensor x = random(Shape{3, 4, 2}, dt, rng);
    auto sa = slice_attrs({1, 2}, {1, 0}, {-1, 1}, {2});
    CHECK_GRADCHECK_OP("slice", {&x}, [&](Tensor& out) { slice_attrs_only(x, out, sa); },
                    [&](const Tensor& dout, std::vector<Tensor*>& g) {
                      kernels::slice_grad(x, nullptr, nullptr, nullptr, 0, nullptr, 0, dout, g[0], sa);
                    },
                    GradCheckOptions::for_dtype(dt));
    Tensor y = random(Shape{3, 1, 2}, dt, rng);
    kernels::ConcatAttrs ca;
    ca.axis = 1;
    CHECK_GRADCHECK_OP("concat", {&x, &y},
                    [&](Tensor& out) {
                      const Tensor* xs[] = {&x, &y};
                      kernels::concat(xs, 2, out, ca);
                    },
                    [&](const Tensor& dout, std::vector<Tensor*>& g) {
                      const Tensor* xs[] = {&x, &y};
                      Tensor* gs[] = {g[0], g[1]};
                      kernels::concat_grad(xs, 2, dout, gs, 2, ca);
                    },
                    GradCheckOptions::for_dtype(dt));
    kernels::Reshape2Attrs ra;
    ra.shape = {-1, 2};
    Tensor xshape;
    CHECK_GRADCHECK_OP("reshape2", {&x}, [&](Tensor& out) { kernels::reshape2(x, out, &xshape, ra); },
                    [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::reshape2_grad(xshape, dout, g[0]); },
                    GradCheckOptions::for_dtype(dt));
  }
}
