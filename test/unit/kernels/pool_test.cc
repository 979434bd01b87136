// test/unit/kernels/pool_test.cc - pool2d/pool3d: hand-computed windows, layouts, errors, gradients.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kernels/pool.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::PoolAttrs;

namespace {

Tensor arange(const Shape& s) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  std::iota(v.begin(), v.end(), 0.0f);
  return f32(s, v);
}

PoolAttrs attrs(const char* type, std::vector<int> k, std::vector<int> s, std::vector<int> p) {
  PoolAttrs a;
  a.pooling_type = type;
  a.ksize = std::move(k);
  a.strides = std::move(s);
  a.paddings = std::move(p);
  return a;
}

void check_values(const Tensor& t, const Shape& s, const std::vector<double>& want) {
  REQUIRE(t.shape() == s);
  for (size_t i = 0; i < want.size(); ++i) CHECK(get(t, static_cast<int64_t>(i)) == Approx(want[i]).epsilon(1e-6));
}

// NCHW -> NHWC of a rank-4 fp32 tensor.
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

TEST_CASE("pool2d: max and average windows", "[pool]") {
  Tensor out;
  kernels::pool2d(arange(Shape{1, 1, 4, 4}), out, attrs("max", {2, 2}, {2, 2}, {0, 0}));
  check_values(out, Shape{1, 1, 2, 2}, {5, 7, 13, 15});

  // 5x5, window 3, stride 2, padding 1, ceil_mode (Paddle's values).
  PoolAttrs a = attrs("avg", {3, 3}, {2, 2}, {1, 1});
  a.ceil_mode = true;
  kernels::pool2d(arange(Shape{1, 1, 5, 5}), out, a);
  check_values(out, Shape{1, 1, 3, 3}, {3, 4.5, 6, 10.5, 12, 13.5, 18, 19.5, 21});
  a.exclusive = false;  // the divisor counts the padding: 9 everywhere here
  kernels::pool2d(arange(Shape{1, 1, 5, 5}), out, a);
  check_values(out, Shape{1, 1, 3, 3}, {12 / 9.0, 3, 24 / 9.0, 7, 12, 9, 8, 13, 84 / 9.0});

  // Asymmetric paddings (top 0, bottom 1, ...): the window is clipped at
  // in + pad_begin, so the last window of ones holds one element.
  PoolAttrs asym = attrs("avg", {3, 3}, {2, 2}, {0, 1, 0, 1});
  asym.ceil_mode = true;
  asym.exclusive = false;
  Tensor ones = f32(Shape{1, 1, 5, 5}, std::vector<float>(25, 1.0f));
  kernels::pool2d(ones, out, asym);
  check_values(out, Shape{1, 1, 3, 3}, std::vector<double>(9, 1.0));

  PoolAttrs same = attrs("avg", {2, 2}, {2, 2}, {0, 0});
  same.padding_algorithm = "SAME";
  kernels::pool2d(arange(Shape{1, 1, 5, 5}), out, same);
  check_values(out, Shape{1, 1, 3, 3}, {3, 5, 6.5, 13, 15, 16.5, 20.5, 22.5, 24});

  PoolAttrs valid = attrs("max", {2, 2}, {2, 2}, {1, 1});
  valid.padding_algorithm = "VALID";  // paddings ignored
  kernels::pool2d(arange(Shape{1, 1, 5, 5}), out, valid);
  check_values(out, Shape{1, 1, 2, 2}, {6, 8, 16, 18});
}

TEST_CASE("pool2d: adaptive bins and global pooling", "[pool]") {
  Tensor out;
  // Bins of 5 into 3: [0,2) [1,4) [3,5).
  PoolAttrs a = attrs("avg", {1, 3}, {1, 1}, {0, 0});
  a.adaptive = true;
  kernels::pool2d(arange(Shape{1, 1, 1, 5}), out, a);
  check_values(out, Shape{1, 1, 1, 3}, {0.5, 2, 3.5});
  a.pooling_type = "max";
  kernels::pool2d(arange(Shape{1, 1, 1, 5}), out, a);
  check_values(out, Shape{1, 1, 1, 3}, {1, 3, 4});

  PoolAttrs g = attrs("avg", {1, 1}, {1, 1}, {0, 0});
  g.global_pooling = true;
  kernels::pool2d(arange(Shape{1, 2, 2, 3}), out, g);
  check_values(out, Shape{1, 2, 1, 1}, {2.5, 8.5});
}

TEST_CASE("pool2d: NHWC agrees with NCHW", "[pool]") {
  std::mt19937 rng(3);
  Tensor x = random(Shape{2, 3, 5, 6}, DType::kFP32, rng);
  Tensor xh = to_nhwc(x);
  for (const char* type : {"max", "avg"})
    for (bool adaptive : {false, true}) {
      PoolAttrs a = attrs(type, {3, 2}, {2, 1}, {1, 0, 1, 1});
      a.adaptive = adaptive;
      a.exclusive = false;
      Tensor o1, o2;
      kernels::pool2d(x, o1, a);
      a.data_format = "NHWC";
      kernels::pool2d(xh, o2, a);
      Tensor o1h = to_nhwc(o1);
      REQUIRE(o1h.shape() == o2.shape());
      for (int64_t i = 0; i < o2.numel(); ++i) CHECK(get(o2, i) == Approx(get(o1h, i)).epsilon(1e-6));
    }
}

namespace {

// pool2d of one NCHW plane the slow way, straight from Paddle's window rule:
// window o spans [o*s - pad, min(o*s - pad + k, in + pad)), clipped to the
// input; average divides by the clipped count (exclusive) or the unclipped
// extent.
double reference_pool(const Tensor& x, int64_t plane, int64_t oh, int64_t ow, const PoolAttrs& a) {
  const int64_t H = x.dim(2), W = x.dim(3);
  auto window = [](int64_t o, int k, int s, int pad, int64_t in, int64_t& b, int64_t& e, int64_t& full) {
    b = o * s - pad;
    e = std::min<int64_t>(b + k, in + pad);
    full = e - b;
    b = std::max<int64_t>(b, 0);
    e = std::min<int64_t>(e, in);
  };
  int64_t hb, he, hf, wb, we, wf;
  window(oh, a.ksize[0], a.strides[0], a.paddings[0], H, hb, he, hf);
  window(ow, a.ksize[1], a.strides[1], a.paddings[2], W, wb, we, wf);
  const bool max = a.pooling_type == "max";
  // An empty window (padding only) or one of NaNs gives the dtype's lowest value.
  const double lowest = x.dtype() == DType::kFP32 ? std::numeric_limits<float>::lowest()
                                                  : std::numeric_limits<double>::lowest();
  double acc = max ? lowest : 0.0;
  for (int64_t h = hb; h < he; ++h)
    for (int64_t w = wb; w < we; ++w) {
      const double v = get(x, (plane * H + h) * W + w);
      acc = max ? (v > acc ? v : acc) : acc + v;
    }
  if (max) return acc;
  return acc / static_cast<double>(a.exclusive ? (he - hb) * (we - wb) : hf * wf);
}

}  // namespace

TEST_CASE("pool2d NCHW: every window shape against the window rule, interior and edges", "[pool]") {
  // Wide rows (many interior columns: the vectorised window loops) and
  // narrow ones (edges only), the specialised windows (k2s2, k3s2, k2s1,
  // k3s1, k1s1) and a generic one, with and without padding and ceil_mode.
  std::mt19937 rng(7);
  struct Case {
    int kh, kw, sh, sw, ph, pw;
    bool ceil;
  };
  const Case cases[] = {{2, 2, 2, 2, 0, 0, false}, {3, 3, 2, 2, 1, 1, false}, {3, 3, 2, 2, 1, 1, true},
                        {2, 2, 2, 1, 0, 0, false}, {2, 1, 2, 1, 0, 0, false}, {3, 3, 1, 1, 1, 1, false},
                        {2, 2, 2, 2, 1, 1, true},  {4, 4, 3, 3, 2, 1, true},  {1, 1, 1, 1, 0, 0, false},
                        {3, 2, 2, 1, 1, 0, false}};
  for (const Shape& xs : {Shape{2, 3, 9, 53}, Shape{1, 2, 6, 4}})
    for (DType dt : {DType::kFP32, DType::kFP64}) {
      Tensor x = random(xs, dt, rng);
      if (dt == DType::kFP32) set(x, 17, std::nan(""));  // a NaN loses every max, as in the one-pass loop
      for (const Case& c : cases)
        for (const char* type : {"max", "avg"})
          for (bool exclusive : {true, false}) {
            PoolAttrs a = attrs(type, {c.kh, c.kw}, {c.sh, c.sw}, {c.ph, c.ph, c.pw, c.pw});
            a.ceil_mode = c.ceil;
            a.exclusive = exclusive;
            if (xs.d[3] < c.kw) continue;
            Tensor out;
            kernels::pool2d(x, out, a);
            INFO(type << " k" << c.kh << "x" << c.kw << " s" << c.sh << "x" << c.sw << " pad " << c.ph << ","
                      << c.pw << (c.ceil ? " ceil" : "") << (exclusive ? " exclusive" : "") << " on "
                      << xs.str() << (dt == DType::kFP32 ? " fp32" : " fp64"));
            const int64_t OH = out.dim(2), OW = out.dim(3);
            int bad = 0;
            for (int64_t p = 0; p < xs.d[0] * xs.d[1]; ++p)
              for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                  const double want = reference_pool(x, p, oh, ow, a);
                  const double got = get(out, (p * OH + oh) * OW + ow);
                  // Max is exact; a sum in another order differs by roundings.
                  const bool ok = std::isnan(want) ? std::isnan(got)
                                  : a.pooling_type == "max" ? got == want
                                                             : std::fabs(got - want) <= 1e-6 * (1 + std::fabs(want));
                  bad += ok ? 0 : 1;
                }
            CHECK(bad == 0);
          }
    }
}

TEST_CASE("pool3d: max and average", "[pool]") {
  Tensor out;
  kernels::pool3d(arange(Shape{1, 1, 2, 2, 2}), out, attrs("max", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}));
  check_values(out, Shape{1, 1, 1, 1, 1}, {7});
  kernels::pool3d(arange(Shape{1, 1, 2, 2, 4}), out, attrs("avg", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}));
  // Two windows along W: mean of {0,1,4,5,8,9,12,13} and of that + 2.
  check_values(out, Shape{1, 1, 1, 1, 2}, {6.5, 8.5});
}

TEST_CASE("pool: bad shapes and attributes fail clearly", "[pool]") {
  Tensor out;
  CHECK_THROWS(kernels::pool2d(arange(Shape{1, 4, 4}), out, attrs("max", {2, 2}, {2, 2}, {0, 0})));
  CHECK_THROWS(kernels::pool2d(arange(Shape{1, 1, 4, 4}), out, attrs("sum", {2, 2}, {2, 2}, {0, 0})));
  CHECK_THROWS(kernels::pool2d(arange(Shape{1, 1, 4, 4}), out, attrs("max", {5, 5}, {1, 1}, {0, 0})));
  CHECK_THROWS(kernels::pool3d(arange(Shape{1, 1, 4, 4}), out, attrs("max", {2, 2}, {2, 2}, {0, 0})));
}

TEST_CASE("pool grads match finite differences", "[pool][grad][gradcheck]") {
  struct Case {
    const char* type;
    std::vector<int> k, s, p;
    bool exclusive, adaptive, ceil, nhwc;
  };
  const Case cases[] = {
      {"max", {2, 2}, {2, 2}, {0, 0}, true, false, false, false},
      {"max", {3, 3}, {2, 2}, {1, 1}, true, false, true, false},  // overlapping windows
      {"avg", {3, 3}, {2, 2}, {1, 1}, true, false, true, false},
      {"avg", {3, 2}, {2, 1}, {1, 0, 0, 1}, false, false, true, false},
      {"avg", {2, 3}, {1, 1}, {0, 0}, true, true, false, false},
      {"max", {2, 3}, {1, 1}, {0, 0}, true, true, false, true},
      {"avg", {3, 3}, {2, 2}, {1, 1}, false, false, false, true},
  };
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const auto& c : cases) {
      INFO(c.type << " adaptive " << c.adaptive << " nhwc " << c.nhwc << " " << rt::dtype_name(dt));
      PoolAttrs a = attrs(c.type, c.k, c.s, c.p);
      a.exclusive = c.exclusive;
      a.adaptive = c.adaptive;
      a.ceil_mode = c.ceil;
      if (c.nhwc) a.data_format = "NHWC";
      Tensor x = spread(Shape{1, 2, 5, 5}, dt, 7);
      CHECK_GRADCHECK_OP("pool2d", {&x}, [&](Tensor& out) { kernels::pool2d(x, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out;
                           kernels::pool2d(x, out, a);
                           kernels::pool2d_grad(x, out, dout, g[0], a);
                         });
    }
  for (const char* type : {"max", "avg"}) {
    PoolAttrs a = attrs(type, {2, 2, 2}, {1, 2, 1}, {0, 1, 0});
    a.exclusive = false;
    Tensor x = spread(Shape{1, 2, 3, 3, 4}, DType::kFP64, 9);
    CHECK_GRADCHECK_OP("pool3d", {&x}, [&](Tensor& out) { kernels::pool3d(x, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out;
                         kernels::pool3d(x, out, a);
                         kernels::pool3d_grad(x, out, dout, g[0], a);
                       });
  }
}
