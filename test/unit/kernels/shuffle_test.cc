// test/unit/kernels/shuffle_test.cc - pixel/channel shuffles and maxout: hand-computed layouts, errors, gradients.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/shuffle.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

}  // namespace

TEST_CASE("pixel_shuffle / pixel_unshuffle: layouts and round trips", "[shuffle]") {
  k::PixelShuffleAttrs ps;
  ps.upscale_factor = 2;
  Tensor out, back;
  // Four 1x1 channels become one 2x2 plane, channel i*2+j at (i, j).
  k::pixel_shuffle(iota(Shape{1, 4, 1, 1}), out, ps);
  CHECK(out.shape() == Shape{1, 1, 2, 2});
  CHECK(values(out) == std::vector<double>{0, 1, 2, 3});
  // Channel-last: the channel run of each pixel spreads over its 2x2 block.
  ps.data_format = "NHWC";
  k::pixel_shuffle(iota(Shape{1, 1, 2, 4}), out, ps);
  CHECK(out.shape() == Shape{1, 2, 4, 1});
  CHECK(values(out) == std::vector<double>{0, 1, 4, 5, 2, 3, 6, 7});
  k::PixelUnshuffleAttrs pu;
  pu.downscale_factor = 2;
  pu.data_format = "NHWC";
  k::pixel_unshuffle(out, back, pu);
  CHECK(back.shape() == Shape{1, 1, 2, 4});
  CHECK(values(back) == values(iota(Shape{1, 1, 2, 4})));
  pu.data_format = "NCHW";
  const Tensor x = iota(Shape{2, 3, 4, 6});
  k::pixel_unshuffle(x, out, pu);
  CHECK(out.shape() == Shape{2, 12, 2, 3});
  ps.data_format = "NCHW";
  k::pixel_shuffle(out, back, ps);
  CHECK(values(back) == values(x));
  CHECK_THROWS_WITH(k::pixel_shuffle(iota(Shape{1, 3, 2, 2}), out, ps),
                    Catch::Contains("pixel_shuffle") && Catch::Contains("multiple of 2^2"));
  CHECK_THROWS_WITH(k::pixel_unshuffle(iota(Shape{1, 1, 3, 2}), out, pu), Catch::Contains("multiples of 2"));
  pu.downscale_factor = 0;
  CHECK_THROWS_WITH(k::pixel_unshuffle(iota(Shape{1, 1, 2, 2}), out, pu), Catch::Contains("must be positive"));
}

TEST_CASE("channel_shuffle: [groups, k] channels transposed, both layouts", "[shuffle]") {
  k::ChannelShuffleAttrs a;
  a.groups = 2;
  Tensor out;
  k::channel_shuffle(iota(Shape{1, 6, 1, 1}), out, a);  // channels 0..5 as [2, 3] -> [3, 2]
  CHECK(values(out) == std::vector<double>{0, 3, 1, 4, 2, 5});
  a.data_format = "NHWC";
  k::channel_shuffle(i64(Shape{1, 1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}), out, a);
  CHECK(values(out) == std::vector<double>{0, 2, 1, 3, 4, 6, 5, 7});
  a.groups = 3;
  CHECK_THROWS_WITH(k::channel_shuffle(iota(Shape{1, 1, 2, 4}), out, a), Catch::Contains("multiple of groups 3"));
  a.data_format = "NCDHW";
  CHECK_THROWS_WITH(k::channel_shuffle(iota(Shape{1, 3, 1, 1}), out, a), Catch::Contains("data_format"));
}

TEST_CASE("maxout: the max of each run of groups channels", "[shuffle][maxout]") {
  k::MaxoutAttrs a;
  a.groups = 2;
  Tensor out;
  k::maxout(f32(Shape{1, 4, 1, 1}, {1, 5, 4, 2}), out, a);
  CHECK(out.shape() == Shape{1, 2, 1, 1});
  CHECK(values(out) == std::vector<double>{5, 4});
  a.axis = -1;
  k::maxout(f32(Shape{1, 1, 2, 4}, {1, 5, 4, 2, 0, -1, 3, 3}), out, a);
  CHECK(values(out) == std::vector<double>{5, 4, 0, 3});
  Tensor dx;  // a tie: the first of the equal elements takes the gradient
  k::maxout_grad(f32(Shape{1, 1, 2, 4}, {1, 5, 4, 2, 0, -1, 3, 3}), out, f32(Shape{1, 1, 2, 2}, {1, 2, 3, 4}), &dx, a);
  CHECK(values(dx) == std::vector<double>{0, 1, 2, 0, 3, 0, 4, 0});
  a.axis = 2;
  CHECK_THROWS_WITH(k::maxout(iota(Shape{1, 2, 2, 2}), out, a), Catch::Contains("axis 2"));
  a.axis = 1;
  a.groups = 3;
  CHECK_THROWS_WITH(k::maxout(iota(Shape{1, 2, 2, 2}), out, a), Catch::Contains("multiple of groups"));
}

TEST_CASE("shuffle and maxout grads match finite differences", "[shuffle][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const char* fmt : {"NCHW", "NHWC"}) {
      INFO(fmt << " " << rt::dtype_name(dt));
      std::mt19937 rng(8);
      k::PixelShuffleAttrs ps;
      ps.upscale_factor = 2;
      ps.data_format = fmt;
      Tensor x = random(Shape{1, 8, 2, 3}, dt, rng);
      if (std::string(fmt) == "NHWC") x = random(Shape{1, 2, 3, 8}, dt, rng);
      CHECK_GRADCHECK_OP("pixel_shuffle", {&x}, [&](Tensor& out) { k::pixel_shuffle(x, out, ps); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) { k::pixel_shuffle_grad(dout, g[0], ps); });
      k::PixelUnshuffleAttrs pu;
      pu.downscale_factor = 2;
      pu.data_format = fmt;
      Tensor u = random(Shape{1, 2, 4, 4}, dt, rng);
      CHECK_GRADCHECK_OP("pixel_unshuffle", {&u}, [&](Tensor& out) { k::pixel_unshuffle(u, out, pu); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) { k::pixel_unshuffle_grad(dout, g[0], pu); });
      k::ChannelShuffleAttrs cs;
      cs.groups = 2;
      cs.data_format = fmt;
      Tensor c = random(Shape{2, 4, 2, 4}, dt, rng);
      CHECK_GRADCHECK_OP("channel_shuffle", {&c}, [&](Tensor& out) { k::channel_shuffle(c, out, cs); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) { k::channel_shuffle_grad(dout, g[0], cs); });
      k::MaxoutAttrs mo;
      mo.groups = 2;
      mo.axis = std::string(fmt) == "NHWC" ? 3 : 1;
      // Distinct values 0.05 apart: the perturbation never changes which element is the max.
      Tensor m;
      m.resize(Shape{1, 4, 2, 4}, dt);
      for (int64_t i = 0; i < m.numel(); ++i) set(m, i, 0.05 * static_cast<double>((i * 7) % 32) - 0.8);
      CHECK_GRADCHECK_OP("maxout", {&m}, [&](Tensor& out) { k::maxout(m, out, mo); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out;
                           k::maxout(m, out, mo);
                           k::maxout_grad(m, out, dout, g[0], mo);
                         });
    }
}
