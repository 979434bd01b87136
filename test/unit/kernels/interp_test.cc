// test/unit/kernels/interp_test.cc - nearest/bilinear interpolation: hand-computed samples, size sources, layouts, gradients.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/interp.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::InterpAttrs;
using kernels::InterpV1Attrs;

namespace {

Tensor arange(const Shape& s) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  std::iota(v.begin(), v.end(), 0.0f);
  return f32(s, v);
}

InterpAttrs attrs(const char* method, int oh, int ow, bool align_corners, int align_mode = 1) {
  InterpAttrs a;
  a.interp_method = method;
  a.out_h = oh;
  a.out_w = ow;
  a.align_corners = align_corners;
  a.align_mode = align_mode;
  return a;
}

void check_values(const Tensor& t, const Shape& s, const std::vector<double>& want) {
  REQUIRE(t.shape() == s);
  REQUIRE(t.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) CHECK(get(t, static_cast<int64_t>(i)) == Approx(want[i]).margin(1e-6));
}

Tensor to_nhwc(const Tensor& x) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  Tensor y;
  y.resize(Shape{N, H, W, C}, x.dtype());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) set(y, ((n * H + h) * W + w) * C + c, get(x, ((n * C + c) * H + h) * W + w));
  return y;
}

void v2(const Tensor& x, Tensor& out, const InterpAttrs& a, const Tensor* out_size = nullptr,
        const Tensor* const* sizes = nullptr, int nsizes = 0, const Tensor* scale = nullptr) {
  if (a.interp_method == "nearest")
    kernels::nearest_interp_v2(x, out_size, sizes, nsizes, scale, out, a);
  else
    kernels::bilinear_interp_v2(x, out_size, sizes, nsizes, scale, out, a);
}

}  // namespace

TEST_CASE("interp: bilinear samples", "[interp]") {
  Tensor out;
  // align_corners: corners map to corners, 2x2 -> 3x3 adds the midpoints.
  v2(arange(Shape{1, 1, 2, 2}), out, attrs("bilinear", 3, 3, true));
  check_values(out, Shape{1, 1, 3, 3}, {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3});
  // align_mode 0 (half-pixel centres), step 1/2: src = (o + 0.5) / 2 - 0.5 clipped at 0.
  v2(arange(Shape{1, 1, 1, 2}), out, attrs("bilinear", 1, 4, false, 0));
  check_values(out, Shape{1, 1, 1, 4}, {0, 0.25, 0.75, 1});
  // align_mode 1: src = o / 2, the last sample clamps to the edge.
  v2(arange(Shape{1, 1, 1, 2}), out, attrs("bilinear", 1, 4, false, 1));
  check_values(out, Shape{1, 1, 1, 4}, {0, 0.5, 1, 1});
  // Down-sampling 1x4 -> 1x2 with align_mode 0: src = 2o + 0.5.
  v2(arange(Shape{1, 1, 1, 4}), out, attrs("bilinear", 1, 2, false, 0));
  check_values(out, Shape{1, 1, 1, 2}, {0.5, 2.5});
}

TEST_CASE("interp: nearest samples", "[interp]") {
  Tensor out;
  InterpAttrs a = attrs("nearest", 0, 0, false);
  a.scale = {2.0f, 1.5f};  // 2x2 -> 4x3; columns: floor(o / 1.5) = 0, 0, 1
  v2(arange(Shape{1, 1, 2, 2}), out, a);
  check_values(out, Shape{1, 1, 4, 3}, {0, 0, 1, 0, 0, 1, 2, 2, 3, 2, 2, 3});
  // align_corners rounds: 3 -> 5, step 0.5: round(0, .5, 1, 1.5, 2) = 0 1 1 2 2.
  v2(arange(Shape{1, 1, 1, 3}), out, attrs("nearest", 1, 5, true));
  check_values(out, Shape{1, 1, 1, 5}, {0, 1, 1, 2, 2});
  // The scale both sizes the output (5 * 0.6 = 3) and sets the step 1/0.6.
  a.scale = {1.0f, 0.6f};
  v2(arange(Shape{1, 1, 1, 5}), out, a);
  check_values(out, Shape{1, 1, 1, 3}, {0, 1, 3});
}

TEST_CASE("interp: size sources in Paddle's priority", "[interp]") {
  Tensor x = arange(Shape{2, 3, 4, 5}), out;
  InterpAttrs a = attrs("bilinear", 7, 8, false, 0);
  v2(x, out, a);
  CHECK(out.shape() == Shape{2, 3, 7, 8});
  a.scale = {0.5f, 2.0f};  // the scale attribute beats out_h/out_w
  v2(x, out, a);
  CHECK(out.shape() == Shape{2, 3, 2, 10});
  Tensor scale = f32(Shape{1}, {1.5f});  // the Scale tensor beats the attribute; one value for both
  v2(x, out, a, nullptr, nullptr, 0, &scale);
  CHECK(out.shape() == Shape{2, 3, 6, 7});
  Tensor out_size = i32(Shape{2}, {3, 9});  // OutSize beats both scales
  v2(x, out, a, &out_size, nullptr, 0, &scale);
  CHECK(out.shape() == Shape{2, 3, 3, 9});
  Tensor h = i64(Shape{1}, {5}), w = i32(Shape{1}, {6});  // SizeTensor beats everything
  const Tensor* sizes[] = {&h, &w};
  v2(x, out, a, &out_size, sizes, 2, &scale);
  CHECK(out.shape() == Shape{2, 3, 5, 6});
  // v1: one float scale for both dims.
  InterpV1Attrs v1;
  v1.interp_method = "nearest";
  v1.scale = 2.0f;
  kernels::nearest_interp(x, nullptr, nullptr, 0, nullptr, out, v1);
  CHECK(out.shape() == Shape{2, 3, 8, 10});
}

TEST_CASE("interp: NHWC agrees with NCHW", "[interp]") {
  std::mt19937 rng(5);
  Tensor x = random(Shape{2, 3, 5, 4}, DType::kFP32, rng);
  Tensor xh = to_nhwc(x);
  for (const char* m : {"nearest", "bilinear"})
    for (int mode : {0, 1})
      for (bool ac : {false, true}) {
        InterpAttrs a = attrs(m, 7, 3, ac, mode);
        Tensor o, oh;
        v2(x, o, a);
        a.data_layout = "NHWC";
        v2(xh, oh, a);
        Tensor want = to_nhwc(o);
        REQUIRE(oh.shape() == want.shape());
        for (int64_t i = 0; i < want.numel(); ++i) CHECK(get(oh, i) == Approx(get(want, i)).margin(1e-6));
      }
}

TEST_CASE("interp: bad inputs fail with a reason", "[interp]") {
  Tensor out;
  CHECK_THROWS_WITH(v2(arange(Shape{1, 2, 3}), out, attrs("bilinear", 2, 2, true)), Catch::Contains("rank 4"));
  InterpAttrs a = attrs("bicubic", 2, 2, true);
  CHECK_THROWS_WITH(v2(arange(Shape{1, 1, 2, 2}), out, a), Catch::Contains("bicubic"));
  CHECK_THROWS_WITH(v2(arange(Shape{1, 1, 2, 2}), out, attrs("bilinear", 0, 2, true)), Catch::Contains("positive"));
  Tensor h = i32(Shape{1}, {2});
  const Tensor* one[] = {&h};
  CHECK_THROWS_WITH(v2(arange(Shape{1, 1, 2, 2}), out, attrs("bilinear", 2, 2, true), nullptr, one, 1),
                    Catch::Contains("SizeTensor"));
}

TEST_CASE("interp: gradients", "[interp]") {
  struct Case {
    const char* op;
    const char* method;
    int oh, ow;
    bool ac;
    int mode;
    const char* layout;
    DType dt;
  };
  const Case cases[] = {
      {"bilinear_interp_v2", "bilinear", 7, 3, false, 0, "NCHW", DType::kFP64},
      {"bilinear_interp_v2", "bilinear", 6, 9, true, 1, "NHWC", DType::kFP64},
      {"bilinear_interp_v2", "bilinear", 2, 8, false, 1, "NCHW", DType::kFP32},
      {"nearest_interp_v2", "nearest", 7, 3, false, 0, "NCHW", DType::kFP64},
      {"nearest_interp_v2", "nearest", 3, 9, true, 1, "NHWC", DType::kFP32},
  };
  for (const Case& k : cases) {
    std::mt19937 rng(11);
    Tensor x = random(Shape{2, 3, 4, 5}, k.dt, rng);
    if (std::string(k.layout) == "NHWC") x = to_nhwc(x);
    InterpAttrs a = attrs(k.method, k.oh, k.ow, k.ac, k.mode);
    a.data_layout = k.layout;
    INFO(k.op << " " << k.layout << " align_corners " << k.ac << " align_mode " << k.mode);
    CHECK_GRADCHECK_OP(k.op, {&x}, [&](Tensor& out) { v2(x, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         if (a.interp_method == "nearest")
                           kernels::nearest_interp_v2_grad(x, nullptr, nullptr, 0, nullptr, dout, g[0], a);
                         else
                           kernels::bilinear_interp_v2_grad(x, nullptr, nullptr, 0, nullptr, dout, g[0], a);
                       });
  }
  // v1 with a scale (step 1/scale) and a run-time OutSize.
  std::mt19937 rng(12);
  Tensor x = random(Shape{1, 2, 3, 4}, DType::kFP64, rng);
  Tensor out_size = i32(Shape{2}, {5, 7});
  InterpV1Attrs v1;
  v1.align_corners = false;
  v1.align_mode = 0;
  v1.scale = 1.7f;
  CHECK_GRADCHECK_OP("bilinear_interp", {&x},
                     [&](Tensor& out) { kernels::bilinear_interp(x, &out_size, nullptr, 0, nullptr, out, v1); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       kernels::bilinear_interp_grad(x, &out_size, nullptr, 0, nullptr, dout, g[0], v1);
                     });
  v1.interp_method = "nearest";
  CHECK_GRADCHECK_OP("nearest_interp", {&x},
                     [&](Tensor& out) { kernels::nearest_interp(x, nullptr, nullptr, 0, nullptr, out, v1); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       kernels::nearest_interp_grad(x, nullptr, nullptr, 0, nullptr, dout, g[0], v1);
                     });
}
