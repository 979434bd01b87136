// kernels/cpu/sequence_gru.cc - gru (Fluid's dynamic_gru) over LoD sequences, and its gradient by backpropagation through time.
#include <algorithm>
#include <vector>

#include "kernels/cpu/gru_step.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rnn_act.h"
#include "kernels/sequence.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;
using rnn_act::Act;

struct Geometry {
  int64_t rows = 0, d = 0, sequences = 0;
  const std::vector<uint64_t>* lod = nullptr;
};

Geometry check(const char* op, const Tensor& input, const Tensor* h0, const Tensor& weight, const Tensor* bias) {
  require_init(op, "Input", input);
  require_init(op, "Weight", weight);
  Geometry g;
  g.lod = &rt::last_lod_level(input, op, "Input");
  g.sequences = static_cast<int64_t>(g.lod->size()) - 1;
  if (weight.rank() != 2 || weight.dim(1) != 3 * weight.dim(0))
    rt::fail(fmt::format("{}: Weight must be [D, 3D], got {}", op, weight.shape().str()));
  g.d = weight.dim(0);
  if (input.rank() != 2 || input.dim(1) != 3 * g.d)
    rt::fail(fmt::format("{}: Input must be [rows, 3D] = [rows, {}], got {}", op, 3 * g.d, input.shape().str()));
  g.rows = input.dim(0);
  if (bias) {
    require_init(op, "Bias", *bias);
    if (bias->numel() != 3 * g.d)
      rt::fail(fmt::format("{}: Bias must be [1, 3D] = [1, {}], got {}", op, 3 * g.d, bias->shape().str()));
    require_same_dtype(op, "Input", input, "Bias", *bias);
  }
  if (h0) {
    if (!h0->initialized() || h0->numel() != g.sequences * g.d)
      rt::fail(fmt::format("{}: H0 must be [sequences, D] = [{}, {}]", op, g.sequences, g.d));
    require_same_dtype(op, "Input", input, "H0", *h0);
  }
  require_same_dtype(op, "Input", input, "Weight", weight);
  return g;
}

// Per-row records of one forward pass, each in row order.
template <class T>
struct Tape {
  T* gates;      // [rows, 3D]: activated update, reset, candidate
  T* reset_h;    // [rows, D]: reset * h_prev
  T* hiddens;    // [rows, D]
  T* prev_h;     // [rows, D]: the hidden state the row started from
};

// One pass over every sequence (in its own direction), from H0 or zeros.
template <class T>
void run_forward(const Geometry& g, const Tensor& input, const Tensor* h0, const Tensor& weight, const Tensor* bias,
                 const GruAttrs& a, const Tape<T>& t) {
  const Act gate = rnn_act::activation("gru", "gate_activation", a.gate_activation),
            cand = rnn_act::activation("gru", "activation", a.activation);
  const int64_t d = g.d;
  const T* x = input.data<T>();
  const T* wg = weight.data<T>();      // [D, 2D]: update, reset
  const T* wc = wg + 2 * d * d;        // [D, D]: candidate
  const T* b = bias ? bias->data<T>() : nullptr;
  std::vector<T> h(d);
  for (int64_t s = 0; s < g.sequences; ++s) {
    const int64_t begin = static_cast<int64_t>((*g.lod)[s]), end = static_cast<int64_t>((*g.lod)[s + 1]);
    for (int64_t j = 0; j < d; ++j) h[j] = h0 ? h0->data<T>()[s * d + j] : T(0);
    for (int64_t k = 0; k < end - begin; ++k) {
      const int64_t r = a.is_reverse ? end - 1 - k : begin + k;
      std::copy(h.begin(), h.end(), t.prev_h + r * d);
      gru_step(x + r * 3 * d, b, h.data(), wg, wc, d, gate, cand, a.origin_mode, t.gates + r * 3 * d,
               t.reset_h + r * d, h.data());
      std::copy(h.begin(), h.end(), t.hiddens + r * d);
    }
  }
}

}  // namespace

void gru(const Tensor& input, const Tensor* h0, const Tensor& weight, const Tensor* bias, Tensor& hidden,
         Tensor* batch_gate, Tensor* batch_reset_hidden_prev, Tensor* batch_hidden, const GruAttrs& a) {
  const Geometry g = check("gru", input, h0, weight, bias);
  for (const Tensor* out : {&hidden, batch_gate, batch_reset_hidden_prev, batch_hidden})
    if (out && aliases(out, {&input, h0, &weight, bias})) rt::fail("gru: an output may not be an input");
  const int64_t d = g.d;
  hidden.resize(Shape{g.rows, d}, input.dtype());
  Tensor& gates = batch_gate ? *batch_gate : scratch(Slot::kTmp0);
  gates.resize(Shape{g.rows, 3 * d}, input.dtype());
  if (batch_reset_hidden_prev) batch_reset_hidden_prev->resize(Shape{g.rows, d}, input.dtype());
  Tensor& work = scratch(Slot::kTmp1);  // prev h, then r * h_prev when BatchResetHiddenPrev is not wanted
  work.resize(Shape{2, g.rows, d}, input.dtype());
  visit_float("gru", "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* reset = batch_reset_hidden_prev ? batch_reset_hidden_prev->data<T>() : work.data<T>() + g.rows * d;
    run_forward<T>(g, input, h0, weight, bias, a, Tape<T>{gates.data<T>(), reset, hidden.data<T>(), work.data<T>()});
  });
  if (batch_hidden) batch_hidden->copy_from(hidden);
  hidden.share_lod(input);
}

void gru_grad(const Tensor& input, const Tensor* h0, const Tensor& weight, const Tensor* bias, const Tensor*,
              const Tensor*, const Tensor*, const Tensor*, const Tensor& hidden_grad, Tensor* input_grad,
              Tensor* h0_grad, Tensor* weight_grad, Tensor* bias_grad, const GruAttrs& a) {
  const Geometry g = check("gru_grad", input, h0, weight, bias);
  const int64_t d = g.d, rows = g.rows;
  if (!hidden_grad.initialized() || hidden_grad.numel() != rows * d)
    rt::fail(fmt::format("gru_grad: Hidden@GRAD must be [rows, D] = [{}, {}]", rows, d));
  require_same_dtype("gru_grad", "Input", input, "Hidden@GRAD", hidden_grad);
  for (Tensor* out : {input_grad, h0_grad, weight_grad, bias_grad})
    if (out && aliases(out, {&input, h0, &weight, bias, &hidden_grad}))
      rt::fail("gru_grad: a gradient may not alias an input");
  const Act gate = rnn_act::activation("gru_grad", "gate_activation", a.gate_activation),
            cand = rnn_act::activation("gru_grad", "activation", a.activation);
  Tensor& work = scratch(Slot::kTmp0);  // gates, reset_h, hiddens, prev_h
  work.resize(Shape{rows * 6 * d}, input.dtype());
  visit_float("gru_grad", "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Tape<T> t{work.data<T>(), work.data<T>() + rows * 3 * d, work.data<T>() + rows * 4 * d,
                    work.data<T>() + rows * 5 * d};
    run_forward<T>(g, input, h0, weight, bias, a, t);
    const T* wg = weight.data<T>();
    const T* wc = wg + 2 * d * d;
    const T* dout = hidden_grad.data<T>();
    auto zeroed = [&](Tensor* out, const Shape& s) -> T* {
      if (!out) return nullptr;
      out->resize(s, input.dtype());
      std::fill(out->data<T>(), out->data<T>() + out->numel(), T(0));
      return out->data<T>();
    };
    T* gi = zeroed(input_grad, input.shape());
    T* gh0 = h0 ? zeroed(h0_grad, h0->shape()) : nullptr;
    T* gw = zeroed(weight_grad, weight.shape());
    T* gwc = gw ? gw + 2 * d * d : nullptr;
    T* gb = bias ? zeroed(bias_grad, bias->shape()) : nullptr;
    std::vector<T> dh(d), dz(3 * d), drh(d);
    for (int64_t s = 0; s < g.sequences; ++s) {
      const int64_t begin = static_cast<int64_t>((*g.lod)[s]), end = static_cast<int64_t>((*g.lod)[s + 1]);
      std::fill(dh.begin(), dh.end(), T(0));
      for (int64_t k = end - begin - 1; k >= 0; --k) {  // backwards through the order the forward ran
        const int64_t r = a.is_reverse ? end - 1 - k : begin + k;
        const T* z = t.gates + r * 3 * d;
        const T* rh = t.reset_h + r * d;
        const T* hp = t.prev_h + r * d;
        // dh becomes the gradient of h_prev.
        for (int64_t j = 0; j < d; ++j) dh[j] += dout[r * d + j];
        gru_step_grad(z, rh, hp, dh.data(), wg, wc, d, gate, cand, a.origin_mode, dz.data(), dh.data(), drh.data(),
                      gw, gwc);
        if (gi)
          for (int64_t j = 0; j < 3 * d; ++j) gi[r * 3 * d + j] = dz[j];
        if (gb)
          for (int64_t j = 0; j < 3 * d; ++j) gb[j] += dz[j];
      }
      if (gh0)
        for (int64_t j = 0; j < d; ++j) gh0[s * d + j] = dh[j];
    }
  });
}

}  // namespace fluidc::kernels
