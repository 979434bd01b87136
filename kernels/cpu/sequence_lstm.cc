// kernels/cpu/sequence_lstm.cc - lstm (Fluid's dynamic_lstm) over LoD sequences, and its gradient by backpropagation through time.
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rnn_act.h"
#include "kernels/sequence.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

using rnn_act::Act;
using rnn_act::apply;
using rnn_act::apply_n;
using rnn_act::slope;

struct Geometry {
  int64_t rows = 0, d = 0, sequences = 0;
  const std::vector<uint64_t>* lod = nullptr;
};

Geometry check(const char* op, const Tensor& input, const Tensor* h0, const Tensor* c0, const Tensor& weight,
               const Tensor& bias, const LstmAttrs& a) {
  require_init(op, "Input", input);
  require_init(op, "Weight", weight);
  require_init(op, "Bias", bias);
  Geometry g;
  g.lod = &rt::last_lod_level(input, op, "Input");
  g.sequences = static_cast<int64_t>(g.lod->size()) - 1;
  if (weight.rank() != 2 || weight.dim(1) != 4 * weight.dim(0))
    rt::fail(fmt::format("{}: Weight must be [D, 4D], got {}", op, weight.shape().str()));
  g.d = weight.dim(0);
  g.rows = input.dim(0);
  if (input.rank() != 2 || input.dim(1) != 4 * g.d)
    rt::fail(fmt::format("{}: Input must be [rows, 4D] = [rows, {}], got {}", op, 4 * g.d, input.shape().str()));
  const int64_t bias_width = (a.use_peepholes ? 7 : 4) * g.d;
  if (bias.numel() != bias_width)
    rt::fail(fmt::format("{}: Bias must hold {} values ([1, {}D]{}), got {}", op, bias_width,
                         a.use_peepholes ? 7 : 4, a.use_peepholes ? " with peepholes" : "", bias.shape().str()));
  for (auto [t, name] : {std::pair{h0, "H0"}, std::pair{c0, "C0"}})
    if (t && (!t->initialized() || t->numel() != g.sequences * g.d))
      rt::fail(fmt::format("{}: {} must be [sequences, D] = [{}, {}]", op, name, g.sequences, g.d));
  require_same_dtype(op, "Input", input, "Weight", weight);
  require_same_dtype(op, "Input", input, "Bias", bias);
  return g;
}

// One pass over every sequence, recording per row the activated gates
// [candidate, i, f, o] (gates), the cell (cells) and the previous h and c.
template <class T>
void run_forward(const Geometry& g, const Tensor& input, const Tensor* h0, const Tensor* c0, const Tensor& weight,
                 const Tensor& bias, const LstmAttrs& a, T* gates, T* cells, T* hiddens, T* prev_h, T* prev_c) {
  const Act gate = rnn_act::activation("lstm", "gate_activation", a.gate_activation),
            cell = rnn_act::activation("lstm", "cell_activation", a.cell_activation),
            cand = rnn_act::activation("lstm", "candidate_activation", a.candidate_activation);
  const int64_t d = g.d;
  const T* x = input.data<T>();
  const T* w = weight.data<T>();
  const T* b = bias.data<T>();
  const T* peep = a.use_peepholes ? b + 4 * d : nullptr;
  std::vector<T> h(d), c(d);
  for (int64_t s = 0; s < g.sequences; ++s) {
    const int64_t begin = static_cast<int64_t>((*g.lod)[s]), end = static_cast<int64_t>((*g.lod)[s + 1]);
    for (int64_t j = 0; j < d; ++j) {
      h[j] = h0 ? h0->data<T>()[s * d + j] : T(0);
      c[j] = c0 ? c0->data<T>()[s * d + j] : T(0);
    }
    for (int64_t k = 0; k < end - begin; ++k) {
      const int64_t r = a.is_reverse ? end - 1 - k : begin + k;
      T* z = gates + r * 4 * d;
      for (int64_t j = 0; j < 4 * d; ++j) z[j] = x[r * 4 * d + j] + b[j];
      for (int64_t i = 0; i < d; ++i) {
        const T hi = h[i];
        if (hi == T(0)) continue;
        const T* wrow = w + i * 4 * d;
        for (int64_t j = 0; j < 4 * d; ++j) z[j] += hi * wrow[j];
      }
      // Gate blocks activated as arrays (rnn_act::apply_n: vectorised for fp32);
      // the output gate's peephole needs the new cell, so it goes last.
      for (int64_t j = 0; j < d; ++j) {
        prev_h[r * d + j] = h[j];
        prev_c[r * d + j] = c[j];
      }
      if (peep)
        for (int64_t j = 0; j < d; ++j) {
          z[d + j] += c[j] * peep[j];
          z[2 * d + j] += c[j] * peep[d + j];
        }
      apply_n(cand, z, d);
      apply_n(gate, z + d, 2 * d);
      T* cn = cells + r * d;
      for (int64_t j = 0; j < d; ++j) cn[j] = c[j] = z[j] * z[d + j] + c[j] * z[2 * d + j];
      if (peep)
        for (int64_t j = 0; j < d; ++j) z[3 * d + j] += cn[j] * peep[2 * d + j];
      apply_n(gate, z + 3 * d, d);
      T* hn = hiddens + r * d;
      std::copy(cn, cn + d, hn);
      apply_n(cell, hn, d);
      for (int64_t j = 0; j < d; ++j) h[j] = hn[j] *= z[3 * d + j];
    }
  }
}

}  // namespace

void lstm(const Tensor& input, const Tensor* h0, const Tensor* c0, const Tensor& weight, const Tensor& bias,
          Tensor& hidden, Tensor& cell, Tensor* batch_gate, Tensor* batch_cell_pre_act, const LstmAttrs& a) {
  const Geometry g = check("lstm", input, h0, c0, weight, bias, a);
  for (const Tensor* out : {&hidden, &cell, batch_gate, batch_cell_pre_act})
    if (out && aliases(out, {&input, h0, c0, &weight, &bias})) rt::fail("lstm: an output may not be an input");
  const int64_t d = g.d;
  hidden.resize(Shape{g.rows, d}, input.dtype());
  cell.resize(Shape{g.rows, d}, input.dtype());
  Tensor& gates = batch_gate ? *batch_gate : scratch(Slot::kTmp0);
  gates.resize(Shape{g.rows, 4 * d}, input.dtype());
  Tensor& prev = scratch(Slot::kTmp1);
  prev.resize(Shape{2, g.rows, d}, input.dtype());
  visit_float("lstm", "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    run_forward<T>(g, input, h0, c0, weight, bias, a, gates.data<T>(), cell.data<T>(), hidden.data<T>(),
                   prev.data<T>(), prev.data<T>() + g.rows * d);
  });
  if (batch_cell_pre_act) batch_cell_pre_act->copy_from(cell);
  hidden.share_lod(input);
  cell.share_lod(input);
}

void lstm_grad(const Tensor& input, const Tensor* h0, const Tensor* c0, const Tensor& weight, const Tensor& bias,
               const Tensor*, const Tensor*, const Tensor*, const Tensor*, const Tensor& hidden_grad_ref,
               Tensor* input_grad, Tensor* h0_grad, Tensor* c0_grad, Tensor* weight_grad, Tensor* bias_grad,
               const LstmAttrs& a) {
  const Tensor* hidden_grad = &hidden_grad_ref;
  const Tensor* cell_grad = nullptr;  // Paddle's lstm_grad takes no Cell@GRAD
  const Geometry g = check("lstm_grad", input, h0, c0, weight, bias, a);
  const int64_t d = g.d, rows = g.rows;
  for (auto [t, name] : {std::pair{hidden_grad, "Hidden@GRAD"}, std::pair{cell_grad, "Cell@GRAD"}})
    if (t && (!t->initialized() || t->numel() != rows * d))
      rt::fail(fmt::format("lstm_grad: {} must be [rows, D] = [{}, {}]", name, rows, d));
  const Act gate = rnn_act::activation("lstm_grad", "gate_activation", a.gate_activation),
            cellact = rnn_act::activation("lstm_grad", "cell_activation", a.cell_activation),
            cand = rnn_act::activation("lstm_grad", "candidate_activation", a.candidate_activation);
  Tensor& work = scratch(Slot::kTmp0);  // gates, cells, hiddens, prev h, prev c
  work.resize(Shape{rows * 8 * d}, input.dtype());
  for (Tensor* out : {input_grad, h0_grad, c0_grad, weight_grad, bias_grad})
    if (out && aliases(out, {&input, h0, c0, &weight, &bias, hidden_grad, cell_grad}))
      rt::fail("lstm_grad: a gradient may not alias an input");
  visit_float("lstm_grad", "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* gates = work.data<T>();
    T* cells = gates + rows * 4 * d;
    T* hiddens = cells + rows * d;
    T* prev_h = hiddens + rows * d;
    T* prev_c = prev_h + rows * d;
    run_forward<T>(g, input, h0, c0, weight, bias, a, gates, cells, hiddens, prev_h, prev_c);
    const T* w = weight.data<T>();
    const T* peep = a.use_peepholes ? bias.data<T>() + 4 * d : nullptr;
    auto zeroed = [&](Tensor* t, const Shape& s) -> T* {
      if (!t) return nullptr;
      t->resize(s, input.dtype());
      std::fill(t->data<T>(), t->data<T>() + t->numel(), T(0));
      return t->data<T>();
    };
    T* gi = zeroed(input_grad, input.shape());
    T* gh0 = h0 ? zeroed(h0_grad, h0->shape()) : nullptr;
    T* gc0 = c0 ? zeroed(c0_grad, c0->shape()) : nullptr;
    T* gw = zeroed(weight_grad, weight.shape());
    T* gb = zeroed(bias_grad, bias.shape());
    std::vector<T> dh(d), dc(d), dz(4 * d);
    for (int64_t s = 0; s < g.sequences; ++s) {
      const int64_t begin = static_cast<int64_t>((*g.lod)[s]), end = static_cast<int64_t>((*g.lod)[s + 1]);
      std::fill(dh.begin(), dh.end(), T(0));
      std::fill(dc.begin(), dc.end(), T(0));
      for (int64_t k = end - begin - 1; k >= 0; --k) {  // backwards through the order the forward ran
        const int64_t r = a.is_reverse ? end - 1 - k : begin + k;
        const T* z = gates + r * 4 * d;
        for (int64_t j = 0; j < d; ++j) {
          const T ct = z[j], it = z[d + j], ft = z[2 * d + j], ot = z[3 * d + j];
          const T cn = cells[r * d + j], cp = prev_c[r * d + j];
          T h_grad = dh[j] + (hidden_grad ? hidden_grad->data<T>()[r * d + j] : T(0));
          T c_grad = dc[j] + (cell_grad ? cell_grad->data<T>()[r * d + j] : T(0));
          const T act_c = apply(cellact, cn);
          const T dzo = h_grad * act_c * slope(gate, ot);
          c_grad += h_grad * ot * slope(cellact, act_c);
          if (peep) c_grad += dzo * peep[2 * d + j];
          const T dzc = c_grad * it * slope(cand, ct);
          const T dzi = c_grad * ct * slope(gate, it);
          const T dzf = c_grad * cp * slope(gate, ft);
          T cp_grad = c_grad * ft;
          if (peep) {
            cp_grad += dzi * peep[j] + dzf * peep[d + j];
            if (gb) {
              gb[4 * d + j] += dzi * cp;
              gb[5 * d + j] += dzf * cp;
              gb[6 * d + j] += dzo * cn;
            }
          }
          dz[j] = dzc, dz[d + j] = dzi, dz[2 * d + j] = dzf, dz[3 * d + j] = dzo;
          dc[j] = cp_grad;
        }
        if (gi)
          for (int64_t j = 0; j < 4 * d; ++j) gi[r * 4 * d + j] = dz[j];
        if (gb)
          for (int64_t j = 0; j < 4 * d; ++j) gb[j] += dz[j];
        for (int64_t i = 0; i < d; ++i) {
          const T* wrow = w + i * 4 * d;
          const T hp = prev_h[r * d + i];
          T acc = 0;
          for (int64_t j = 0; j < 4 * d; ++j) {
            acc += dz[j] * wrow[j];
            if (gw) gw[i * 4 * d + j] += hp * dz[j];
          }
          dh[i] = acc;
        }
      }
      for (int64_t j = 0; j < d; ++j) {
        if (gh0) gh0[s * d + j] = dh[j];
        if (gc0) gc0[s * d + j] = dc[j];
      }
    }
  });
}

}  // namespace fluidc::kernels
