// test/unit/kernels/norm_test.cc - batch/layer/instance/group norm and dropout: hand values, identities, gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/norm.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

void check_close(const Tensor& got, const std::vector<double>& want, double eps = 1e-5) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    CHECK(get(got, static_cast<int64_t>(i)) == Approx(want[i]).epsilon(eps).margin(1e-6));
}

void check_same(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) CHECK(get(a, i) == Approx(get(b, i)).epsilon(1e-5).margin(1e-6));
}

Tensor nchw_to_nhwc(const Tensor& x) {
  const int64_t N = x.dim(0), C = x.dim(1), S = x.numel() / (N * C);
  Tensor y;
  y.resize(Shape{N, x.dim(2), x.dim(3), C}, x.dtype());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t s = 0; s < S; ++s) set(y, (n * S + s) * C + c, get(x, (n * C + c) * S + s));
  return y;
}

}  // namespace

TEST_CASE("batch_norm training: batch statistics, saved inverse std, running update in place", "[norm]") {
  // [N=2, C=2, 1, 2]: channel 0 holds 1,2,3,4 (mean 2.5, var 1.25); channel 1 holds 0,0,2,2 (mean 1, var 1).
  Tensor x = f32(Shape{2, 2, 1, 2}, {1, 2, 0, 0, 3, 4, 2, 2});
  Tensor scale = f32(Shape{2}, {1, 2}), bias = f32(Shape{2}, {0, 1});
  Tensor running_mean = f32(Shape{2}, {0, 0}), running_var = f32(Shape{2}, {1, 1});
  Tensor y, saved_mean, saved_inv, reserve;
  kernels::BatchNormAttrs a;
  a.epsilon = 0;
  // MeanOut/VarianceOut are the very same tensors as Mean/Variance, as in Paddle's programs.
  kernels::batch_norm(x, scale, bias, running_mean, running_var, nullptr, y, &running_mean, &running_var,
                      &saved_mean, &saved_inv, &reserve, a);
  check_close(saved_mean, {2.5, 1});
  check_close(saved_inv, {1 / std::sqrt(1.25), 1});
  check_close(running_mean, {0.25, 0.1});
  check_close(running_var, {0.9 + 0.1 * 1.25, 1.0});
  const double s0 = 1 / std::sqrt(1.25);
  check_close(y, {-1.5 * s0, -0.5 * s0, -1, -1, 0.5 * s0, 1.5 * s0, 3, 3});
  CHECK(reserve.numel() == 0);

  Tensor mom = f32(Shape{1}, {0.5f});  // MomentumTensor wins over the attribute
  Tensor rm = f32(Shape{2}, {0, 0}), rv = f32(Shape{2}, {1, 1});
  kernels::batch_norm(x, scale, bias, rm, rv, &mom, y, &rm, &rv, nullptr, nullptr, nullptr, a);
  check_close(rm, {1.25, 0.5});
}

TEST_CASE("batch_norm with global statistics: per-channel scale and shift; NHWC agrees", "[norm]") {
  std::mt19937 rng(5);
  Tensor x = random(Shape{2, 3, 2, 2}, DType::kFP32, rng);
  Tensor scale = random(Shape{3}, DType::kFP32, rng), bias = random(Shape{3}, DType::kFP32, rng);
  Tensor mean = random(Shape{3}, DType::kFP32, rng), var = random(Shape{3}, DType::kFP32, rng, 0.5, 2);
  kernels::BatchNormAttrs a;
  a.is_test = true;
  Tensor y, sm, sv;
  kernels::batch_norm(x, scale, bias, mean, var, nullptr, y, nullptr, nullptr, &sm, &sv, nullptr, a);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t c = i / 4 % 3;
    CHECK(get(y, i) == Approx((get(x, i) - get(mean, c)) / std::sqrt(get(var, c) + 1e-5) * get(scale, c) +
                              get(bias, c)).epsilon(1e-5));
  }
  check_close(sm, {0, 0, 0});
  a.data_layout = "NHWC";
  Tensor yh;
  kernels::batch_norm(nchw_to_nhwc(x), scale, bias, mean, var, nullptr, yh, nullptr, nullptr, nullptr, nullptr,
                      nullptr, a);
  check_same(yh, nchw_to_nhwc(y));
  // Training in NHWC gives the NCHW result transposed.
  a.is_test = false;
  a.data_layout = "NCHW";
  kernels::batch_norm(x, scale, bias, mean, var, nullptr, y, nullptr, nullptr, nullptr, nullptr, nullptr, a);
  a.data_layout = "NHWC";
  kernels::batch_norm(nchw_to_nhwc(x), scale, bias, mean, var, nullptr, yh, nullptr, nullptr, nullptr, nullptr,
                      nullptr, a);
  check_same(yh, nchw_to_nhwc(y));
  Tensor bad = f32(Shape{2}, {1, 1});
  CHECK_THROWS(kernels::batch_norm(x, bad, bias, mean, var, nullptr, y, nullptr, nullptr, nullptr, nullptr, nullptr,
                                   a));
}

TEST_CASE("layer_norm: rows normalised, Mean and biased Variance", "[norm]") {
  Tensor x = f32(Shape{2, 1, 2}, {1, 3, 0, 4});
  Tensor scale = f32(Shape{2}, {2, 1}), bias = f32(Shape{2}, {0, 1});
  Tensor y, m, v;
  kernels::LayerNormAttrs a;
  a.epsilon = 0;
  kernels::layer_norm(x, &scale, &bias, y, &m, &v, a);
  check_close(m, {2, 2});
  check_close(v, {1, 4});
  check_close(y, {-2, 2, -2, 2});
  a.begin_norm_axis = 3;
  CHECK_THROWS(kernels::layer_norm(x, &scale, &bias, y, &m, &v, a));
}

TEST_CASE("instance_norm and group_norm: hand values and identities", "[norm]") {
  Tensor x = f32(Shape{1, 2, 1, 2}, {1, 3, 2, 6});
  Tensor y, sm, sv;
  kernels::InstanceNormAttrs ia;
  ia.epsilon = 0;
  kernels::instance_norm(x, nullptr, nullptr, y, &sm, &sv, ia);
  check_close(sm, {2, 4});
  check_close(sv, {1, 0.5});  // inverse std
  check_close(y, {-1, 1, -1, 1});

  // groups = 1: the whole sample is one group (mean 3, var 3.5).
  kernels::GroupNormAttrs ga;
  ga.epsilon = 0;
  ga.groups = 1;
  Tensor m, v;
  kernels::group_norm(x, nullptr, nullptr, y, &m, &v, ga);
  check_close(m, {3});
  check_close(v, {3.5});
  const double inv = 1 / std::sqrt(3.5);
  check_close(y, {-2 * inv, 0, -1 * inv, 3 * inv});

  // groups = C equals instance_norm, in both layouts.
  std::mt19937 rng(8);
  Tensor xr = random(Shape{2, 4, 2, 3}, DType::kFP32, rng);
  Tensor scale = random(Shape{4}, DType::kFP32, rng), bias = random(Shape{4}, DType::kFP32, rng);
  Tensor yi, yg, ygh;
  kernels::instance_norm(xr, &scale, &bias, yi, nullptr, nullptr, {});
  ga.groups = 4;
  ga.epsilon = 1e-5f;
  kernels::group_norm(xr, &scale, &bias, yg, nullptr, nullptr, ga);
  check_same(yg, yi);
  ga.groups = 2;
  kernels::group_norm(xr, &scale, &bias, yg, nullptr, nullptr, ga);
  ga.data_layout = "NHWC";
  kernels::group_norm(nchw_to_nhwc(xr), &scale, &bias, ygh, nullptr, nullptr, ga);
  check_same(ygh, nchw_to_nhwc(yg));
  ga.groups = 3;
  CHECK_THROWS(kernels::group_norm(xr, &scale, &bias, yg, nullptr, nullptr, ga));
}

TEST_CASE("dropout: test mode, keep fraction, upscaling, mask-driven gradient", "[norm][dropout]") {
  Tensor x = f32(Shape{4}, {1, 2, 3, 4});
  Tensor out, mask, dx;
  kernels::DropoutAttrs a;
  a.dropout_prob = 0.25f;
  a.is_test = true;
  kernels::dropout(x, nullptr, out, &mask, a);
  check_close(out, {0.75, 1.5, 2.25, 3});
  a.dropout_implementation = "upscale_in_train";
  kernels::dropout(x, nullptr, out, &mask, a);
  check_close(out, {1, 2, 3, 4});

  // Training: about 1 - p of 20000 ones kept, each kept one scaled by 1/(1-p).
  a.is_test = false;
  a.dropout_prob = 0.3f;
  Tensor ones = f32(Shape{20000}, std::vector<float>(20000, 1.0f));
  kernels::dropout(ones, nullptr, out, &mask, a);
  REQUIRE(mask.dtype() == DType::kUInt8);
  int64_t kept = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    const bool k = mask.data<uint8_t>()[i] != 0;
    kept += k;
    CHECK(get(out, i) == Approx(k ? 1 / 0.7 : 0.0));
  }
  // Binomial(20000, 0.7): std ~65; 5 std.
  CHECK(std::abs(kept - 14000) < 325);
  Tensor dy = f32(Shape{20000}, std::vector<float>(20000, 2.0f));
  kernels::dropout_grad(mask, dy, &dx, a);
  for (int64_t i = 0; i < dx.numel(); ++i)
    CHECK(get(dx, i) == Approx(mask.data<uint8_t>()[i] ? 2 / 0.7 : 0.0));

  // A fixed seed repeats its mask; downgrade_in_infer does not scale.
  a.fix_seed = true;
  a.seed = 42;
  a.dropout_implementation = "downgrade_in_infer";
  Tensor out2, mask2;
  kernels::dropout(ones, nullptr, out, &mask, a);
  kernels::dropout(ones, nullptr, out2, &mask2, a);
  REQUIRE(mask2.numel() == mask.numel());
  for (int64_t i = 0; i < out.numel(); ++i) {
    CHECK(mask.data<uint8_t>()[i] == mask2.data<uint8_t>()[i]);
    CHECK(get(out, i) == mask.data<uint8_t>()[i]);
  }

  a.dropout_prob = 0;  // keeps everything
  kernels::dropout(x, nullptr, out, &mask, a);
  check_close(out, {1, 2, 3, 4});
  a.dropout_prob = 1;
  a.dropout_implementation = "upscale_in_train";
  kernels::dropout(x, nullptr, out, &mask, a);
  check_close(out, {0, 0, 0, 0});
  a.dropout_prob = 1.5f;
  CHECK_THROWS(kernels::dropout(x, nullptr, out, &mask, a));
}

TEST_CASE("norm grads match finite differences", "[norm][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(21);
    Tensor x = random(Shape{3, 2, 2, 2}, dt, rng);
    Tensor scale = random(Shape{2}, dt, rng, 0.5, 1.5), bias = random(Shape{2}, dt, rng);
    Tensor rmean = random(Shape{2}, dt, rng), rvar = random(Shape{2}, dt, rng, 0.5, 1.5);
    for (bool global : {false, true})
      for (const char* layout : {"NCHW", "NHWC"}) {
        INFO("global " << global << " " << layout);
        kernels::BatchNormAttrs a;
        a.use_global_stats = global;
        a.data_layout = layout;
        CHECK_GRADCHECK_OP("batch_norm", {&x, &scale, &bias},
            [&](Tensor& y) {
              Tensor mo, vo;
              kernels::batch_norm(x, scale, bias, rmean, rvar, nullptr, y, &mo, &vo, nullptr, nullptr, nullptr, a);
            },
            [&](const Tensor& dy, std::vector<Tensor*>& g) {
              Tensor y, mo, vo, sm, sv;
              kernels::batch_norm(x, scale, bias, rmean, rvar, nullptr, y, &mo, &vo, &sm, &sv, nullptr, a);
              kernels::batch_norm_grad(x, scale, &bias, nullptr, nullptr, sm, sv, &mo, &vo, nullptr, dy, g[0], g[1], g[2],
                                       a);
            });
      }

    Tensor lscale = random(Shape{4}, dt, rng, 0.5, 1.5), lbias = random(Shape{4}, dt, rng);
    kernels::LayerNormAttrs la;
    la.begin_norm_axis = 2;
    CHECK_GRADCHECK_OP("layer_norm", {&x, &lscale, &lbias},
        [&](Tensor& y) { kernels::layer_norm(x, &lscale, &lbias, y, nullptr, nullptr, la); },
        [&](const Tensor& dy, std::vector<Tensor*>& g) {
          Tensor y, m, v;
          kernels::layer_norm(x, &lscale, &lbias, y, &m, &v, la);
          kernels::layer_norm_grad(x, &lscale, &lbias, m, v, dy, g[0], g[1], g[2], la);
        });

    CHECK_GRADCHECK_OP("instance_norm", {&x, &scale, &bias},
        [&](Tensor& y) { kernels::instance_norm(x, &scale, &bias, y, nullptr, nullptr, {}); },
        [&](const Tensor& dy, std::vector<Tensor*>& g) {
          Tensor y, m, v;
          kernels::instance_norm(x, &scale, &bias, y, &m, &v, {});
          kernels::instance_norm_grad(x, &scale, m, v, dy, g[0], g[1], g[2], {});
        });

    Tensor gx = random(Shape{2, 4, 1, 3}, dt, rng);
    Tensor gscale = random(Shape{4}, dt, rng, 0.5, 1.5), gbias = random(Shape{4}, dt, rng);
    for (const char* layout : {"NCHW", "NHWC"}) {
      kernels::GroupNormAttrs ga;
      ga.groups = 2;
      ga.data_layout = layout;
      Tensor xin = std::string(layout) == "NHWC" ? nchw_to_nhwc(gx) : random(Shape{2, 4, 1, 3}, dt, rng);
      CHECK_GRADCHECK_OP("group_norm", {&xin, &gscale, &gbias},
          [&](Tensor& y) { kernels::group_norm(xin, &gscale, &gbias, y, nullptr, nullptr, ga); },
          [&](const Tensor& dy, std::vector<Tensor*>& g) {
            Tensor y, m, v;
            kernels::group_norm(xin, &gscale, &gbias, y, &m, &v, ga);
            kernels::group_norm_grad(xin, &gscale, &gbias, &y, m, v, dy, g[0], g[1], g[2], ga);
          });
    }

    // A fixed seed makes the forward the same linear map on every call.
    kernels::DropoutAttrs da;
    da.dropout_prob = 0.4f;
    da.fix_seed = true;
    da.seed = 7;
    da.dropout_implementation = "upscale_in_train";
    CHECK_GRADCHECK_OP("dropout", {&x},
        [&](Tensor& out) {
          Tensor mask;
          kernels::dropout(x, nullptr, out, &mask, da);
        },
        [&](const Tensor& dout, std::vector<Tensor*>& g) {
          Tensor out, mask;
          kernels::dropout(x, nullptr, out, &mask, da);
          kernels::dropout_grad(mask, dout, g[0], da);
        });
  }
}

TEST_CASE("layer_norm_grad along fp32 rows (the vectorised path) agrees with fp64", "[norm]") {
  // 29 features: three 8-lane blocks and a tail (kernels/cpu/rows_f32.cc); with and without Scale,
  // and with only some gradients wanted.
  std::mt19937 rng(23);
  Tensor x = random(Shape{2, 3, 29}, DType::kFP32, rng), dy = random(Shape{2, 3, 29}, DType::kFP32, rng);
  Tensor scale = random(Shape{29}, DType::kFP32, rng, 0.5, 1.5), bias = random(Shape{29}, DType::kFP32, rng);
  kernels::LayerNormAttrs a;
  a.begin_norm_axis = 2;
  for (bool with_scale : {true, false})
    for (bool all : {true, false}) {
      INFO("scale " << with_scale << ", every gradient " << all);
      const Tensor* s32 = with_scale ? &scale : nullptr;
      Tensor y, m, v, dx, ds, db;
      kernels::layer_norm(x, s32, &bias, y, &m, &v, a);
      kernels::layer_norm_grad(x, s32, &bias, m, v, dy, &dx, with_scale && all ? &ds : nullptr, all ? &db : nullptr, a);
      Tensor x64 = converted(x, DType::kFP64), dy64 = converted(dy, DType::kFP64), s64 = converted(scale, DType::kFP64);
      Tensor m64 = converted(m, DType::kFP64), v64 = converted(v, DType::kFP64), b64 = converted(bias, DType::kFP64);
      Tensor dx64, ds64, db64;
      kernels::layer_norm_grad(x64, with_scale ? &s64 : nullptr, &b64, m64, v64, dy64, &dx64,
                               with_scale && all ? &ds64 : nullptr, all ? &db64 : nullptr, a);
      for (int64_t i = 0; i < dx.numel(); ++i) REQUIRE(get(dx, i) == Approx(get(dx64, i)).margin(1e-5));
      if (with_scale && all)
        for (int64_t i = 0; i < ds.numel(); ++i) REQUIRE(get(ds, i) == Approx(get(ds64, i)).margin(1e-5));
      if (all)
        for (int64_t i = 0; i < db.numel(); ++i) REQUIRE(get(db, i) == Approx(get(db64, i)).margin(1e-5));
    }
}

TEST_CASE("batch_norm_grad over fp32 planes (the vectorised path) agrees with fp64 and runs in place", "[norm]") {
  // 3x5 planes of 15 (one 8-lane block and a tail; kernels/cpu/rows_f32.cc), batch statistics.
  std::mt19937 rng(29);
  Tensor x = random(Shape{2, 4, 3, 5}, DType::kFP32, rng), dy = random(Shape{2, 4, 3, 5}, DType::kFP32, rng);
  Tensor scale = random(Shape{4}, DType::kFP32, rng, 0.5, 1.5), bias = random(Shape{4}, DType::kFP32, rng);
  Tensor rmean = random(Shape{4}, DType::kFP32, rng), rvar = random(Shape{4}, DType::kFP32, rng, 0.5, 1.5);
  kernels::BatchNormAttrs a;
  Tensor y, mo, vo, sm, sv, dx, ds, db;
  kernels::batch_norm(x, scale, bias, rmean, rvar, nullptr, y, &mo, &vo, &sm, &sv, nullptr, a);
  kernels::batch_norm_grad(x, scale, &bias, nullptr, nullptr, sm, sv, &mo, &vo, nullptr, dy, &dx, &ds, &db, a);
  auto f64 = [](const Tensor& t) { return converted(t, DType::kFP64); };
  Tensor x64 = f64(x), dy64 = f64(dy), s64 = f64(scale), b64 = f64(bias), sm64 = f64(sm), sv64 = f64(sv);
  Tensor mo64 = f64(mo), vo64 = f64(vo), dx64, ds64, db64;
  kernels::batch_norm_grad(x64, s64, &b64, nullptr, nullptr, sm64, sv64, &mo64, &vo64, nullptr, dy64, &dx64, &ds64,
                           &db64, a);
  for (int64_t i = 0; i < dx.numel(); ++i) REQUIRE(get(dx, i) == Approx(get(dx64, i)).margin(1e-5));
  for (int64_t i = 0; i < ds.numel(); ++i) REQUIRE(get(ds, i) == Approx(get(ds64, i)).margin(1e-5));
  for (int64_t i = 0; i < db.numel(); ++i) REQUIRE(get(db, i) == Approx(get(db64, i)).margin(1e-5));
  Tensor in_place = converted(dy, DType::kFP32);  // X@GRAD written over Y@GRAD
  kernels::batch_norm_grad(x, scale, &bias, nullptr, nullptr, sm, sv, &mo, &vo, nullptr, in_place, &in_place, nullptr,
                           nullptr, a);
  for (int64_t i = 0; i < dx.numel(); ++i) REQUIRE(get(in_place, i) == get(dx, i));
}
