// kernels/cpu/crf.cc - linear_chain_crf (scaled forward-backward, in double) and crf_decoding (Viterbi in the emission's precision).
#include <cmath>
#include <limits>

#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/crf.h"
#include "kernels/shapes/crf.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Where each sequence's rows are in the [rows, D] view of Emission.
struct Geometry {
  int64_t rows = 0, tags = 0, sequences = 0;
  const int64_t* begin = nullptr;  // first row of sequence s
  const int64_t* len = nullptr;    // its length (may be 0)
  bool padded = false;
};

// Checks Emission/Transition (and Length) and lays out the sequences in
// scratch(kAcc). The LoD form reads level 0 of Emission's LoD, as Paddle does;
// a nested LoD would make that level count sub-sequences, not rows, so it is
// refused rather than misread.
Geometry geometry(const char* op, const Tensor& emission, const Tensor& transition, const Tensor* length) {
  require_init(op, "Emission", emission);
  require_init(op, "Transition", transition);
  require_same_dtype(op, "Emission", emission, "Transition", transition);
  Geometry g;
  g.padded = length != nullptr;
  require_rule(op, shapes::crf_inputs_check(emission.shape(), transition.shape(), g.padded));
  g.tags = emission.dim(emission.rank() - 1);
  g.rows = emission.numel() / g.tags;
  Tensor& seg = scratch(Slot::kAcc);
  if (g.padded) {
    require_init(op, "Length", *length);
    const int64_t batch = emission.dim(0), steps = emission.dim(1);
    if (length->numel() != batch)
      rt::fail(fmt::format("{}: Length must hold one length per sequence ({}), got {}", op, batch,
                           length->shape().str()));
    const int64_t* n = checked_indices(op, "Length", *length, steps + 1);
    seg.resize(Shape{2, batch}, DType::kInt64);
    int64_t* s = seg.data<int64_t>();
    for (int64_t b = 0; b < batch; ++b) {
      s[b] = b * steps;
      s[batch + b] = n[b];
    }
    g.sequences = batch;
  } else {
    const rt::Lod* lod = emission.lod();
    if (lod && lod->size() != 1)
      rt::fail(fmt::format("{}: Emission must have one LoD level, got {}", op, lod->size()));
    const std::vector<uint64_t>& off = rt::last_lod_level(emission, op, "Emission");
    g.sequences = static_cast<int64_t>(off.size()) - 1;
    seg.resize(Shape{2, g.sequences}, DType::kInt64);
    int64_t* s = seg.data<int64_t>();
    for (int64_t i = 0; i < g.sequences; ++i) {
      s[i] = static_cast<int64_t>(off[i]);
      s[g.sequences + i] = static_cast<int64_t>(off[i + 1] - off[i]);
    }
  }
  g.begin = seg.data<int64_t>();
  g.len = g.begin + g.sequences;
  return g;
}

// The labels, one per row of the [rows, D] view, checked to be tags.
const int64_t* labels(const char* op, const Tensor& label, const Geometry& g) {
  require_init(op, "Label", label);
  if (label.numel() != g.rows)
    rt::fail(fmt::format("{}: Label must hold one tag per Emission row ({}), got {}", op, g.rows,
                         label.shape().str()));
  return checked_indices(op, "Label", label, g.tags);
}

// Scales v[0..n) to sum 1 and returns the sum it had.
double normalize(double* v, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += v[i];
  for (int64_t i = 0; i < n; ++i) v[i] /= s;
  return s;
}

// Forward variables of one sequence (rows x[0..len), D tags), each row scaled
// to sum 1: alpha[k][i] ∝ P(y_0..y_k with y_k = i, x_0..x_k). ex holds exp(x -
// rowmax) per row, wx exp(Transition). Returns log Z.
template <class T>
double forward_pass(const T* x, const double* ex, const double* wx, int64_t len, int64_t d, double* alpha) {
  double log_z = 0;
  for (int64_t k = 0; k < len; ++k) {
    double* a = alpha + k * d;
    for (int64_t i = 0; i < d; ++i) {
      double s = 0;
      if (k == 0) s = wx[i];  // start weights
      else
        for (int64_t j = 0; j < d; ++j) s += alpha[(k - 1) * d + j] * wx[(2 + j) * d + i];
      a[i] = s * ex[k * d + i];
    }
    T row_max = x[k * d];
    for (int64_t i = 1; i < d; ++i) row_max = std::max(row_max, x[k * d + i]);
    log_z += static_cast<double>(row_max) + std::log(normalize(a, d));
  }
  double end = 0;
  for (int64_t i = 0; i < d; ++i) end += alpha[(len - 1) * d + i] * wx[d + i];  // end weights
  return log_z + std::log(end);
}

// exp(x - rowmax(x)) for `rows` rows of `d`.
template <class T>
void row_exps(const T* x, int64_t rows, int64_t d, double* out) {
  for (int64_t r = 0; r < rows; ++r) {
    T m = x[r * d];
    for (int64_t i = 1; i < d; ++i) m = std::max(m, x[r * d + i]);
    for (int64_t i = 0; i < d; ++i) out[r * d + i] = std::exp(static_cast<double>(x[r * d + i]) - m);
  }
}

void check_outputs_apart(const char* op, std::initializer_list<const Tensor*> outs,
                         std::initializer_list<const Tensor*> ins) {
  for (const Tensor* o : outs)
    if (aliases(o, ins)) rt::fail(fmt::format("{}: an output may not be an input", op));
}

}  // namespace

void linear_chain_crf(const Tensor& emission, const Tensor& transition, const Tensor& label, const Tensor* length,
                      Tensor& alpha, Tensor& emission_exps, Tensor& transition_exps, Tensor& log_likelihood) {
  const char* op = "linear_chain_crf";
  check_outputs_apart(op, {&alpha, &emission_exps, &transition_exps, &log_likelihood},
                      {&emission, &transition, &label, length});
  const Geometry g = geometry(op, emission, transition, length);
  const int64_t* lab = labels(op, label, g);
  const int64_t d = g.tags;
  Shape ll_shape;
  require_rule(op, shapes::crf_log_likelihood_shape(emission.shape(), g.padded, g.sequences, ll_shape));
  alpha.resize(emission.shape(), emission.dtype());
  emission_exps.resize(emission.shape(), emission.dtype());
  transition_exps.resize(transition.shape(), transition.dtype());
  log_likelihood.resize(ll_shape, emission.dtype());
  for (Tensor* t : {&alpha, &emission_exps, &transition_exps, &log_likelihood}) t->clear_lod();
  Tensor& work = scratch(Slot::kTmp0);  // exp rows, exp(Transition), alpha of one sequence
  work.resize(Shape{2 * g.rows * d + (d + 2) * d}, DType::kFP64);
  double* ex = work.data<double>();
  double* wx = ex + g.rows * d;
  double* al = wx + (d + 2) * d;
  visit_float(op, "Emission", emission.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = emission.data<T>();
    const T* w = transition.data<T>();
    row_exps<T>(x, g.rows, d, ex);
    for (int64_t i = 0; i < (d + 2) * d; ++i) wx[i] = std::exp(static_cast<double>(w[i]));
    T* ao = alpha.data<T>();
    std::fill(ao, ao + g.rows * d, T(0));  // rows past a padded sequence's end
    for (int64_t i = 0; i < g.rows * d; ++i) emission_exps.data<T>()[i] = static_cast<T>(ex[i]);
    for (int64_t i = 0; i < (d + 2) * d; ++i) transition_exps.data<T>()[i] = static_cast<T>(wx[i]);
    T* ll = log_likelihood.data<T>();
    for (int64_t s = 0; s < g.sequences; ++s) {
      const int64_t b = g.begin[s], n = g.len[s];
      if (n == 0) {
        ll[s] = T(0);
        continue;
      }
      const T* xs = x + b * d;
      const int64_t* y = lab + b;
      const double log_z = forward_pass<T>(xs, ex + b * d, wx, n, d, al + b * d);
      double score = static_cast<double>(w[y[0]]) + static_cast<double>(w[d + y[n - 1]]);
      for (int64_t k = 0; k < n; ++k) {
        score += static_cast<double>(xs[k * d + y[k]]);
        if (k > 0) score += static_cast<double>(w[(2 + y[k - 1]) * d + y[k]]);
      }
      ll[s] = static_cast<T>(log_z - score);
      for (int64_t i = 0; i < n * d; ++i) ao[b * d + i] = static_cast<T>(al[b * d + i]);
    }
  });
}

void linear_chain_crf_grad(const Tensor& emission, const Tensor& transition, const Tensor& label, const Tensor* length,
                           const Tensor*, const Tensor*, const Tensor*, const Tensor& ll_grad, Tensor* emission_grad,
                           Tensor* transition_grad) {
  const char* op = "linear_chain_crf_grad";
  check_outputs_apart(op, {emission_grad, transition_grad}, {&emission, &transition, &label, length, &ll_grad});
  const Geometry g = geometry(op, emission, transition, length);
  const int64_t* lab = labels(op, label, g);
  const int64_t d = g.tags;
  require_init(op, "LogLikelihood@GRAD", ll_grad);
  if (ll_grad.numel() != g.sequences)
    rt::fail(fmt::format("{}: LogLikelihood@GRAD must hold one value per sequence ({}), got {}", op, g.sequences,
                         ll_grad.shape().str()));
  require_same_dtype(op, "Emission", emission, "LogLikelihood@GRAD", ll_grad);
  Tensor& work = scratch(Slot::kTmp0);  // exp rows, exp(Transition), alpha, beta, Transition@GRAD sums
  work.resize(Shape{3 * g.rows * d + 2 * (d + 2) * d}, DType::kFP64);
  double* ex = work.data<double>();
  double* wx = ex + g.rows * d;
  double* al = wx + (d + 2) * d;
  double* be = al + g.rows * d;
  double* gw = be + g.rows * d;
  std::fill(gw, gw + (d + 2) * d, 0.0);
  visit_float(op, "Emission", emission.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = emission.data<T>();
    const T* w = transition.data<T>();
    const T* dll = ll_grad.data<T>();
    row_exps<T>(x, g.rows, d, ex);
    for (int64_t i = 0; i < (d + 2) * d; ++i) wx[i] = std::exp(static_cast<double>(w[i]));
    T* gx = nullptr;
    if (emission_grad) {
      emission_grad->resize(emission.shape(), emission.dtype());
      gx = emission_grad->data<T>();
      std::fill(gx, gx + g.rows * d, T(0));
    }
    for (int64_t s = 0; s < g.sequences; ++s) {
      const int64_t b = g.begin[s], n = g.len[s];
      if (n == 0) continue;
      const double c = static_cast<double>(dll[s]);
      const double* e = ex + b * d;
      double* a = al + b * d;
      double* bt = be + b * d;
      const int64_t* y = lab + b;
      forward_pass<T>(x + b * d, e, wx, n, d, a);
      // Backward variables, each row scaled to sum 1: beta[k][i] ∝ P(x_k+1.. | y_k = i).
      for (int64_t i = 0; i < d; ++i) bt[(n - 1) * d + i] = wx[d + i];
      normalize(bt + (n - 1) * d, d);
      for (int64_t k = n - 2; k >= 0; --k) {
        for (int64_t i = 0; i < d; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < d; ++j) sum += wx[(2 + i) * d + j] * e[(k + 1) * d + j] * bt[(k + 1) * d + j];
          bt[k * d + i] = sum;
        }
        normalize(bt + k * d, d);
      }
      // Tag marginals P(y_k = i) = alpha * beta, row-normalised: d(log Z)/dx and, at the ends, d/d(start, end).
      for (int64_t k = 0; k < n; ++k) {
        double z = 0;
        for (int64_t i = 0; i < d; ++i) z += a[k * d + i] * bt[k * d + i];
        for (int64_t i = 0; i < d; ++i) {
          const double m = a[k * d + i] * bt[k * d + i] / z - (y[k] == i ? 1.0 : 0.0);
          if (gx) gx[(b + k) * d + i] = static_cast<T>(c * m);
          if (k == 0) gw[i] += c * m;
          if (k == n - 1) gw[d + i] += c * m;
        }
      }
      // Pairwise marginals P(y_k-1 = i, y_k = j) ∝ alpha[k-1][i] * exp(w_ij) * exp(x_k,j) * beta[k][j].
      for (int64_t k = 1; k < n; ++k) {
        double z = 0;
        for (int64_t i = 0; i < d; ++i)
          for (int64_t j = 0; j < d; ++j) z += a[(k - 1) * d + i] * wx[(2 + i) * d + j] * e[k * d + j] * bt[k * d + j];
        for (int64_t i = 0; i < d; ++i)
          for (int64_t j = 0; j < d; ++j)
            gw[(2 + i) * d + j] += c * a[(k - 1) * d + i] * wx[(2 + i) * d + j] * e[k * d + j] * bt[k * d + j] / z;
        gw[(2 + y[k - 1]) * d + y[k]] -= c;
      }
    }
    if (transition_grad) {
      transition_grad->resize(transition.shape(), transition.dtype());
      for (int64_t i = 0; i < (d + 2) * d; ++i) transition_grad->data<T>()[i] = static_cast<T>(gw[i]);
    }
  });
}

void crf_decoding(const Tensor& emission, const Tensor& transition, const Tensor* label, const Tensor* length,
                  Tensor& viterbi_path) {
  const char* op = "crf_decoding";
  check_outputs_apart(op, {&viterbi_path}, {&emission, &transition, label, length});
  const Geometry g = geometry(op, emission, transition, length);
  const int64_t* lab = label ? labels(op, *label, g) : nullptr;
  const int64_t d = g.tags;
  Shape ps;
  require_rule(op, shapes::crf_decoding_shape(emission.shape(), g.padded, ps));
  viterbi_path.resize(ps, DType::kInt64);
  int64_t* path = viterbi_path.data<int64_t>();
  std::fill(path, path + g.rows, int64_t{0});  // past a padded sequence's end
  Tensor& track = scratch(Slot::kTmp0);  // the best previous tag of each row and tag
  track.resize(Shape{g.rows, d}, DType::kInt64);
  int64_t* tr = track.data<int64_t>();
  visit_float(op, "Emission", emission.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = emission.data<T>();
    const T* w = transition.data<T>();
    Tensor& best = scratch(Slot::kOut1);  // two rows of scores
    best.resize(Shape{2, d}, emission.dtype());
    T* prev = best.data<T>();
    T* cur = prev + d;
    // Sums in T, one addition at a time, so near-ties break as Paddle's do.
    for (int64_t s = 0; s < g.sequences; ++s) {
      const int64_t b = g.begin[s], n = g.len[s];
      if (n == 0) continue;
      for (int64_t i = 0; i < d; ++i) prev[i] = w[i] + x[b * d + i];
      for (int64_t k = 1; k < n; ++k) {
        for (int64_t i = 0; i < d; ++i) {
          T top = std::numeric_limits<T>::lowest();
          int64_t arg = 0;
          for (int64_t j = 0; j < d; ++j) {
            const T score = prev[j] + w[(2 + j) * d + i];
            if (score > top) {
              top = score;
              arg = j;
            }
          }
          cur[i] = top + x[(b + k) * d + i];
          tr[(b + k) * d + i] = arg;
        }
        std::swap(prev, cur);
      }
      T top = std::numeric_limits<T>::lowest();
      int64_t arg = 0;
      for (int64_t i = 0; i < d; ++i) {
        const T score = prev[i] + w[d + i];
        if (score > top) {
          top = score;
          arg = i;
        }
      }
      for (int64_t k = n - 1; k >= 0; --k) {
        path[b + k] = arg;
        if (k > 0) arg = tr[(b + k) * d + arg];
      }
      if (lab)
        for (int64_t k = 0; k < n; ++k) path[b + k] = path[b + k] == lab[b + k] ? 1 : 0;
    }
  });
  if (g.padded) viterbi_path.clear_lod();
  else viterbi_path.share_lod(emission);
}

}  // namespace fluidc::kernels
