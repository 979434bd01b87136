// test/unit/kernels/pad_test.cc - pad, pad2d, pad3d: hand-computed values per mode, layouts, errors, gradients.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/pad.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

Tensor ascending(const Shape& s, double start = 1) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  std::iota(v.begin(), v.end(), static_cast<float>(start));
  return f32(s, v);
}

k::Pad3dAttrs p3(std::vector<int> pads, const char* mode, float value = 0, const char* fmt = "NCDHW") {
  k::Pad3dAttrs a;
  a.paddings = std::move(pads);
  a.mode = mode;
  a.value = value;
  a.data_format = fmt;
  return a;
}

}  // namespace

TEST_CASE("pad3d: each mode along W of one row", "[pad]") {
  const Tensor x = ascending(Shape{1, 1, 1, 1, 3});  // 1 2 3
  Tensor out;
  k::pad3d(x, nullptr, out, p3({2, 1, 0, 0, 0, 0}, "constant", 9));
  CHECK(values(out) == std::vector<double>{9, 9, 1, 2, 3, 9});
  k::pad3d(x, nullptr, out, p3({2, 1, 0, 0, 0, 0}, "reflect"));
  CHECK(values(out) == std::vector<double>{3, 2, 1, 2, 3, 2});
  k::pad3d(x, nullptr, out, p3({2, 1, 0, 0, 0, 0}, "replicate"));
  CHECK(values(out) == std::vector<double>{1, 1, 1, 2, 3, 3});
  k::pad3d(x, nullptr, out, p3({4, 1, 0, 0, 0, 0}, "circular"));  // wraps past one period
  CHECK(values(out) == std::vector<double>{3, 1, 2, 3, 1, 2, 3, 1});
  k::pad3d(x, nullptr, out, p3({-1, 1, 0, 0, 0, 0}, "constant", 0));  // a negative padding crops
  CHECK(values(out) == std::vector<double>{2, 3, 0});
  CHECK(out.shape() == Shape{1, 1, 1, 1, 3});
}

TEST_CASE("pad3d: H and D, channel-last, Paddings tensor, ints", "[pad]") {
  Tensor out;
  // 2x2 plane [[1,2],[3,4]] padded one row on top (replicate) and one column right.
  k::pad3d(ascending(Shape{1, 1, 1, 2, 2}), nullptr, out, p3({0, 1, 1, 0, 0, 0}, "replicate"));
  CHECK(out.shape() == Shape{1, 1, 1, 3, 3});
  CHECK(values(out) == std::vector<double>{1, 2, 2, 1, 2, 2, 3, 4, 4});
  // Two channels last: each position carries (c0, c1); D padded in front with the constant.
  k::pad3d(ascending(Shape{1, 1, 1, 2, 2}), nullptr, out, p3({0, 0, 0, 0, 1, 0}, "constant", -1, "NDHWC"));
  CHECK(out.shape() == Shape{1, 2, 1, 2, 2});
  CHECK(values(out) == std::vector<double>{-1, -1, -1, -1, 1, 2, 3, 4});
  // The Paddings input wins over the attribute.
  const Tensor pads = i64(Shape{6}, {1, 0, 0, 0, 0, 0});
  k::pad3d(ascending(Shape{1, 1, 1, 1, 2}), &pads, out, p3({5, 5, 5, 5, 5, 5}, "reflect"));
  CHECK(values(out) == std::vector<double>{2, 1, 2});
  k::pad3d(i32(Shape{1, 1, 1, 1, 2}, {7, 8}), nullptr, out, p3({1, 1, 0, 0, 0, 0}, "constant", 3));
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == std::vector<double>{3, 7, 8, 3});
}

TEST_CASE("pad3d: bad attributes and inputs are located errors", "[pad]") {
  Tensor out;
  const Tensor x = ascending(Shape{1, 1, 1, 2, 3});
  CHECK_THROWS_WITH(k::pad3d(x, nullptr, out, p3({3, 0, 0, 0, 0, 0}, "reflect")),
                    Catch::Contains("pad3d") && Catch::Contains("less than X's extent 3"));
  CHECK_THROWS_WITH(k::pad3d(x, nullptr, out, p3({0, 0, 0, 0}, "constant")), Catch::Contains("6 expected"));
  CHECK_THROWS_WITH(k::pad3d(x, nullptr, out, p3({0, 0, 0, 0, 0, 0}, "edge")), Catch::Contains("mode edge"));
  CHECK_THROWS_WITH(k::pad3d(x, nullptr, out, p3({0, 0, 0, 0, 0, 0}, "constant", 0, "NCHW")),
                    Catch::Contains("data_format"));
  CHECK_THROWS_WITH(k::pad3d(ascending(Shape{2, 3}), nullptr, out, p3({0, 0, 0, 0, 0, 0}, "constant")),
                    Catch::Contains("rank 5"));
  CHECK_THROWS_WITH(k::pad3d(x, nullptr, out, p3({-2, -2, 0, 0, 0, 0}, "constant")), Catch::Contains("crop"));
  const Tensor few = i32(Shape{2}, {1, 1});
  CHECK_THROWS_WITH(k::pad3d(x, &few, out, p3({0, 0, 0, 0, 0, 0}, "constant")), Catch::Contains("Paddings has 2"));
  const Tensor floats = f32(Shape{6}, {0, 0, 0, 0, 0, 0});
  CHECK_THROWS_WITH(k::pad3d(x, &floats, out, p3({0, 0, 0, 0, 0, 0}, "constant")), Catch::Contains("int32 or int64"));
  Tensor dx;
  CHECK_THROWS_WITH(k::pad3d_grad(x, nullptr, ascending(Shape{1, 1, 1, 2, 3}), &dx, p3({1, 0, 0, 0, 0, 0}, "constant")),
                    Catch::Contains("Out@GRAD has shape"));
}

TEST_CASE("pad2d equals pad3d on the same planes; edge is replicate", "[pad]") {
  std::mt19937 rng(5);
  const Tensor x4 = random(Shape{2, 3, 4, 5}, DType::kFP32, rng);
  Tensor x5;
  x5.copy_from(x4);
  x5.resize(Shape{2, 3, 1, 4, 5});  // same bytes: the data stays
  for (auto [m2, m3] : {std::pair{"constant", "constant"}, {"reflect", "reflect"}, {"edge", "replicate"}}) {
    INFO(m2);
    k::Pad2dAttrs a2;
    a2.paddings = {1, 2, 3, 0};  // top, bottom, left, right
    a2.mode = m2;
    a2.pad_value = 0.5f;
    Tensor o2, o3;
    k::pad2d(x4, nullptr, o2, a2);
    k::pad3d(x5, nullptr, o3, p3({3, 0, 1, 2, 0, 0}, m3, 0.5f));
    CHECK(o2.shape() == Shape{2, 3, 7, 8});
    CHECK(values(o2) == values(o3));
  }
  k::Pad2dAttrs bad;
  bad.mode = "circular";  // pad3d's mode, not pad2d's
  Tensor o;
  CHECK_THROWS_WITH(k::pad2d(x4, nullptr, o, bad), Catch::Contains("mode circular"));
}

TEST_CASE("pad: constant padding of any rank and its crop", "[pad]") {
  k::PadAttrs a;
  a.paddings = {1, 0, 0, 2};
  a.pad_value = 7;
  Tensor out, dx;
  k::pad(ascending(Shape{2, 2}), out, a);
  CHECK(out.shape() == Shape{3, 4});
  CHECK(values(out) == std::vector<double>{7, 7, 7, 7, 1, 2, 7, 7, 3, 4, 7, 7});
  k::pad_grad(ascending(Shape{3, 4}), &dx, a);
  CHECK(dx.shape() == Shape{2, 2});
  CHECK(values(dx) == std::vector<double>{5, 6, 9, 10});
  a.paddings = {1, 0};
  CHECK_THROWS_WITH(k::pad(ascending(Shape{2, 2}), out, a), Catch::Contains("4 expected"));
  a.paddings = {1, -1, 0, 0};
  CHECK_THROWS_WITH(k::pad(ascending(Shape{2, 2}), out, a), Catch::Contains("negative"));
}

TEST_CASE("pad grads match finite differences", "[pad][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const char* mode : {"constant", "reflect", "replicate", "circular"})
      for (const char* fmt : {"NCDHW", "NDHWC"}) {
        INFO(mode << " " << fmt << " " << rt::dtype_name(dt));
        std::mt19937 rng(11);
        Tensor x = random(Shape{1, 3, 3, 4, 3}, dt, rng);
        // Crops (-1) and pads wider than the input (circular only) on different dims.
        const bool circ = std::string(mode) == "circular";
        const auto a = p3({2, 1, -1, 2, 1, circ ? 3 : 1}, mode, 0.5f, fmt);
        CHECK_GRADCHECK_OP("pad3d", {&x}, [&](Tensor& out) { k::pad3d(x, nullptr, out, a); },
                           [&](const Tensor& dout, std::vector<Tensor*>& g) {
                             k::pad3d_grad(x, nullptr, dout, g[0], a);
                           });
      }
  std::mt19937 rng(12);
  Tensor x = random(Shape{1, 3, 4, 2}, DType::kFP32, rng);
  k::Pad2dAttrs a2;
  a2.paddings = {2, 1, 0, 3};
  a2.mode = "reflect";
  a2.data_format = "NHWC";
  CHECK_GRADCHECK_OP("pad2d", {&x}, [&](Tensor& out) { k::pad2d(x, nullptr, out, a2); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) { k::pad2d_grad(x, nullptr, dout, g[0], a2); });
  k::PadAttrs a;
  a.paddings = {1, 0, 2, 1, 0, 3};
  a.pad_value = 2;
  Tensor y = random(Shape{2, 3, 2}, DType::kFP64, rng);
  CHECK_GRADCHECK_OP("pad", {&y}, [&](Tensor& out) { k::pad(y, out, a); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) { k::pad_grad(dout, g[0], a); });
}
