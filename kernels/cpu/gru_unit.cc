// kernels/cpu/gru_unit.cc - gru_unit (one GRU step per batch row, gru's weight layout) and its gradient.
#include "kernels/gru_unit.h"

#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rnn_act.h"

namespace fluidc::kernels {
namespace {

using namespace detail;
using rnn_act::Act;

Act act_of(const char* attr, int code) {
  switch (code) {
    case 0: return Act::kIdentity;
    case 1: return Act::kSigmoid;
    case 2: return Act::kTanh;
    case 3: return Act::kRelu;
  }
  rt::fail(fmt::format("gru_unit: {} {} is not an activation (0 identity, 1 sigmoid, 2 tanh, 3 relu)", attr, code));
}

/// B and D, after checking the shapes every input must have.
void check(const char* op, const Tensor& input, const Tensor& hidden_prev, const Tensor& weight, const Tensor* bias,
           int64_t& b, int64_t& d) {
  require_init(op, "Input", input);
  require_init(op, "HiddenPrev", hidden_prev);
  require_init(op, "Weight", weight);
  if (weight.rank() != 2 || weight.dim(1) != 3 * weight.dim(0))
    rt::fail(fmt::format("{}: Weight must be [D, 3D], got {}", op, weight.shape().str()));
  d = weight.dim(0);
  if (input.rank() != 2 || input.dim(1) != 3 * d)
    rt::fail(fmt::format("{}: Input must be [batch, 3D] = [batch, {}], got {}", op, 3 * d, input.shape().str()));
  b = input.dim(0);
  if (hidden_prev.rank() != 2 || hidden_prev.dim(0) != b || hidden_prev.dim(1) != d)
    rt::fail(fmt::format("{}: HiddenPrev must be [{}, {}], got {}", op, b, d, hidden_prev.shape().str()));
  require_same_dtype(op, "Input", input, "HiddenPrev", hidden_prev);
  require_same_dtype(op, "Input", input, "Weight", weight);
  if (bias) {
    require_init(op, "Bias", *bias);
    if (bias->numel() != 3 * d)
      rt::fail(fmt::format("{}: Bias must be [1, 3D] = [1, {}], got {}", op, 3 * d, bias->shape().str()));
    require_same_dtype(op, "Input", input, "Bias", *bias);
  }
}

}  // namespace

void gru_unit(const Tensor& input, const Tensor& hidden_prev, const Tensor& weight, const Tensor* bias, Tensor& gate,
              Tensor& reset_hidden_prev, Tensor& hidden, const GruUnitAttrs& a) {
  constexpr const char* op = "gru_unit";
  int64_t b = 0, d = 0;
  check(op, input, hidden_prev, weight, bias, b, d);
  for (const Tensor* out : {&gate, &reset_hidden_prev, &hidden})
    if (aliases(out, {&input, &hidden_prev, &weight, bias})) rt::fail("gru_unit: an output may not be an input");
  const Act gate_act = act_of("gate_activation", a.gate_activation), cand_act = act_of("activation", a.activation);
  gate.resize(Shape{b, 3 * d}, input.dtype());
  reset_hidden_prev.resize(Shape{b, d}, input.dtype());
  hidden.resize(Shape{b, d}, input.dtype());
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* wg = weight.data<T>();  // [D, 2D]: update, reset
    const T* wc = wg + 2 * d * d;    // [D, D]: candidate
    const T* bv = bias ? bias->data<T>() : nullptr;
    for (int64_t r = 0; r < b; ++r) {
      const T* x = input.data<T>() + r * 3 * d;
      const T* hp = hidden_prev.data<T>() + r * d;
      T* z = gate.data<T>() + r * 3 * d;
      T* rh = reset_hidden_prev.data<T>() + r * d;
      T* h = hidden.data<T>() + r * d;
      for (int64_t j = 0; j < 3 * d; ++j) z[j] = x[j] + (bv ? bv[j] : T(0));
      for (int64_t i = 0; i < d; ++i)
        for (int64_t j = 0; j < 2 * d; ++j) z[j] += hp[i] * wg[i * 2 * d + j];
      rnn_act::apply_n(gate_act, z, 2 * d);
      for (int64_t j = 0; j < d; ++j) rh[j] = z[d + j] * hp[j];
      for (int64_t i = 0; i < d; ++i)
        for (int64_t j = 0; j < d; ++j) z[2 * d + j] += rh[i] * wc[i * d + j];
      rnn_act::apply_n(cand_act, z + 2 * d, d);
      for (int64_t j = 0; j < d; ++j) {
        const T u = z[j], c = z[2 * d + j];
        h[j] = a.origin_mode ? u * hp[j] + (T(1) - u) * c : (T(1) - u) * hp[j] + u * c;
      }
    }
  });
}

void gru_unit_grad(const Tensor& input, const Tensor& hidden_prev, const Tensor& weight, const Tensor* bias,
                   const Tensor& gate, const Tensor& reset_hidden_prev, const Tensor& hidden_grad, Tensor* input_grad,
                   Tensor* hidden_prev_grad, Tensor* weight_grad, Tensor* bias_grad, const GruUnitAttrs& a) {
  constexpr const char* op = "gru_unit_grad";
  int64_t b = 0, d = 0;
  check(op, input, hidden_prev, weight, bias, b, d);
  require_init(op, "Gate", gate);
  require_init(op, "ResetHiddenPrev", reset_hidden_prev);
  require_init(op, "Hidden@GRAD", hidden_grad);
  if (gate.numel() != b * 3 * d || reset_hidden_prev.numel() != b * d || hidden_grad.numel() != b * d)
    rt::fail(fmt::format("{}: Gate {}, ResetHiddenPrev {} and Hidden@GRAD {} do not match a batch of {} and D {}", op,
                         gate.shape().str(), reset_hidden_prev.shape().str(), hidden_grad.shape().str(), b, d));
  const Act gate_act = act_of("gate_activation", a.gate_activation), cand_act = act_of("activation", a.activation);
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* wg = weight.data<T>();
    const T* wc = wg + 2 * d * d;
    // Pre-activation gradients of every row's gates [B, 3D]: Input@GRAD itself, and what the weights,
    // the bias and h_prev take theirs from.
    std::vector<T> dz(static_cast<size_t>(b * 3 * d));
    std::vector<T> dhp(static_cast<size_t>(b * d));
    for (int64_t r = 0; r < b; ++r) {
      const T* hp = hidden_prev.data<T>() + r * d;
      const T* z = gate.data<T>() + r * 3 * d;
      const T* dh = hidden_grad.data<T>() + r * d;
      T* g = dz.data() + r * 3 * d;
      T* dp = dhp.data() + r * d;
      for (int64_t j = 0; j < d; ++j) {
        const T u = z[j], c = z[2 * d + j];
        const T du = a.origin_mode ? dh[j] * (hp[j] - c) : dh[j] * (c - hp[j]);
        const T dc = a.origin_mode ? dh[j] * (T(1) - u) : dh[j] * u;
        dp[j] = a.origin_mode ? dh[j] * u : dh[j] * (T(1) - u);
        g[j] = du * rnn_act::slope(gate_act, u);
        g[2 * d + j] = dc * rnn_act::slope(cand_act, c);
      }
      // Through the candidate's product: d(r * h_prev) = dc_pre @ Wc'.
      for (int64_t i = 0; i < d; ++i) {
        T drh = 0;
        for (int64_t j = 0; j < d; ++j) drh += g[2 * d + j] * wc[i * d + j];
        const T rr = z[d + i];
        g[d + i] = drh * hp[i] * rnn_act::slope(gate_act, rr);
        dp[i] += drh * rr;
      }
      // Through the gates' product: h_prev += [du, dr]_pre @ Wg'.
      for (int64_t i = 0; i < d; ++i) {
        T s = 0;
        for (int64_t j = 0; j < 2 * d; ++j) s += g[j] * wg[i * 2 * d + j];
        dp[i] += s;
      }
    }
    if (input_grad) {
      input_grad->resize(input.shape(), input.dtype());
      std::copy(dz.begin(), dz.end(), input_grad->data<T>());
    }
    if (hidden_prev_grad) {
      hidden_prev_grad->resize(hidden_prev.shape(), hidden_prev.dtype());
      std::copy(dhp.begin(), dhp.end(), hidden_prev_grad->data<T>());
    }
    if (weight_grad) {
      weight_grad->resize(weight.shape(), weight.dtype());
      T* dwg = weight_grad->data<T>();
      T* dwc = dwg + 2 * d * d;
      std::fill(dwg, dwg + 3 * d * d, T(0));
      for (int64_t r = 0; r < b; ++r) {
        const T* hp = hidden_prev.data<T>() + r * d;
        const T* rh = reset_hidden_prev.data<T>() + r * d;
        const T* g = dz.data() + r * 3 * d;
        for (int64_t i = 0; i < d; ++i) {
          for (int64_t j = 0; j < 2 * d; ++j) dwg[i * 2 * d + j] += hp[i] * g[j];
          for (int64_t j = 0; j < d; ++j) dwc[i * d + j] += rh[i] * g[2 * d + j];
        }
      }
    }
    if (bias_grad && bias) {
      bias_grad->resize(bias->shape(), bias->dtype());
      T* db = bias_grad->data<T>();
      std::fill(db, db + 3 * d, T(0));
      for (int64_t r = 0; r < b; ++r)
        for (int64_t j = 0; j < 3 * d; ++j) db[j] += dz[r * 3 * d + j];
    }
  });
}

}  // namespace fluidc::kernels
