// kernels/cpu/rnn.cc - forward of the fused rnn op: one GEMM for every step's input projection, then the recurrence.
#include "kernels/rnn.h"

#include "kernels/cpu/rnn_act.h"
#include "kernels/cpu/rnn_impl.h"

namespace fluidc::kernels {
namespace detail {

RnnPlan rnn_plan(const char* op, const Tensor& input, const Tensor* const* pre_state, int num_pre_state,
                 const Tensor* const* weights, int num_weights, const Tensor* sequence_length, const RnnAttrs& a) {
  require_init(op, "Input", input);
  RnnPlan p;
  require_rule(op, shapes::rnn_dims(input.shape(), a, p.d));
  p.mode = a.mode == "LSTM" ? RnnMode::kLstm
         : a.mode == "GRU"  ? RnnMode::kGru
         : a.mode == "RNN_TANH" ? RnnMode::kTanh
                                : RnnMode::kRelu;
  p.GH = p.d.G * p.d.H;
  const int states = p.mode == RnnMode::kLstm ? 2 : 1;
  if (num_pre_state != states)
    rt::fail(fmt::format("{}: mode {} takes {} PreState tensors, got {}", op, a.mode, states, num_pre_state));
  const Shape state_shape{p.d.L * p.d.D, p.d.B, p.d.H};
  for (int i = 0; i < num_pre_state; ++i) {
    require_init(op, "PreState", *pre_state[i]);
    require_same_dtype(op, "PreState", *pre_state[i], "Input", input);
    if (pre_state[i]->shape() != state_shape)
      rt::fail(fmt::format("{}: PreState {} has shape {}, expected {}", op, i, pre_state[i]->shape().str(),
                           state_shape.str()));
  }
  if (num_weights != 4 * p.cells())
    rt::fail(fmt::format("{}: WeightList has {} tensors, expected 4 per layer and direction ({})", op,
                         num_weights, 4 * p.cells()));
  for (int64_t l = 0; l < p.d.L; ++l)
    for (int64_t dir = 0; dir < p.d.D; ++dir) {
      const Shape want[4] = {Shape{p.GH, p.layer_in(l)}, Shape{p.GH, p.d.H}, Shape{p.GH}, Shape{p.GH}};
      for (int k = 0; k < 4; ++k) {
        const Tensor& w = *weights[p.weight_index(l, dir, k)];
        require_init(op, "WeightList", w);
        require_same_dtype(op, "WeightList", w, "Input", input);
        if (w.shape() != want[k])
          rt::fail(fmt::format("{}: WeightList[{}] (layer {}, direction {}) has shape {}, expected {}", op,
                               p.weight_index(l, dir, k), l, dir, w.shape().str(), want[k].str()));
      }
    }
  if (sequence_length) {
    require_init(op, "SequenceLength", *sequence_length);
    const Tensor& s = *sequence_length;
    if (s.numel() != p.d.B)
      rt::fail(fmt::format("{}: SequenceLength has {} entries for a batch of {}", op, s.numel(), p.d.B));
    p.lens.resize(static_cast<size_t>(p.d.B));
    for (int64_t b = 0; b < p.d.B; ++b) {
      if (s.dtype() == DType::kInt64) p.lens[b] = s.data<int64_t>()[b];
      else if (s.dtype() == DType::kInt32) p.lens[b] = s.data<int32_t>()[b];
      else fail_dtype(op, "SequenceLength", s.dtype());
      if (p.lens[b] < 0 || p.lens[b] > p.d.T)
        rt::fail(fmt::format("{}: SequenceLength[{}] = {} is outside [0, {}]", op, b, p.lens[b], p.d.T));
    }
  }
  return p;
}

namespace {

// One layer and direction: x [T, B, in] -> hidden states into Reserve and
// this direction's half of y [T, B, D*H]; final states into hT / cT.
template <class T>
void run_cell(const RnnPlan& p, int64_t l, int64_t dir, const T* x, const Tensor* const* w, const T* h0,
              const T* c0, T* R, T* y, T* hT, T* cT) {
  const auto& d = p.d;
  const int64_t H = d.H, B = d.B, GH = p.GH, in = p.layer_in(l), DH = d.D * H;
  const T* wih = p.w_ih(w, l, dir).template data<T>();
  const T* whh = p.w_hh(w, l, dir).template data<T>();
  const T* bih = p.b_ih(w, l, dir).template data<T>();
  const T* bhh = p.b_hh(w, l, dir).template data<T>();
  T* gates = R + p.gates_off(l, dir);
  T* aux = R + p.aux_off(l, dir);
  T* hid = R + p.hid_off(l, dir);
  // Every step's input projection at once; GRU keeps the candidate's hidden
  // bias out (it is scaled by the reset gate).
  rnn_gemm(false, true, d.T * B, GH, in, x, in, wih, in, T(0), gates, GH);
  const int64_t hh_bias_cols = p.mode == RnnMode::kGru ? 2 * H : GH;
  for (int64_t r = 0; r < d.T * B; ++r) {
    T* g = gates + r * GH;
    for (int64_t j = 0; j < GH; ++j) g[j] += bih[j];
    for (int64_t j = 0; j < hh_bias_cols; ++j) g[j] += bhh[j];
  }
  T* hp_proj = rnn_buffer<T>(0, B * GH);
  const RecurrentProduct<T> recur(whh, B, H, GH);
  const T* hprev = h0;
  const T* cprev = c0;
  for (int64_t s = 0; s < d.T; ++s) {
    const int64_t t = p.time_at(dir, s);
    recur(hprev, hp_proj);
    for (int64_t b = 0; b < B; ++b) {
      T* g = gates + (t * B + b) * GH;
      const T* hw = hp_proj + b * GH;
      const T* hp = hprev + b * H;
      T* a = aux + (t * B + b) * H;
      T* hn = hid + (t * B + b) * H;
      T* yo = y + (t * B + b) * DH + dir * H;
      if (!p.valid(t, b)) {  // past the sequence's end: state carried, output zero
        std::memcpy(hn, hp, sizeof(T) * H);
        if (p.mode == RnnMode::kLstm) std::memcpy(a, cprev + b * H, sizeof(T) * H);
        for (int64_t j = 0; j < H; ++j) yo[j] = T(0);
        continue;
      }
      // Each gate block activated as one array (rnn_act::apply_n: vectorised
      // for fp32), then the state update elementwise.
      switch (p.mode) {
        case RnnMode::kLstm: {  // gates i, f, candidate, o
          const T* cp = cprev + b * H;
          for (int64_t j = 0; j < GH; ++j) g[j] += hw[j];
          rnn_act::apply_n(rnn_act::Act::kSigmoid, g, 2 * H);
          rnn_act::apply_n(rnn_act::Act::kTanh, g + 2 * H, H);
          rnn_act::apply_n(rnn_act::Act::kSigmoid, g + 3 * H, H);
          for (int64_t j = 0; j < H; ++j) a[j] = g[H + j] * cp[j] + g[j] * g[2 * H + j];
          std::memcpy(hn, a, sizeof(T) * H);
          rnn_act::apply_n(rnn_act::Act::kTanh, hn, H);
          for (int64_t j = 0; j < H; ++j) hn[j] *= g[3 * H + j];
          break;
        }
        case RnnMode::kGru: {  // gates r, z, candidate n; aux keeps the candidate's hidden term
          for (int64_t j = 0; j < 2 * H; ++j) g[j] += hw[j];
          rnn_act::apply_n(rnn_act::Act::kSigmoid, g, 2 * H);
          for (int64_t j = 0; j < H; ++j) {
            a[j] = hw[2 * H + j] + bhh[2 * H + j];
            g[2 * H + j] += g[j] * a[j];
          }
          rnn_act::apply_n(rnn_act::Act::kTanh, g + 2 * H, H);
          for (int64_t j = 0; j < H; ++j) hn[j] = g[H + j] * hp[j] + (T(1) - g[H + j]) * g[2 * H + j];
          break;
        }
        case RnnMode::kTanh:
          for (int64_t j = 0; j < H; ++j) g[j] += hw[j];
          rnn_act::apply_n(rnn_act::Act::kTanh, g, H);
          std::memcpy(hn, g, sizeof(T) * H);
          break;
        case RnnMode::kRelu:
          for (int64_t j = 0; j < H; ++j) hn[j] = g[j] = std::max(T(0), g[j] + hw[j]);
          break;
      }
      std::memcpy(yo, hn, sizeof(T) * H);
    }
    hprev = hid + t * B * H;
    if (p.mode == RnnMode::kLstm) cprev = aux + t * B * H;
  }
  std::memcpy(hT, hprev, sizeof(T) * B * H);
  if (cT) std::memcpy(cT, cprev, sizeof(T) * B * H);
}

template <class T>
void rnn_impl(const RnnPlan& p, const Tensor& input, const Tensor* const* pre_state, const Tensor* const* w,
              Tensor& out, Tensor* const* state, T* R) {
  const auto& d = p.d;
  const int64_t cell_state = d.B * d.H;
  const bool lstm = p.mode == RnnMode::kLstm;
  for (int64_t l = 0; l < d.L; ++l) {
    const T* x = l == 0 ? input.data<T>() : R + p.layer_out_off(l - 1);
    T* y = l == d.L - 1 ? out.data<T>() : R + p.layer_out_off(l);
    for (int64_t dir = 0; dir < d.D; ++dir) {
      const int64_t c = l * d.D + dir;
      run_cell<T>(p, l, dir, x, w, pre_state[0]->data<T>() + c * cell_state,
                  lstm ? pre_state[1]->data<T>() + c * cell_state : nullptr, R, y,
                  state[0]->data<T>() + c * cell_state, lstm ? state[1]->data<T>() + c * cell_state : nullptr);
    }
  }
}

}  // namespace
}  // namespace detail

void rnn(const Tensor& input, const Tensor* const* pre_state, int num_pre_state, const Tensor* const* weight_list,
         int num_weights, const Tensor* sequence_length, Tensor& out, Tensor* const* state, int num_state,
         Tensor* reserve, Tensor* dropout_state, const RnnAttrs& attrs) {
  using namespace detail;
  const RnnPlan p =
      rnn_plan("rnn", input, pre_state, num_pre_state, weight_list, num_weights, sequence_length, attrs);
  if (attrs.dropout_prob > 0 && !attrs.is_test && p.d.L > 1)
    rt::fail(fmt::format("rnn: dropout_prob {} between layers in training mode draws Paddle's random mask, "
                         "which fluidc cannot reproduce (use dropout_prob 0 or is_test)",
                         attrs.dropout_prob));
  if (num_state != num_pre_state)
    rt::fail(fmt::format("rnn: {} State outputs for {} PreState inputs", num_state, num_pre_state));
  for (int i = 0; i < num_state; ++i)
    if (!state[i]) rt::fail("rnn: every State output is required");
  Shape os, ss, rs;
  require_rule("rnn", shapes::rnn_shape(input.shape(), attrs, os, ss, rs));
  out.resize(os, input.dtype());
  for (int i = 0; i < num_state; ++i) state[i]->resize(ss, input.dtype());
  if (dropout_state) dropout_state->resize(Shape{0}, DType::kUInt8);
  visit_float("rnn", "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* R;
    if (reserve) {
      reserve->resize(rs, input.dtype());
      R = reserve->data<T>();
    } else {
      R = rnn_buffer<T>(7, rs.d[0]);
    }
    rnn_impl<T>(p, input, pre_state, weight_list, out, state, R);
  });
}

}  // namespace fluidc::kernels
