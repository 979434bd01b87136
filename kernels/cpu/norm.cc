// kernels/cpu/norm.cc - batch/layer/instance/group normalisation, forward and gradient.
#include "kernels/norm.h"

#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rows_f32.h"
#include "kernels/shapes/norm.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// X seen as [n, c, s] (channel-first) or [n, s, c] (channel-last);
// each() visits every element in memory order as fn(n, c, flat index).
struct Layout {
  int64_t n = 1, c = 1, s = 1;
  bool last = false;
  template <class Fn>
  void each(Fn fn) const {
    if (!last) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < c; ++k) {
          const int64_t base = (i * c + k) * s;
          for (int64_t j = 0; j < s; ++j) fn(i, k, base + j);
        }
    } else {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < s; ++j) {
          const int64_t base = (i * s + j) * c;
          for (int64_t k = 0; k < c; ++k) fn(i, k, base + k);
        }
    }
  }
};

// A per-channel (or per-group) vector input: initialised, `n` elements, X's dtype.
void require_vec(const char* op, const char* role, const Tensor& t, int64_t n, const Tensor& x) {
  require_init(op, role, t);
  if (t.numel() != n)
    rt::fail(fmt::format("{}: {} has {} elements ({}) but {} are expected for X {}", op, role, t.numel(),
                         t.shape().str(), n, x.shape().str()));
  require_same_dtype(op, "X", x, role, t);
}


template <class T>
void store(Tensor* out, const Shape& s, DType dt, const double* v) {
  if (!out) return;
  out->resize(s, dt);
  T* p = out->data<T>();
  for (int64_t i = 0, n = s.numel(); i < n; ++i) p[i] = static_cast<T>(v[i]);
}

// Sum of a contiguous run, and sum of squared deviations from m: four
// double accumulators, so the adds do not wait on each other.
template <class T>
double run_sum(const T* r, int64_t n) {
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) a0 += r[i], a1 += r[i + 1], a2 += r[i + 2], a3 += r[i + 3];
  for (; i < n; ++i) a0 += r[i];
  return (a0 + a1) + (a2 + a3);
}

template <class T>
double run_sqdev(const T* r, int64_t n, double m) {
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const double d0 = r[i] - m, d1 = r[i + 1] - m, d2 = r[i + 2] - m, d3 = r[i + 3] - m;
    a0 += d0 * d0, a1 += d1 * d1, a2 += d2 * d2, a3 += d3 * d3;
  }
  for (; i < n; ++i) a0 += (r[i] - m) * (r[i] - m);
  return (a0 + a1) + (a2 + a3);
}

// Mean and biased variance of groups of elements: group g(n, c) of each
// element, `groups` groups of `count` elements each; two passes in double.
template <class T, class GroupOf>
void moments(const Layout& L, const T* x, int64_t groups, double count, GroupOf group_of, double* mean,
             double* var) {
  for (int64_t g = 0; g < groups; ++g) mean[g] = var[g] = 0;
  const bool runs = !L.last && L.s > 1;  // each (n, c) is a contiguous run of s elements
  if (runs) {
    for (int64_t n = 0; n < L.n; ++n)
      for (int64_t c = 0; c < L.c; ++c) mean[group_of(n, c)] += run_sum(x + (n * L.c + c) * L.s, L.s);
  } else {
    L.each([&](int64_t n, int64_t c, int64_t i) { mean[group_of(n, c)] += x[i]; });
  }
  for (int64_t g = 0; g < groups; ++g) mean[g] /= count;
  if (runs) {
    for (int64_t n = 0; n < L.n; ++n)
      for (int64_t c = 0; c < L.c; ++c) {
        const int64_t g = group_of(n, c);
        var[g] += run_sqdev(x + (n * L.c + c) * L.s, L.s, mean[g]);
      }
  } else {
    L.each([&](int64_t n, int64_t c, int64_t i) {
      const int64_t g = group_of(n, c);
      const double d = x[i] - mean[g];
      var[g] += d * d;
    });
  }
  for (int64_t g = 0; g < groups; ++g) var[g] /= count;
}

// Gradient of y = xhat * scale[c] + bias[c], xhat normalised over each group
// (mean[g], inverse std inv[g], `count` elements): fills dx (when wanted)
// and accumulates dscale/dbias per channel.
template <class T, class GroupOf>
void normalized_grad(const Layout& L, const T* x, const T* dy, const T* scale, int64_t groups, double count,
                     GroupOf group_of, const double* mean, const double* inv, T* dx, double* dscale, double* dbias,
                     double* sg, double* sgx) {
  for (int64_t g = 0; g < groups; ++g) sg[g] = sgx[g] = 0;
  L.each([&](int64_t n, int64_t c, int64_t i) {
    const int64_t g = group_of(n, c);
    const double xhat = (x[i] - mean[g]) * inv[g];
    const double gv = static_cast<double>(dy[i]) * (scale ? static_cast<double>(scale[c]) : 1.0);
    sg[g] += gv;
    sgx[g] += gv * xhat;
    if (dscale) dscale[c] += dy[i] * xhat;
    if (dbias) dbias[c] += dy[i];
  });
  if (!dx) return;
  L.each([&](int64_t n, int64_t c, int64_t i) {
    const int64_t g = group_of(n, c);
    const double xhat = (x[i] - mean[g]) * inv[g];
    const double gv = static_cast<double>(dy[i]) * (scale ? static_cast<double>(scale[c]) : 1.0);
    dx[i] = static_cast<T>(inv[g] * (gv - sg[g] / count - xhat * sgx[g] / count));
  });
}

double scalar_value(const char* op, const char* role, const Tensor& t) {
  require_init(op, role, t);
  if (t.numel() != 1) rt::fail(fmt::format("{}: {} must hold one value, not {}", op, role, t.shape().str()));
  switch (t.dtype()) {
    case DType::kFP32: return *t.data<float>();
    case DType::kFP64: return *t.data<double>();
    case DType::kInt32: return *t.data<int32_t>();
    case DType::kInt64: return static_cast<double>(*t.data<int64_t>());
    default: fail_dtype(op, role, t.dtype());
  }
}

// Optional gradient outputs sized like `like`, written from double sums.
template <class T>
void store_like(Tensor* out, const Tensor& like, const double* v) {
  store<T>(out, like.shape(), like.dtype(), v);
}

}  // namespace

// ---- batch_norm ---------------------------------------------------------------

void batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean, const Tensor& variance,
                const Tensor* momentum_tensor, Tensor& y, Tensor* mean_out, Tensor* variance_out,
                Tensor* saved_mean, Tensor* saved_variance, Tensor* reserve_space, const BatchNormAttrs& a) {
  const char* op = "batch_norm";
  require_init(op, "X", x);
  int cdim = 0;
  Shape stats;
  require_rule(op, shapes::batch_norm_shape(x.shape(), a, cdim, stats));
  const int64_t C = x.dim(cdim);
  for (auto [role, t] : {std::pair{"Scale", &scale}, {"Bias", &bias}, {"Mean", &mean}, {"Variance", &variance}})
    require_vec(op, role, *t, C, x);
  const Layout L{prod(x.shape(), 0, cdim), C, prod(x.shape(), cdim + 1, x.rank()), false};
  const bool global = a.global_stats();
  const double momentum = momentum_tensor ? scalar_value(op, "MomentumTensor", *momentum_tensor) : a.momentum;
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    double* mu = zeroed(Slot::kAcc, 4 * C);  // mean, var, then per-channel multiplier and shift
    double* var = mu + C;
    double* mul = mu + 2 * C;
    double* add = mu + 3 * C;
    if (global) {
      for (int64_t c = 0; c < C; ++c) mu[c] = mean.data<T>()[c], var[c] = variance.data<T>()[c];
    } else {
      moments(L, px, C, static_cast<double>(L.n * L.s), [](int64_t, int64_t c) { return c; }, mu, var);
    }
    const T* ps = scale.data<T>();
    const T* pb = bias.data<T>();
    for (int64_t c = 0; c < C; ++c) {
      const double inv = 1.0 / std::sqrt(var[c] + static_cast<double>(a.epsilon));
      mul[c] = ps[c] * inv;
      add[c] = pb[c] - mu[c] * mul[c];
    }
    // Statistics first: Y may be X itself, and MeanOut Mean.
    if (global) {
      if (mean_out && mean_out != &mean) mean_out->copy_from(mean);
      if (variance_out && variance_out != &variance) variance_out->copy_from(variance);
      for (Tensor* t : {saved_mean, saved_variance})
        if (t) {
          t->resize(stats, x.dtype());
          t->zero();
        }
    } else {
      store<T>(saved_mean, stats, x.dtype(), mu);
      if (saved_variance) {
        saved_variance->resize(stats, x.dtype());
        T* sv = saved_variance->data<T>();
        for (int64_t c = 0; c < C; ++c) sv[c] = static_cast<T>(1.0 / std::sqrt(var[c] + a.epsilon));
      }
      // running = momentum * running + (1 - momentum) * batch, read before written.
      for (auto [in, out, batch] : {std::tuple{&mean, mean_out, mu}, {&variance, variance_out, var}}) {
        if (!out) continue;
        const T* r = in->data<T>();
        double* next = batch;  // reuse: batch values are no longer needed after this
        for (int64_t c = 0; c < C; ++c) next[c] = momentum * r[c] + (1 - momentum) * batch[c];
        store<T>(out, stats, x.dtype(), next);
      }
    }
    if (reserve_space) reserve_space->resize(Shape{0}, x.dtype());
    y.resize(x.shape(), x.dtype());
    T* py = y.data<T>();
    if (L.s == 1) {  // channel-last (or [N, C]): the channel loop is innermost
      for (int64_t n = 0; n < L.n; ++n)
        for (int64_t c = 0; c < C; ++c)
          py[n * C + c] = static_cast<T>(px[n * C + c] * static_cast<T>(mul[c]) + static_cast<T>(add[c]));
    } else {
      for (int64_t n = 0; n < L.n; ++n)
        for (int64_t c = 0; c < C; ++c) {
          const T m = static_cast<T>(mul[c]), b = static_cast<T>(add[c]);
          const int64_t base = (n * C + c) * L.s;
          for (int64_t j = 0; j < L.s; ++j) py[base + j] = px[base + j] * m + b;
        }
    }
  });
}

void batch_norm_grad(const Tensor& x, const Tensor& scale, const Tensor* /*bias*/, const Tensor* mean,
                     const Tensor* variance, const Tensor& saved_mean,
                     const Tensor& saved_variance, const Tensor* mean_out, const Tensor* variance_out,
                     const Tensor* /*reserve_space*/, const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad,
                     Tensor* bias_grad, const BatchNormAttrs& a) {
  const char* op = "batch_norm_grad";
  require_init(op, "X", x);
  int cdim = 0;
  Shape stats;
  require_rule(op, shapes::batch_norm_shape(x.shape(), a, cdim, stats));
  const int64_t C = x.dim(cdim);
  require_init(op, "Y@GRAD", y_grad);
  require_same_shape(op, "X", x, "Y@GRAD", y_grad);
  require_same_dtype(op, "X", x, "Y@GRAD", y_grad);
  require_vec(op, "Scale", scale, C, x);
  const bool global = a.global_stats();
  const Tensor* m = &saved_mean;
  const Tensor* v = &saved_variance;
  if (global) {
    m = mean ? mean : mean_out;
    v = variance ? variance : variance_out;
    if (!m || !v) rt::fail(fmt::format("{}: global statistics need Mean/Variance or MeanOut/VarianceOut", op));
  }
  require_vec(op, global ? "Mean" : "SavedMean", *m, C, x);
  require_vec(op, global ? "Variance" : "SavedVariance", *v, C, x);
  const Layout L{prod(x.shape(), 0, cdim), C, prod(x.shape(), cdim + 1, x.rank()), false};
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    double* mu = zeroed(Slot::kAcc, 6 * C);
    double* inv = mu + C;
    double* ds = mu + 2 * C;
    double* db = mu + 3 * C;
    for (int64_t c = 0; c < C; ++c) {
      mu[c] = m->data<T>()[c];
      inv[c] = global ? 1.0 / std::sqrt(static_cast<double>(v->data<T>()[c]) + a.epsilon) : v->data<T>()[c];
    }
    auto chan = [](int64_t, int64_t c) { return c; };
    const T* px = x.data<T>();
    const T* pdy = y_grad.data<T>();
    const T* ps = scale.data<T>();
    // Sums first: X@GRAD may be Y@GRAD itself.
    OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&x, &scale}));
    T* pdx = nullptr;
    if (x_grad) {
      ob.get().resize(x.shape(), x.dtype());
      pdx = ob.get().data<T>();
    }
    if (global) {
      L.each([&](int64_t, int64_t c, int64_t i) {
        ds[c] += pdy[i] * (px[i] - mu[c]) * inv[c];
        db[c] += pdy[i];
      });
      if (pdx) L.each([&](int64_t, int64_t c, int64_t i) { pdx[i] = static_cast<T>(pdy[i] * ps[c] * inv[c]); });
    } else if constexpr (std::is_same_v<T, float>) {
      batch_norm_grad_planes_f32(L.n, C, L.s, px, pdy, ps, mu, inv, pdx, ds, db);
    } else {
      normalized_grad(L, px, pdy, ps, C, static_cast<double>(L.n * L.s), chan, mu, inv, pdx, ds, db, mu + 4 * C,
                      mu + 5 * C);
    }
    if (x_grad) ob.finish();
    store_like<T>(scale_grad, scale, ds);
    store_like<T>(bias_grad, scale, db);
  });
}

// ---- layer_norm ---------------------------------------------------------------

void layer_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, Tensor& y, Tensor* mean, Tensor* variance,
                const LayerNormAttrs& a) {
  const char* op = "layer_norm";
  require_init(op, "X", x);
  int64_t left = 0, right = 0;
  Shape stats;
  require_rule(op, shapes::layer_norm_shape(x.shape(), a, left, right, stats));
  if (scale) require_vec(op, "Scale", *scale, right, x);
  if (bias) require_vec(op, "Bias", *bias, right, x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    double* mu = zeroed(Slot::kAcc, 2 * left);
    double* var = mu + left;
    const Layout L{left, 1, right, false};
    moments(L, x.data<T>(), left, static_cast<double>(right), [](int64_t n, int64_t) { return n; }, mu, var);
    store<T>(mean, stats, x.dtype(), mu);
    store<T>(variance, stats, x.dtype(), var);
    y.resize(x.shape(), x.dtype());
    const T* px = x.data<T>();
    T* py = y.data<T>();
    const T* ps = scale ? scale->data<T>() : nullptr;
    const T* pb = bias ? bias->data<T>() : nullptr;
    for (int64_t r = 0; r < left; ++r) {
      const T m = static_cast<T>(mu[r]);
      const T inv = static_cast<T>(1.0 / std::sqrt(var[r] + a.epsilon));
      const T* xr = px + r * right;
      T* yr = py + r * right;
      for (int64_t j = 0; j < right; ++j) {
        T v = (xr[j] - m) * inv;
        if (ps) v *= ps[j];
        if (pb) v += pb[j];
        yr[j] = v;
      }
    }
  });
}

void layer_norm_grad(const Tensor& x, const Tensor* scale, const Tensor* /*bias*/, const Tensor& mean,
                     const Tensor& variance, const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad,
                     Tensor* bias_grad, const LayerNormAttrs& a) {
  const char* op = "layer_norm_grad";
  require_init(op, "X", x);
  int64_t left = 0, right = 0;
  Shape stats;
  require_rule(op, shapes::layer_norm_shape(x.shape(), a, left, right, stats));
  require_init(op, "Y@GRAD", y_grad);
  require_same_shape(op, "X", x, "Y@GRAD", y_grad);
  require_same_dtype(op, "X", x, "Y@GRAD", y_grad);
  require_vec(op, "Mean", mean, left, x);
  require_vec(op, "Variance", variance, left, x);
  if (scale) require_vec(op, "Scale", *scale, right, x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    double* mu = zeroed(Slot::kAcc, 4 * left + 2 * right);
    double* inv = mu + left;
    double* ds = mu + 2 * left;
    double* db = ds + right;
    for (int64_t r = 0; r < left; ++r) {
      mu[r] = mean.data<T>()[r];
      inv[r] = 1.0 / std::sqrt(static_cast<double>(variance.data<T>()[r]) + a.epsilon);
    }
    // Rows are the groups; the scale index is the column.
    const Layout L{left, right, 1, false};
    OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&x}));
    T* pdx = nullptr;
    if (x_grad) {
      ob.get().resize(x.shape(), x.dtype());
      pdx = ob.get().data<T>();
    }
    if constexpr (std::is_same_v<T, float>) {
      // dx may be Y@GRAD (a row's sums are complete before it is written); an alias of X got OutBuf's scratch.
      layer_norm_grad_rows_f32(left, right, x.data<T>(), y_grad.data<T>(), scale ? scale->data<T>() : nullptr, mu,
                               inv, pdx, ds, db);
    } else {
      normalized_grad(L, x.data<T>(), y_grad.data<T>(), scale ? scale->data<T>() : nullptr, left,
                      static_cast<double>(right), [](int64_t n, int64_t) { return n; }, mu, inv, pdx, ds, db,
                      db + right, db + right + left);
    }
    if (x_grad) ob.finish();
    if (scale) store_like<T>(scale_grad, *scale, ds);
    store<T>(bias_grad, Shape{right}, x.dtype(), db);
  });
}

// ---- instance_norm ------------------------------------------------------------

void instance_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, Tensor& y, Tensor* saved_mean,
                   Tensor* saved_variance, const InstanceNormAttrs& a) {
  const char* op = "instance_norm";
  require_init(op, "X", x);
  Shape stats;
  require_rule(op, shapes::instance_norm_shape(x.shape(), stats));
  const Layout L{x.dim(0), x.dim(1), prod(x.shape(), 2, x.rank()), false};
  if (scale) require_vec(op, "Scale", *scale, L.c, x);
  if (bias) require_vec(op, "Bias", *bias, L.c, x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t P = L.n * L.c;
    double* mu = zeroed(Slot::kAcc, 2 * P);
    double* var = mu + P;
    const T* px = x.data<T>();
    auto plane = [C = L.c](int64_t n, int64_t c) { return n * C + c; };
    moments(L, px, P, static_cast<double>(L.s), plane, mu, var);
    for (int64_t p = 0; p < P; ++p) var[p] = 1.0 / std::sqrt(var[p] + a.epsilon);  // now the inverse std
    store<T>(saved_mean, stats, x.dtype(), mu);
    store<T>(saved_variance, stats, x.dtype(), var);
    y.resize(x.shape(), x.dtype());
    T* py = y.data<T>();
    const T* ps = scale ? scale->data<T>() : nullptr;
    const T* pb = bias ? bias->data<T>() : nullptr;
    for (int64_t p = 0; p < P; ++p) {
      const int64_t c = p % L.c;
      const T mul = static_cast<T>(var[p] * (ps ? static_cast<double>(ps[c]) : 1.0));
      const T add = static_cast<T>((pb ? static_cast<double>(pb[c]) : 0.0) - mu[p] * mul);
      for (int64_t j = p * L.s; j < (p + 1) * L.s; ++j) py[j] = px[j] * mul + add;
    }
  });
}

namespace {

/// The common part of instance_norm_grad and group_norm_grad: `stats(tag,
/// mu, inv)` fills the mean and inverse std of each of the `groups`
/// statistics; normalized_grad does the rest over `group(n, c)`, each group
/// holding `count` elements.
template <class Group, class Stats>
void grouped_norm_grad(const char* op, const Layout& L, const Tensor& x, const Tensor* scale, const Tensor& y_grad,
                       Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad, int64_t groups, double count,
                       Group group, Stats stats) {
  require_init(op, "Y@GRAD", y_grad);
  require_same_shape(op, "X", x, "Y@GRAD", y_grad);
  require_same_dtype(op, "X", x, "Y@GRAD", y_grad);
  if (scale) require_vec(op, "Scale", *scale, L.c, x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    double* mu = zeroed(Slot::kAcc, 4 * groups + 2 * L.c);
    double* inv = mu + groups;
    double* ds = mu + 2 * groups;
    double* db = ds + L.c;
    stats(tag, mu, inv);
    OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&x}));
    T* pdx = nullptr;
    if (x_grad) {
      ob.get().resize(x.shape(), x.dtype());
      pdx = ob.get().data<T>();
    }
    normalized_grad(L, x.data<T>(), y_grad.data<T>(), scale ? scale->data<T>() : nullptr, groups, count, group, mu,
                    inv, pdx, ds, db, db + L.c, db + L.c + groups);
    if (x_grad) ob.finish();
    store<T>(scale_grad, Shape{L.c}, x.dtype(), ds);
    store<T>(bias_grad, Shape{L.c}, x.dtype(), db);
  });
}

}  // namespace

void instance_norm_grad(const Tensor& x, const Tensor* scale, const Tensor& saved_mean, const Tensor& saved_variance,
                        const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad,
                        const InstanceNormAttrs& a) {
  (void)a;
  const char* op = "instance_norm_grad";
  require_init(op, "X", x);
  Shape stats;
  require_rule(op, shapes::instance_norm_shape(x.shape(), stats));
  const Layout L{x.dim(0), x.dim(1), prod(x.shape(), 2, x.rank()), false};
  const int64_t P = L.n * L.c;
  require_vec(op, "SavedMean", saved_mean, P, x);
  require_vec(op, "SavedVariance", saved_variance, P, x);
  // SavedVariance already holds the inverse std.
  grouped_norm_grad(op, L, x, scale, y_grad, x_grad, scale_grad, bias_grad, P, static_cast<double>(L.s),
                    [C = L.c](int64_t n, int64_t c) { return n * C + c; },
                    [&](auto tag, double* mu, double* inv) {
                      using T = decltype(tag);
                      for (int64_t p = 0; p < P; ++p) mu[p] = saved_mean.data<T>()[p], inv[p] = saved_variance.data<T>()[p];
                    });
}

// ---- group_norm ---------------------------------------------------------------

namespace {

Layout group_layout(const char* op, const Tensor& x, const GroupNormAttrs& a, Shape& stats) {
  require_init(op, "X", x);
  int cdim = 0;
  require_rule(op, shapes::group_norm_shape(x.shape(), a, cdim, stats));
  Layout L;
  L.n = x.dim(0);
  L.c = x.dim(cdim);
  L.last = cdim == x.rank() - 1 && x.rank() > 2;
  L.s = x.numel() / std::max<int64_t>(1, L.n * L.c);
  return L;
}

}  // namespace

void group_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, Tensor& y, Tensor* mean, Tensor* variance,
                const GroupNormAttrs& a) {
  const char* op = "group_norm";
  Shape stats;
  const Layout L = group_layout(op, x, a, stats);
  if (scale) require_vec(op, "Scale", *scale, L.c, x);
  if (bias) require_vec(op, "Bias", *bias, L.c, x);
  const int64_t G = a.groups, per = L.c / G;
  auto group = [G, per](int64_t n, int64_t c) { return n * G + c / per; };
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    double* mu = zeroed(Slot::kAcc, 2 * L.n * G);
    double* var = mu + L.n * G;
    const T* px = x.data<T>();
    moments(L, px, L.n * G, static_cast<double>(per * L.s), group, mu, var);
    store<T>(mean, stats, x.dtype(), mu);
    store<T>(variance, stats, x.dtype(), var);
    for (int64_t g = 0; g < L.n * G; ++g) var[g] = 1.0 / std::sqrt(var[g] + a.epsilon);
    y.resize(x.shape(), x.dtype());
    T* py = y.data<T>();
    const T* ps = scale ? scale->data<T>() : nullptr;
    const T* pb = bias ? bias->data<T>() : nullptr;
    L.each([&](int64_t n, int64_t c, int64_t i) {
      const int64_t g = group(n, c);
      double v = (px[i] - mu[g]) * var[g];
      if (ps) v *= ps[c];
      if (pb) v += pb[c];
      py[i] = static_cast<T>(v);
    });
  });
}

void group_norm_grad(const Tensor& x, const Tensor* scale, const Tensor* /*bias*/, const Tensor* /*y*/,
                     const Tensor& mean, const Tensor& variance, const Tensor& y_grad, Tensor* x_grad,
                     Tensor* scale_grad, Tensor* bias_grad, const GroupNormAttrs& a) {
  const char* op = "group_norm_grad";
  Shape stats;
  const Layout L = group_layout(op, x, a, stats);
  const int64_t G = a.groups, per = L.c / G, NG = L.n * G;
  require_vec(op, "Mean", mean, NG, x);
  require_vec(op, "Variance", variance, NG, x);
  grouped_norm_grad(op, L, x, scale, y_grad, x_grad, scale_grad, bias_grad, NG, static_cast<double>(per * L.s),
                    [G, per](int64_t n, int64_t c) { return n * G + c / per; },
                    [&](auto tag, double* mu, double* inv) {
                      using T = decltype(tag);
                      for (int64_t g = 0; g < NG; ++g) {
                        mu[g] = mean.data<T>()[g];
                        inv[g] = 1.0 / std::sqrt(static_cast<double>(variance.data<T>()[g]) + a.epsilon);
                      }
                    });
}

}  // namespace fluidc::kernels
