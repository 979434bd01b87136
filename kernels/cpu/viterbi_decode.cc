// kernels/cpu/viterbi_decode.cc - viterbi_decode: Paddle 2.x's padded Viterbi decoder, in its order of operations.
//
// Paddle computes this op with whole-batch tensor arithmetic: the step-by-step
// masks multiply (alpha * (1 - m) + next * m, alpha + stop * m) rather than
// select. Each row of the batch is independent, so this walks one row at a
// time but keeps those products, so that scores and tie-breaks come out bit
// for bit as Paddle's do.
#include <limits>

#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/crf.h"
#include "kernels/shapes/crf.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The first index of the largest of v[0..n) (strictly larger than every
// earlier one, as Paddle's argmax), or -1 when none beats the lowest value
// (all NaN).
template <class T>
int64_t first_max(const T* v, int64_t n, T& top) {
  top = std::numeric_limits<T>::lowest();
  int64_t arg = -1;
  for (int64_t i = 0; i < n; ++i)
    if (v[i] > top) {
      top = v[i];
      arg = i;
    }
  return arg;
}

}  // namespace

void viterbi_decode(const Tensor& input, const Tensor& transition, const Tensor& length, Tensor& scores, Tensor& path,
                    const ViterbiDecodeAttrs& attrs) {
  const char* op = "viterbi_decode";
  require_init(op, "Input", input);
  require_init(op, "Transition", transition);
  require_same_dtype(op, "Input", input, "Transition", transition);
  for (const Tensor* o : {&scores, &path})
    if (aliases(o, {&input, &transition, &length})) rt::fail(fmt::format("{}: an output may not be an input", op));
  const bool tags = attrs.include_bos_eos_tag;
  require_rule(op, shapes::viterbi_decode_check(input.shape(), transition.shape(), length.shape(), tags));
  const int64_t batch = input.dim(0), steps = input.dim(1), n = input.dim(2);
  if (steps == 0 && batch > 0) rt::fail(fmt::format("{}: Input has no steps ({})", op, input.shape().str()));
  // A length past the padded steps would read beyond Input; a negative one is refused too (Paddle's
  // kernel runs it as 0).
  const int64_t* len = checked_indices(op, "Length", length, steps + 1);
  int64_t longest = 0;
  for (int64_t b = 0; b < batch; ++b) longest = std::max(longest, len[b]);
  scores.resize(Shape{batch}, input.dtype());
  path.resize(Shape{batch, longest}, DType::kInt64);
  Tensor& history = scratch(Slot::kTmp0);  // best previous tag of each later step and tag, one row at a time
  history.resize(Shape{std::max<int64_t>(longest - 1, 0), n}, DType::kInt64);
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* w = transition.data<T>();
    const T* stop = w + (n - 2) * n;  // with the start and stop tags: Transition's rows N-2 and N-1
    const T* start = w + (n - 1) * n;
    Tensor& buf = scratch(Slot::kAcc);
    buf.resize(Shape{2, n}, input.dtype());
    T* alpha = buf.data<T>();
    T* next = alpha + n;
    int64_t* hist = history.data<int64_t>();
    for (int64_t b = 0; b < batch; ++b) {
      const T* x = input.data<T>() + b * steps * n;
      int64_t left = len[b];
      for (int64_t j = 0; j < n; ++j) alpha[j] = tags ? x[j] + start[j] : x[j];
      if (tags) {
        const T m = left == 1 ? T(1) : T(0);
        for (int64_t j = 0; j < n; ++j) alpha[j] = alpha[j] + stop[j] * m;
      }
      --left;
      for (int64_t i = 1; i < longest; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          // alpha[k] + w[k][j] over k, each sum in T.
          T top = std::numeric_limits<T>::lowest();
          int64_t arg = -1;
          for (int64_t k = 0; k < n; ++k) {
            const T s = alpha[k] + w[k * n + j];
            if (s > top) {
              top = s;
              arg = k;
            }
          }
          hist[(i - 1) * n + j] = arg;
          next[j] = top + x[i * n + j];
        }
        const T m = left > 0 ? T(1) : T(0);
        for (int64_t j = 0; j < n; ++j) alpha[j] = alpha[j] * (T(1) - m) + next[j] * m;
        if (tags) {
          const T e = left == 1 ? T(1) : T(0);
          for (int64_t j = 0; j < n; ++j) alpha[j] = alpha[j] + stop[j] * e;
        }
        --left;
      }
      T best;
      int64_t last = first_max(alpha, n, best);
      scores.data<T>()[b] = best;
      // Back from the last step; left is now len - longest (<= 0) and counts up to each step's distance
      // from the sequence's end: the path is zero past the end, the best final tag at it, and each
      // tag's recorded predecessor before it.
      int64_t* p = path.data<int64_t>() + b * longest;
      if (longest == 0) continue;
      p[longest - 1] = left >= 0 ? last : 0;
      for (int64_t h = longest - 2; h >= 0; --h) {
        ++left;
        int64_t up = left > 0 ? (last >= 0 ? hist[h * n + last] : -1) : 0;
        if (left == 0) up = last;
        p[h] = up;
        last = (left < 0 ? last : 0) + up;
      }
    }
  });
}

}  // namespace fluidc::kernels
