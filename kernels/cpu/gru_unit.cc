// kernels/cpu/gru_unit.cc - gru_unit (one GRU step per batch row, gru's weight layout) and its gradient, on gru_step.h.
#include "kernels/gru_unit.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/gru_step.h"
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
    for (int64_t r = 0; r < b; ++r)
      gru_step(input.data<T>() + r * 3 * d, bv, hidden_prev.data<T>() + r * d, wg, wc, d, gate_act, cand_act,
               a.origin_mode, gate.data<T>() + r * 3 * d, reset_hidden_prev.data<T>() + r * d,
               hidden.data<T>() + r * d);
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
  for (Tensor* out : {input_grad, hidden_prev_grad, weight_grad, bias_grad})
    if (out && aliases(out, {&input, &hidden_prev, &weight, bias, &gate, &reset_hidden_prev, &hidden_grad}))
      rt::fail("gru_unit_grad: a gradient may not alias an input");
  const Act gate_act = act_of("gate_activation", a.gate_activation), cand_act = act_of("activation", a.activation);
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* wg = weight.data<T>();
    const T* wc = wg + 2 * d * d;
    // Each row's gates' pre-activation gradients (Input@GRAD's row) and h_prev's; the weights' and the
    // bias's gradients sum over the rows.
    T* dwg = nullptr;
    if (weight_grad) {
      weight_grad->resize(weight.shape(), weight.dtype());
      dwg = weight_grad->data<T>();
      std::fill(dwg, dwg + 3 * d * d, T(0));
    }
    T* db = nullptr;
    if (bias_grad && bias) {
      bias_grad->resize(bias->shape(), bias->dtype());
      db = bias_grad->data<T>();
      std::fill(db, db + 3 * d, T(0));
    }
    if (input_grad) input_grad->resize(input.shape(), input.dtype());
    if (hidden_prev_grad) hidden_prev_grad->resize(hidden_prev.shape(), hidden_prev.dtype());
    std::vector<T> dz(static_cast<size_t>(3 * d)), dhp(static_cast<size_t>(d)), drh(static_cast<size_t>(d));
    for (int64_t r = 0; r < b; ++r) {
      gru_step_grad(gate.data<T>() + r * 3 * d, reset_hidden_prev.data<T>() + r * d,
                    hidden_prev.data<T>() + r * d, hidden_grad.data<T>() + r * d, wg, wc, d, gate_act, cand_act,
                    a.origin_mode, dz.data(), dhp.data(), drh.data(), dwg, dwg ? dwg + 2 * d * d : nullptr);
      if (input_grad) std::copy(dz.begin(), dz.end(), input_grad->data<T>() + r * 3 * d);
      if (hidden_prev_grad) std::copy(dhp.begin(), dhp.end(), hidden_prev_grad->data<T>() + r * d);
      if (db)
        for (int64_t j = 0; j < 3 * d; ++j) db[j] += dz[j];
    }
  });
}

}  // namespace fluidc::kernels
