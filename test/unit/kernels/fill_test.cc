// test/unit/kernels/fill_test.cc - fill_constant, *_like, assign, cast and the random initialisers.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/fill.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

kernels::FillConstantAttrs fc(std::vector<int64_t> shape, DType dt, float value, std::string str = "") {
  kernels::FillConstantAttrs a;
  a.shape = std::move(shape);
  a.dtype = static_cast<int>(dt);
  a.value = value;
  a.str_value = std::move(str);
  return a;
}

kernels::CastAttrs to(DType from, DType dt) {
  kernels::CastAttrs a;
  a.in_dtype = static_cast<int>(from);
  a.out_dtype = static_cast<int>(dt);
  return a;
}

}  // namespace

TEST_CASE("fill_constant in every dtype", "[fill]") {
  Tensor out;
  for (DType dt : {DType::kFP32, DType::kFP64, DType::kInt32, DType::kInt64}) {
    kernels::fill_constant(out, fc({2, 3}, dt, 3.0f));
    CHECK(out.dtype() == dt);
    CHECK(out.shape() == Shape{2, 3});
    CHECK(values(out) == std::vector<double>(6, 3.0));
  }
  kernels::fill_constant(out, fc({2}, DType::kBool, 1.0f));
  CHECK(out.data<bool>()[0]);
  kernels::fill_constant(out, fc({}, DType::kFP32, 0.5f));
  CHECK(out.rank() == 0);
  CHECK(get(out, 0) == 0.5);
  kernels::fill_constant(out, fc({3, 0}, DType::kFP32, 1.0f));
  CHECK(out.numel() == 0);
}

TEST_CASE("fill_constant str_value wins and keeps int64 precision", "[fill]") {
  Tensor out;
  // 2^53 + 1 is not representable as float or double.
  kernels::fill_constant(out, fc({1}, DType::kInt64, 0.0f, "9007199254740993"));
  CHECK(out.data<int64_t>()[0] == 9007199254740993LL);
  kernels::fill_constant(out, fc({1}, DType::kInt64, 0.0f, "-5.0"));  // float text for an int dtype
  CHECK(out.data<int64_t>()[0] == -5);
  kernels::fill_constant(out, fc({1}, DType::kFP64, 0.0f, "0.1"));
  CHECK(out.data<double>()[0] == 0.1);
  kernels::fill_constant(out, fc({2}, DType::kFP32, 0.0f, "-inf"));
  CHECK(std::isinf(get(out, 0)));
  CHECK(get(out, 0) < 0);
  kernels::fill_constant(out, fc({1}, DType::kFP32, 0.0f, "nan"));
  CHECK(std::isnan(get(out, 0)));
  kernels::fill_constant(out, fc({1}, DType::kBool, 0.0f, "true"));
  CHECK(out.data<bool>()[0]);
  CHECK_THROWS_WITH(kernels::fill_constant(out, fc({1}, DType::kFP32, 0.0f, "abc")),
                    Catch::Contains("fill_constant") && Catch::Contains("abc"));
}

TEST_CASE("fill: invalid attributes throw rt::Error", "[fill][errors]") {
  Tensor out;
  kernels::FillConstantAttrs bad = fc({2}, DType::kFP32, 1.0f);
  bad.dtype = 99;
  CHECK_THROWS_AS(kernels::fill_constant(out, bad), rt::Error);
  CHECK_THROWS_WITH(kernels::fill_constant(out, fc({2}, DType::kFP16, 1.0f)), Catch::Contains("float16"));
  CHECK_THROWS_AS(kernels::fill_constant(out, fc({-1, 2}, DType::kFP32, 1.0f)), rt::Error);
  CHECK_THROWS_AS(kernels::fill_constant(out, fc({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, DType::kFP32, 1.0f)),
                  rt::Error);
  Tensor uninit;
  CHECK_THROWS_AS(kernels::assign(uninit, out), rt::Error);
  CHECK_THROWS_AS(kernels::cast(f32(Shape{1}, {1}), out, to(DType::kFP32, DType::kFP16)), rt::Error);
  kernels::UniformRandomAttrs u;
  u.shape = {2};
  u.min = 1.0f;
  u.max = 0.0f;
  CHECK_THROWS_AS(kernels::uniform_random(out, u), rt::Error);
  u.min = 0.0f;
  u.max = 1.0f;
  u.dtype = static_cast<int>(DType::kInt32);
  CHECK_THROWS_AS(kernels::uniform_random(out, u), rt::Error);
}

TEST_CASE("fill_any_like, fill_zeros_like, fill_zeros_like2, assign", "[fill]") {
  Tensor x = i32(Shape{2, 2}, {1, 2, 3, 4});
  Tensor out;
  kernels::FillAnyLikeAttrs a;
  a.value = 7.0f;
  kernels::fill_any_like(x, out, a);
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == std::vector<double>(4, 7.0));
  a.dtype = static_cast<int>(DType::kFP64);
  a.value = 0.25f;
  kernels::fill_any_like(x, out, a);
  CHECK(out.dtype() == DType::kFP64);
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>(4, 0.25));

  kernels::fill_zeros_like(x, out);
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == std::vector<double>(4, 0.0));

  kernels::FillZerosLike2Attrs z;
  kernels::fill_zeros_like2(x, out, z);  // float32 by default, X's dims
  CHECK(out.dtype() == DType::kFP32);
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>(4, 0.0));
  z.dtype = static_cast<int>(DType::kInt64);
  kernels::fill_zeros_like2(x, out, z);
  CHECK(out.dtype() == DType::kInt64);
  z.dtype = 99;
  CHECK_THROWS_WITH(kernels::fill_zeros_like2(x, out, z), Catch::Contains("fill_zeros_like2") && Catch::Contains("99"));

  kernels::assign(x, out);
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == values(x));
  out.data<int32_t>()[0] = 100;
  CHECK(get(x, 0) == 1);  // a deep copy

  SECTION("in place") {
    kernels::fill_any_like(x, x, a);  // dtype changes from int32 to fp64
    CHECK(x.dtype() == DType::kFP64);
    CHECK(values(x) == std::vector<double>(4, 0.25));
    kernels::assign(x, x);
    CHECK(values(x) == std::vector<double>(4, 0.25));
    kernels::fill_zeros_like(x, x);
    CHECK(values(x) == std::vector<double>(4, 0.0));
  }
}

TEST_CASE("cast between dtypes", "[fill][cast]") {
  Tensor out;
  Tensor x = f32(Shape{5}, {-1.7f, -0.2f, 0.0f, 2.9f, 3.0f});
  kernels::cast(x, out, to(DType::kFP32, DType::kInt32));
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == std::vector<double>{-1, 0, 0, 2, 3});  // truncation toward zero
  kernels::cast(x, out, to(DType::kFP32, DType::kBool));
  CHECK(values(out) == std::vector<double>{1, 1, 0, 1, 1});
  kernels::cast(x, out, to(DType::kFP32, DType::kFP64));
  CHECK(out.data<double>()[0] == static_cast<double>(-1.7f));

  Tensor b = make<bool>(Shape{2}, {true, false});
  kernels::cast(b, out, to(DType::kBool, DType::kFP64));
  CHECK(values(out) == std::vector<double>{1, 0});
  Tensor l = i64(Shape{2}, {(int64_t{1} << 40) + 1, -3});
  kernels::cast(l, out, to(DType::kInt64, DType::kFP64));
  CHECK(out.data<double>()[0] == static_cast<double>((int64_t{1} << 40) + 1));
  kernels::cast(l, out, to(DType::kInt64, DType::kInt32));
  CHECK(get(out, 1) == -3);

  SECTION("NaN and out-of-range values become the integer minimum") {
    Tensor s = f64(Shape{3}, {std::nan(""), 1e30, -1e30});
    kernels::cast(s, out, to(DType::kFP64, DType::kInt32));
    for (int i = 0; i < 3; ++i) CHECK(out.data<int32_t>()[i] == std::numeric_limits<int32_t>::min());
  }
  SECTION("the source dtype is X's own, whatever in_dtype says") {
    kernels::cast(x, out, to(DType::kInt64, DType::kInt64));
    CHECK(values(out) == std::vector<double>{-1, 0, 0, 2, 3});
  }
  SECTION("in place, growing and shrinking the element size") {
    Tensor y = i32(Shape{3}, {1, -2, 3});
    kernels::cast(y, y, to(DType::kInt32, DType::kFP64));
    CHECK(y.dtype() == DType::kFP64);
    CHECK(values(y) == std::vector<double>{1, -2, 3});
    kernels::cast(y, y, to(DType::kFP64, DType::kBool));
    CHECK(y.dtype() == DType::kBool);
    CHECK(values(y) == std::vector<double>{1, 1, 1});
    kernels::cast(y, y, to(DType::kBool, DType::kBool));
    CHECK(values(y) == std::vector<double>{1, 1, 1});
  }
}

TEST_CASE("uniform_random: range, fixed seeds, the global stream", "[fill][random]") {
  kernels::UniformRandomAttrs a;
  a.shape = {1000};
  a.min = -2.0f;
  a.max = 3.0f;
  a.seed = 7;
  Tensor p, q;
  kernels::uniform_random(p, a);
  CHECK(p.shape() == Shape{1000});
  double lo = 1e9, hi = -1e9, mean = 0;
  for (double v : values(p)) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    mean += v / 1000;
  }
  CHECK(lo >= -2.0);
  CHECK(hi < 3.0);
  CHECK(mean == Approx(0.5).margin(0.2));
  kernels::uniform_random(q, a);
  CHECK(values(p) == values(q));  // a fixed seed repeats

  a.seed = 0;
  kernels::set_global_seed(123);
  kernels::uniform_random(p, a);
  kernels::uniform_random(q, a);
  CHECK(values(p) != values(q));  // the global stream moves on
  kernels::set_global_seed(123);
  Tensor r;
  kernels::uniform_random(r, a);
  CHECK(values(p) == values(r));  // and restarts with its seed

  a.dtype = static_cast<int>(DType::kFP64);
  a.shape = {2, 3};
  kernels::uniform_random(r, a);
  CHECK(r.dtype() == DType::kFP64);
  CHECK(r.shape() == Shape{2, 3});
}

TEST_CASE("gaussian_random: moments and seeds", "[fill][random]") {
  kernels::GaussianRandomAttrs a;
  a.shape = {200, 100};
  a.mean = 1.0f;
  a.std = 2.0f;
  a.seed = 3;
  Tensor p, q;
  kernels::gaussian_random(p, a);
  double m = 0, m2 = 0;
  const double n = static_cast<double>(p.numel());
  for (double v : values(p)) {
    REQUIRE(std::isfinite(v));
    m += v / n;
    m2 += v * v / n;
  }
  // 20000 samples: the standard error of the mean is 2/sqrt(20000) = 0.014.
  CHECK(m == Approx(1.0).margin(0.06));
  CHECK(std::sqrt(m2 - m * m) == Approx(2.0).margin(0.06));
  kernels::gaussian_random(q, a);
  CHECK(values(p) == values(q));
  a.seed = 4;
  kernels::gaussian_random(q, a);
  CHECK(values(p) != values(q));
}

TEST_CASE("truncated_gaussian_random: bounds, moments and seeds", "[fill][random]") {
  kernels::GaussianRandomAttrs a;
  a.shape = {200, 100};
  a.mean = 1.0f;
  a.std = 2.0f;
  a.seed = 5;
  Tensor p, q;
  kernels::truncated_gaussian_random(p, a);
  double m = 0, m2 = 0, lo = 1e9, hi = -1e9;
  const double n = static_cast<double>(p.numel());
  for (double v : values(p)) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    m += v / n;
    m2 += v * v / n;
  }
  // Within mean -/+ 2 std, reaching near both ends; the normal truncated at 2
  // std has standard deviation 0.8796 std (1 - 2 * 2 phi(2) / (2 Phi(2) - 1)).
  CHECK(lo >= -3.0);
  CHECK(hi <= 5.0);
  CHECK(lo < -2.9);
  CHECK(hi > 4.9);
  CHECK(m == Approx(1.0).margin(0.05));
  CHECK(std::sqrt(m2 - m * m) == Approx(2.0 * 0.8796).margin(0.05));
  kernels::truncated_gaussian_random(q, a);
  CHECK(values(p) == values(q));
  a.seed = 6;
  kernels::truncated_gaussian_random(q, a);
  CHECK(values(p) != values(q));
}

TEST_CASE("the gradient rules of assign and cast match finite differences", "[fill][grad][gradcheck]") {
  // compiler/ops/fill.cc: assign's gradient is an assign of Out@GRAD; cast's
  // is a cast of Out@GRAD back from out_dtype to in_dtype.
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(61);
    Tensor x = random(Shape{2, 5}, dt, rng);
    CHECK_GRADCHECK_OP("assign", {&x}, [&](Tensor& out) { kernels::assign(x, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::assign(dout, *g[0]); });
    // fp32 -> fp64 only: the other way rounds Out to fp32, far coarser than
    // the fp64 step the checker uses for an fp64 X.
    if (dt != DType::kFP32) continue;
    kernels::CastAttrs fwd;
    fwd.in_dtype = static_cast<int>(DType::kFP32);
    fwd.out_dtype = static_cast<int>(DType::kFP64);
    kernels::CastAttrs back;
    back.in_dtype = fwd.out_dtype;
    back.out_dtype = fwd.in_dtype;
    CHECK_GRADCHECK_OP("cast", {&x}, [&](Tensor& out) { kernels::cast(x, out, fwd); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::cast(dout, *g[0], back); });
  }
}
