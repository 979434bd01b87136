// kernels/cuda/pool_norm.cc - pool2d and batch_norm (and gradients) on the device: checks, then launches.
#include <string>

#include "kernels/cuda/host_fallback.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/norm.h"
#include "kernels/shapes/pool.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

// The device geometry of a channel-first pool2d; false for channel-last (the host's).
bool pool_on_device(const char* op, const DTensor& x, const PoolAttrs& a, dev::Pool2d& p, rt::Shape& out) {
  shapes::PoolGeom g;
  require_rule(op, shapes::pool_geom(x.dshape(), a, 2, g, out));
  if (g.channel_last || x.ddtype() != rt::DType::kFP32) return false;
  p.planes = g.n * g.c;
  for (int d = 0; d < 2; ++d)
    p.in[d] = g.in[d + 1], p.out[d] = g.out[d + 1], p.k[d] = g.k[d + 1], p.s[d] = g.s[d + 1], p.pad[d] = g.pad[d + 1];
  p.max = g.max, p.adaptive = g.adaptive, p.exclusive = g.exclusive;
  return true;
}

// batch_norm's [n, C, s] split around the channel dim.
dev::BatchNorm split(const char* op, const DTensor& x, const BatchNormAttrs& a, rt::Shape& stats) {
  int cdim = 0;
  require_rule(op, shapes::batch_norm_shape(x.dshape(), a, cdim, stats));
  dev::BatchNorm b;
  b.n = 1, b.s = 1, b.c = x.dshape().d[cdim];
  for (int i = 0; i < cdim; ++i) b.n *= x.dshape().d[i];
  for (int i = cdim + 1; i < x.dshape().rank; ++i) b.s *= x.dshape().d[i];
  b.eps = a.epsilon, b.momentum = a.momentum, b.global = a.global_stats();
  return b;
}

float* f_out(DTensor* t, const rt::Shape& s) {
  if (!t) return nullptr;
  t->dresize(s, rt::DType::kFP32);
  return f(*t);
}

}  // namespace

void pool2d(const DTensor& x, DTensor& out, const PoolAttrs& attrs) {
  const char* op = "pool2d";
  require_dev(op, "X", x);
  dev::Pool2d p;
  rt::Shape s;
  if (!pool_on_device(op, x, attrs, p, s)) return run_on_host({&x}, {&out}, [&] { kernels::pool2d(x, out, attrs); });
  if (same_storage(out, x)) rt::fail("pool2d: Out must not share storage with X");
  out.dresize(s, rt::DType::kFP32);
  dev::pool2d(f(x), f(out), p, stream());
  cu::launched(op);
}

void pool2d_grad(const DTensor& x, const DTensor& out, const DTensor& out_grad, DTensor* x_grad,
                 const PoolAttrs& attrs) {
  const char* op = "pool2d_grad";
  if (!x_grad) return;
  require_dev(op, "X", x);
  require_dev(op, "Out@GRAD", out_grad);
  dev::Pool2d p;
  rt::Shape s;
  if (!pool_on_device(op, x, attrs, p, s) || out_grad.ddtype() != rt::DType::kFP32)
    return run_on_host({&x, &out, &out_grad}, {x_grad}, [&] { kernels::pool2d_grad(x, out, out_grad, x_grad, attrs); });
  if (out_grad.dshape() != s) rt::fail(std::string(op) + ": Out@GRAD " + out_grad.dshape().str() + " is not " + s.str());
  if (p.max) require_f32(op, "Out", out);
  if (same_storage(*x_grad, x) || same_storage(*x_grad, out_grad) || (p.max && same_storage(*x_grad, out)))
    rt::fail("pool2d_grad: X@GRAD must not share storage with an input");
  x_grad->dresize(x.dshape(), rt::DType::kFP32);
  dev::pool2d_grad(f(x), p.max ? f(out) : nullptr, f(out_grad), f(*x_grad), p, stream());
  cu::launched(op);
}

void batch_norm(const DTensor& x, const DTensor& scale, const DTensor& bias, const DTensor& mean,
                const DTensor& variance, const DTensor* momentum_tensor, DTensor& y, DTensor* mean_out,
                DTensor* variance_out, DTensor* saved_mean, DTensor* saved_variance, DTensor* reserve_space,
                const BatchNormAttrs& attrs) {
  const char* op = "batch_norm";
  require_f32(op, "X", x);
  rt::Shape stats;
  const dev::BatchNorm b = split(op, x, attrs, stats);
  for (auto [role, t] : {std::pair{"Scale", &scale}, {"Bias", &bias}, {"Mean", &mean}, {"Variance", &variance}})
    require_f32_count(op, role, *t, b.c);
  if (momentum_tensor) require_f32_count(op, "MomentumTensor", *momentum_tensor, 1);
  float* mul_add = static_cast<float*>(cu::current().scratch(2 * static_cast<size_t>(b.c) * sizeof(float)));
  // The statistics first (they read X; Y may be X itself), then Y.
  dev::batch_norm_stats(f(x), f(scale), f(bias), f(mean), f(variance), f_or_null(momentum_tensor),
                        f_out(mean_out, stats), f_out(variance_out, stats), f_out(saved_mean, stats),
                        f_out(saved_variance, stats), mul_add, b, stream());
  if (reserve_space) reserve_space->dresize(rt::Shape{0}, rt::DType::kFP32);
  y.dresize(x.dshape(), rt::DType::kFP32);
  dev::batch_norm_apply(f(x), mul_add, f(y), b, stream());
  cu::launched(op);
}

void batch_norm_grad(const DTensor& x, const DTensor& scale, const DTensor* /*bias*/, const DTensor* mean,
                     const DTensor* variance, const DTensor& saved_mean, const DTensor& saved_variance,
                     const DTensor* mean_out, const DTensor* variance_out, const DTensor* /*reserve_space*/,
                     const DTensor& y_grad, DTensor* x_grad, DTensor* scale_grad, DTensor* bias_grad,
                     const BatchNormAttrs& attrs) {
  const char* op = "batch_norm_grad";
  require_f32(op, "X", x);
  require_f32(op, "Y@GRAD", y_grad);
  if (y_grad.dshape() != x.dshape())
    rt::fail(std::string(op) + ": Y@GRAD " + y_grad.dshape().str() + " does not match X " + x.dshape().str());
  rt::Shape stats;
  const dev::BatchNorm b = split(op, x, attrs, stats);
  require_f32_count(op, "Scale", scale, b.c);
  const DTensor* m = &saved_mean;
  const DTensor* v = &saved_variance;
  if (b.global) {
    m = mean ? mean : mean_out;
    v = variance ? variance : variance_out;
    if (!m || !v) rt::fail(std::string(op) + ": global statistics need Mean/Variance or MeanOut/VarianceOut");
  }
  require_f32_count(op, b.global ? "Mean" : "SavedMean", *m, b.c);
  require_f32_count(op, b.global ? "Variance" : "SavedVariance", *v, b.c);
  // dx is written after every channel's sums are complete, so it may be Y@GRAD itself; not X (it is read).
  if (x_grad && same_storage(*x_grad, x)) rt::fail("batch_norm_grad: X@GRAD must not share storage with X");
  double* sums = static_cast<double*>(cu::current().scratch(2 * static_cast<size_t>(b.c) * sizeof(double)));
  float* dx = nullptr;
  if (x_grad) {
    x_grad->dresize(x.dshape(), rt::DType::kFP32);
    dx = f(*x_grad);
  }
  dev::batch_norm_grad(f(x), f(scale), f(*m), f(*v), f(y_grad), dx, f_out(scale_grad, scale.dshape()),
                       f_out(bias_grad, scale.dshape()), sums, b, stream());
  cu::launched(op);
}

}  // namespace fluidc::kernels::cuda
