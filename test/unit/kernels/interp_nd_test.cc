// test/unit/kernels/interp_nd_test.cc - linear, trilinear and bicubic resizing: hand-computed values, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/interp.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::InterpAttrs;

namespace {

InterpAttrs nd(const char* method, std::vector<float> scale, bool align_corners, int align_mode = 0,
               const char* layout = "NCHW") {
  InterpAttrs a;
  a.interp_method = method;
  a.scale = std::move(scale);
  a.align_corners = align_corners;
  a.align_mode = align_mode;
  a.data_layout = layout;
  return a;
}

using Fwd = void (*)(const Tensor&, const Tensor*, const Tensor* const*, int, const Tensor*, Tensor&,
                     const InterpAttrs&);
using Bwd = void (*)(const Tensor&, const Tensor*, const Tensor* const*, int, const Tensor*, const Tensor&, Tensor*,
                     const InterpAttrs&);

}  // namespace

TEST_CASE("linear_interp_v2: align_corners, half-pixel, sizes", "[interp]") {
  Tensor out;
  const Tensor x = f32(Shape{1, 1, 3}, {0, 3, 6});
  InterpAttrs a = nd("linear", {}, true);
  a.out_w = 5;
  kernels::linear_interp_v2(x, nullptr, nullptr, 0, nullptr, out, a);
  REQUIRE(out.shape() == Shape{1, 1, 5});
  CHECK(values(out) == std::vector<double>{0, 1.5, 3, 4.5, 6});
  // Half-pixel (align_mode 0), scale 2: sources -0.25 (clipped to 0), 0.25, 0.75, ...
  kernels::linear_interp_v2(x, nullptr, nullptr, 0, nullptr, out, nd("linear", {2}, false));
  REQUIRE(out.shape() == Shape{1, 1, 6});
  CHECK(values(out) == std::vector<double>{0, 0.75, 2.25, 3.75, 5.25, 6});
  const Tensor sz = i32(Shape{1}, {2});
  kernels::linear_interp_v2(x, &sz, nullptr, 0, nullptr, out, nd("linear", {}, true));
  CHECK(values(out) == std::vector<double>{0, 6});
  CHECK_THROWS_WITH(kernels::linear_interp_v2(f32(Shape{1, 3}, {0, 1, 2}), nullptr, nullptr, 0, nullptr, out, a),
                    Catch::Contains("rank 3"));
  CHECK_THROWS_WITH(kernels::linear_interp_v2(x, nullptr, nullptr, 0, nullptr, out, nd("bilinear", {2}, true)),
                    Catch::Contains("interp_method"));
}

TEST_CASE("trilinear_interp_v2: the corners of a cube, channel-last", "[interp]") {
  Tensor out;
  // f(d, h, w) = d + 2h + 4w over a 2x2x2 cube: linear, so any resize samples it exactly.
  std::vector<float> v;
  for (int d = 0; d < 2; ++d)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w) v.push_back(static_cast<float>(d + 2 * h + 4 * w));
  InterpAttrs a = nd("trilinear", {}, true);
  a.out_d = a.out_h = a.out_w = 3;
  kernels::trilinear_interp_v2(f32(Shape{1, 1, 2, 2, 2}, v), nullptr, nullptr, 0, nullptr, out, a);
  REQUIRE(out.shape() == Shape{1, 1, 3, 3, 3});
  CHECK(get(out, 13) == Approx(0.5 + 1 + 2));  // the centre
  CHECK(get(out, 26) == Approx(7));
  a.data_layout = "NDHWC";
  kernels::trilinear_interp_v2(f32(Shape{1, 2, 2, 2, 1}, v), nullptr, nullptr, 0, nullptr, out, a);
  REQUIRE(out.shape() == Shape{1, 3, 3, 3, 1});
  CHECK(get(out, 13) == Approx(3.5));
}

TEST_CASE("bicubic_interp_v2: reproduces a linear ramp, Keys weights sum to 1", "[interp]") {
  Tensor out;
  // A ramp along w is reproduced exactly by Keys' cubic inside the image.
  const Tensor x = f64(Shape{1, 1, 1, 6}, {0, 1, 2, 3, 4, 5});
  InterpAttrs a = nd("bicubic", {}, true);
  a.out_h = 1;
  a.out_w = 11;
  kernels::bicubic_interp_v2(x, nullptr, nullptr, 0, nullptr, out, a);
  REQUIRE(out.shape() == Shape{1, 1, 1, 11});
  for (int i = 2; i <= 8; ++i) CHECK(get(out, i) == Approx(i * 0.5));
  // A constant stays constant: the four weights sum to 1 everywhere.
  kernels::bicubic_interp_v2(f32(Shape{1, 1, 3, 3}, std::vector<float>(9, 2.5f)), nullptr, nullptr, 0, nullptr, out,
                             nd("bicubic", {1.7f, 2.3f}, false));
  for (double v : values(out)) CHECK(v == Approx(2.5));
}

TEST_CASE("linear / trilinear / bicubic grads match finite differences", "[interp][grad][gradcheck]") {
  struct Case {
    const char* op;
    Fwd fwd;
    Bwd bwd;
    Shape shape;
    InterpAttrs attrs;
  };
  const Case cases[] = {
      {"linear_interp_v2", kernels::linear_interp_v2, kernels::linear_interp_v2_grad, Shape{2, 2, 4},
       nd("linear", {1.6f}, false)},
      {"linear_interp_v2", kernels::linear_interp_v2, kernels::linear_interp_v2_grad, Shape{1, 5, 2},
       nd("linear", {0.7f}, false, 1, "NWC")},
      {"trilinear_interp_v2", kernels::trilinear_interp_v2, kernels::trilinear_interp_v2_grad, Shape{1, 2, 2, 3, 2},
       nd("trilinear", {1.5f, 1.0f, 2.0f}, false)},
      {"trilinear_interp_v2", kernels::trilinear_interp_v2, kernels::trilinear_interp_v2_grad, Shape{1, 2, 3, 2, 2},
       nd("trilinear", {0.7f, 1.5f, 1.5f}, true, 0, "NDHWC")},
      {"bicubic_interp_v2", kernels::bicubic_interp_v2, kernels::bicubic_interp_v2_grad, Shape{1, 2, 3, 4},
       nd("bicubic", {1.5f, 1.3f}, false)},
      {"bicubic_interp_v2", kernels::bicubic_interp_v2, kernels::bicubic_interp_v2_grad, Shape{1, 4, 3, 2},
       nd("bicubic", {0.8f, 2.0f}, true, 0, "NHWC")},
  };
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Case& c : cases) {
      INFO(c.op << " " << c.shape.str() << " " << rt::dtype_name(dt));
      std::mt19937 rng(21);
      Tensor x = random(c.shape, dt, rng);
      CHECK_GRADCHECK_OP(c.op, {&x}, [&](Tensor& o) { c.fwd(x, nullptr, nullptr, 0, nullptr, o, c.attrs); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           c.bwd(x, nullptr, nullptr, 0, nullptr, dout, g[0], c.attrs);
                         });
    }
}

TEST_CASE("v1 linear / trilinear / bicubic: the step is in / out even with a scale", "[interp]") {
  kernels::InterpV1Attrs a;
  a.interp_method = "linear";
  a.scale = 2.0f;  // 2 -> 4 samples; v1 steps 2/4 = 0.5 per output (v2 would too: 1/scale)
  a.align_corners = false;
  a.align_mode = 1;
  Tensor out;
  kernels::linear_interp(f32(Shape{1, 1, 2}, {0, 1}), nullptr, nullptr, 0, nullptr, out, a);
  CHECK(values(out) == std::vector<double>{0, 0.5, 1, 1});
  a.scale = 1.5f;  // 3 -> 4 samples: v1 steps 3/4, v2 1/1.5
  kernels::linear_interp(f32(Shape{1, 1, 3}, {0, 1, 2}), nullptr, nullptr, 0, nullptr, out, a);
  CHECK(values(out) == std::vector<double>{0, 0.75, 1.5, 2});  // 2.25 clamps to the last input
  // The Scale tensor's first value sizes every dim.
  const Tensor scale = f32(Shape{2}, {2.0f, 3.0f});
  a.interp_method = "trilinear";
  kernels::trilinear_interp(f32(Shape{1, 1, 1, 1, 2}, {0, 1}), nullptr, nullptr, 0, &scale, out, a);
  CHECK(out.shape() == Shape{1, 1, 2, 2, 4});
  a.interp_method = "bilinear";  // Paddle's default for every v1 op: not a bicubic request
  CHECK_THROWS_WITH(kernels::bicubic_interp(f32(Shape{1, 1, 2, 2}, {0, 1, 2, 3}), nullptr, nullptr, 0, nullptr, out, a),
                    Catch::Contains("interp_method bilinear"));
}

TEST_CASE("v1 linear / trilinear / bicubic grads match finite differences", "[interp][grad][gradcheck]") {
  using V1Fwd = void (*)(const Tensor&, const Tensor*, const Tensor* const*, int, const Tensor*, Tensor&,
                         const kernels::InterpV1Attrs&);
  using V1Bwd = void (*)(const Tensor&, const Tensor*, const Tensor* const*, int, const Tensor*, const Tensor&,
                         Tensor*, const kernels::InterpV1Attrs&);
  struct Case {
    const char* op;
    V1Fwd fwd;
    V1Bwd bwd;
    Shape shape;
    const char* method;
    float scale;
    bool align_corners;
  };
  const Case cases[] = {
      {"linear_interp", kernels::linear_interp, kernels::linear_interp_grad, Shape{2, 2, 4}, "linear", 1.6f, false},
      {"trilinear_interp", kernels::trilinear_interp, kernels::trilinear_interp_grad, Shape{1, 2, 2, 3, 2},
       "trilinear", 1.5f, true},
      {"bicubic_interp", kernels::bicubic_interp, kernels::bicubic_interp_grad, Shape{1, 2, 3, 4}, "bicubic", 1.5f,
       false},
  };
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Case& c : cases) {
      INFO(c.op << " " << rt::dtype_name(dt));
      kernels::InterpV1Attrs a;
      a.interp_method = c.method, a.scale = c.scale, a.align_corners = c.align_corners, a.align_mode = 0;
      std::mt19937 rng(23);
      Tensor x = random(c.shape, dt, rng);
      CHECK_GRADCHECK_OP(c.op, {&x}, [&](Tensor& o) { c.fwd(x, nullptr, nullptr, 0, nullptr, o, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           c.bwd(x, nullptr, nullptr, 0, nullptr, dout, g[0], a);
                         });
    }
}
