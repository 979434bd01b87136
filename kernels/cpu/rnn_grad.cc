// kernels/cpu/rnn_grad.cc - backpropagation through time for the fused rnn op, layer by layer from the top.
#include "kernels/cpu/rnn_impl.h"
#include "kernels/pointwise.h"
#include "kernels/rnn.h"

namespace fluidc::kernels {
namespace detail {
namespace {

// A gradient input the program may never have written (nobody
// differentiated that output): nullptr, meaning zeros.
template <class T> const T* grad_or_null(const Tensor* g, const Shape& want, const char* role) {
  if (!g || !g->initialized()) return nullptr;
  if (g->shape() != want)
    rt::fail(fmt::format("rnn_grad: {} has shape {}, expected {}", role, g->shape().str(), want.str()));
  return g->data<T>();
}

template <class T> T* grad_out(Tensor* g, const Shape& s) {
  if (!g) return nullptr;
  g->resize(s, DTypeOf<T>::value);
  return g->data<T>();
}

struct CellGrads {
  const void* dy;         // gradient of this layer's output [T, B, D*H] (nullptr: zeros)
  void* dx;               // gradient of this layer's input [T, B, in], accumulated over directions
  bool dx_accumulate;     // the other direction already wrote dx
  const void* dhT;        // gradient of the final hidden / cell state (nullptr: zeros)
  const void* dcT;
  void* dh0;              // gradient of the initial states (nullptr: not wanted)
  void* dc0;
  void* dw[4];            // w_ih, w_hh, b_ih, b_hh gradients (nullptr: not wanted)
};

template <class T>
void cell_grad(const RnnPlan& p, int64_t l, int64_t dir, const T* x, const Tensor* const* w, const T* h0,
               const T* c0, const T* R, const CellGrads& cg) {
  const auto& d = p.d;
  const int64_t H = d.H, B = d.B, GH = p.GH, in = p.layer_in(l), DH = d.D * H, TB = d.T * B;
  const bool lstm = p.mode == RnnMode::kLstm, gru = p.mode == RnnMode::kGru;
  const T* wih = p.w_ih(w, l, dir).template data<T>();
  const T* whh = p.w_hh(w, l, dir).template data<T>();
  const T* gates = R + p.gates_off(l, dir);
  const T* aux = R + p.aux_off(l, dir);
  const T* hid = R + p.hid_off(l, dir);
  const T* dy = static_cast<const T*>(cg.dy);
  // Pre-activation gradients of every step: dgx feeds the input projection,
  // dgh the hidden one (they differ only for GRU's candidate).
  T* dgx = rnn_buffer<T>(0, TB * GH);
  T* dgh = gru ? rnn_buffer<T>(1, TB * GH) : dgx;
  T* dh = rnn_buffer<T>(2, B * H);
  T* dc = rnn_buffer<T>(3, B * H);
  T* dh_new = rnn_buffer<T>(4, B * H);
  T* dh_direct = rnn_buffer<T>(5, B * H);
  T* hprev_all = rnn_buffer<T>(6, TB * H);  // the hidden state each step read, by time index
  for (int64_t i = 0; i < B * H; ++i) {
    dh[i] = cg.dhT ? static_cast<const T*>(cg.dhT)[i] : T(0);
    dc[i] = cg.dcT ? static_cast<const T*>(cg.dcT)[i] : T(0);
  }
  auto prev_of = [&](int64_t s, const T* first, const T* all) {  // state before processing step s
    return s == 0 ? first : all + p.time_at(dir, s - 1) * B * H;
  };
  for (int64_t s = d.T - 1; s >= 0; --s) {
    const int64_t t = p.time_at(dir, s);
    const T* hprev = prev_of(s, h0, hid);
    const T* cprev = lstm ? prev_of(s, c0, aux) : nullptr;
    std::memcpy(hprev_all + t * B * H, hprev, sizeof(T) * B * H);
    for (int64_t b = 0; b < B; ++b) {
      T* gx = dgx + (t * B + b) * GH;
      T* gh = dgh + (t * B + b) * GH;
      if (!p.valid(t, b)) {  // the state passed through unchanged: dh, dc flow on
        for (int64_t j = 0; j < GH; ++j) gx[j] = gh[j] = T(0);
        continue;
      }
      const T* g = gates + (t * B + b) * GH;
      const T* a = aux + (t * B + b) * H;
      const T* hn = hid + (t * B + b) * H;
      const T* hp = hprev + b * H;
      T* dhb = dh + b * H;
      for (int64_t j = 0; j < H; ++j) {
        const T dht = dhb[j] + (dy ? dy[(t * B + b) * DH + dir * H + j] : T(0));
        switch (p.mode) {
          case RnnMode::kLstm: {
            const T i = g[j], f = g[H + j], cc = g[2 * H + j], o = g[3 * H + j];
            const T tc = pw::tanh_t(a[j]);  // as the forward computed it (rnn.cc)
            const T dcv = dc[b * H + j] + dht * o * (T(1) - tc * tc);
            gx[j] = dcv * cc * i * (T(1) - i);
            gx[H + j] = dcv * cprev[b * H + j] * f * (T(1) - f);
            gx[2 * H + j] = dcv * i * (T(1) - cc * cc);
            gx[3 * H + j] = dht * tc * o * (T(1) - o);
            dc[b * H + j] = dcv * f;
            break;
          }
          case RnnMode::kGru: {
            const T r = g[j], z = g[H + j], n = g[2 * H + j];
            const T dnp = dht * (T(1) - z) * (T(1) - n * n);
            const T drp = dnp * a[j] * r * (T(1) - r);
            const T dzp = dht * (hp[j] - n) * z * (T(1) - z);
            gx[j] = gh[j] = drp;
            gx[H + j] = gh[H + j] = dzp;
            gx[2 * H + j] = dnp;
            gh[2 * H + j] = dnp * r;
            dh_direct[b * H + j] = dht * z;
            break;
          }
          case RnnMode::kTanh:
            gx[j] = dht * (T(1) - hn[j] * hn[j]);
            break;
          case RnnMode::kRelu:
            gx[j] = hn[j] > T(0) ? dht : T(0);
            break;
        }
      }
    }
    rnn_gemm(false, false, B, H, GH, dgh + t * B * GH, GH, whh, H, T(0), dh_new, H);
    for (int64_t b = 0; b < B; ++b) {
      if (!p.valid(t, b)) continue;
      for (int64_t j = 0; j < H; ++j)
        dh[b * H + j] = dh_new[b * H + j] + (gru ? dh_direct[b * H + j] : T(0));
    }
  }
  if (cg.dh0) std::memcpy(cg.dh0, dh, sizeof(T) * B * H);
  if (cg.dc0 && lstm) std::memcpy(cg.dc0, dc, sizeof(T) * B * H);
  if (cg.dw[0]) rnn_gemm(true, false, GH, in, TB, dgx, GH, x, in, T(0), static_cast<T*>(cg.dw[0]), in);
  if (cg.dw[1]) rnn_gemm(true, false, GH, H, TB, dgh, GH, hprev_all, H, T(0), static_cast<T*>(cg.dw[1]), H);
  for (int k = 2; k < 4; ++k) {
    if (!cg.dw[k]) continue;
    T* db = static_cast<T*>(cg.dw[k]);
    const T* src = k == 2 ? dgx : dgh;
    for (int64_t j = 0; j < GH; ++j) db[j] = T(0);
    for (int64_t r = 0; r < TB; ++r)
      for (int64_t j = 0; j < GH; ++j) db[j] += src[r * GH + j];
  }
  if (cg.dx)
    rnn_gemm(false, false, TB, in, GH, dgx, GH, wih, in, cg.dx_accumulate ? T(1) : T(0), static_cast<T*>(cg.dx),
             in);
}

template <class T>
void rnn_grad_impl(const RnnPlan& p, const Tensor& input, const Tensor* const* pre_state, const Tensor* const* w,
                   const T* R, const T* dout, const T* const* dstate, Tensor* input_grad,
                   Tensor* const* pre_state_grad, int num_pre_state_grad, Tensor* const* wgrad, int num_wgrad) {
  const auto& d = p.d;
  const bool lstm = p.mode == RnnMode::kLstm;
  const int64_t cs = d.B * d.H, layer_elems = d.T * d.B * d.D * d.H;
  T* dpre[2] = {nullptr, nullptr};
  for (int i = 0; i < num_pre_state_grad && i < 2; ++i) dpre[i] = grad_out<T>(pre_state_grad[i], pre_state[i]->shape());
  T* dinput = grad_out<T>(input_grad, input.shape());
  // Gradients of the inner layers' outputs, two in turn: the layer above's
  // input gradient is this layer's output gradient.
  T* dlayer[2] = {rnn_buffer<T>(7, layer_elems), nullptr};
  thread_local std::vector<T> second;
  if (static_cast<int64_t>(second.size()) < layer_elems) second.resize(static_cast<size_t>(layer_elems));
  dlayer[1] = second.data();
  const T* dy = dout;
  for (int64_t l = d.L - 1; l >= 0; --l) {
    const T* x = l == 0 ? input.data<T>() : R + p.layer_out_off(l - 1);
    T* dx = l == 0 ? dinput : dlayer[l % 2];
    for (int64_t dir = 0; dir < d.D; ++dir) {
      const int64_t c = l * d.D + dir;
      CellGrads cg{};
      cg.dy = dy;
      cg.dx = dx;
      cg.dx_accumulate = dir > 0;
      cg.dhT = dstate[0] ? dstate[0] + c * cs : nullptr;
      cg.dcT = lstm && dstate[1] ? dstate[1] + c * cs : nullptr;
      cg.dh0 = dpre[0] ? dpre[0] + c * cs : nullptr;
      cg.dc0 = lstm && dpre[1] ? dpre[1] + c * cs : nullptr;
      for (int k = 0; k < 4; ++k) {
        const int wi = p.weight_index(l, dir, k);
        cg.dw[k] = wi < num_wgrad ? grad_out<T>(wgrad[wi], w[wi]->shape()) : nullptr;
      }
      cell_grad<T>(p, l, dir, x, w, pre_state[0]->data<T>() + c * cs,
                   lstm ? pre_state[1]->data<T>() + c * cs : nullptr, R, cg);
    }
    dy = dx;
  }
}

}  // namespace
}  // namespace detail

void rnn_grad(const Tensor& input, const Tensor* const* pre_state, int num_pre_state,
              const Tensor* const* weight_list, int num_weights, const Tensor* sequence_length, const Tensor& out,
              const Tensor& reserve, const Tensor* dropout_state, const Tensor* out_grad,
              const Tensor* const* state_grad, int num_state_grad, Tensor* input_grad,
              Tensor* const* pre_state_grad, int num_pre_state_grad, Tensor* const* weight_list_grad,
              int num_weight_list_grad, const RnnAttrs& attrs) {
  using namespace detail;
  (void)out, (void)dropout_state;
  const RnnPlan p =
      rnn_plan("rnn_grad", input, pre_state, num_pre_state, weight_list, num_weights, sequence_length, attrs);
  if (attrs.dropout_prob > 0 && !attrs.is_test && p.d.L > 1)
    rt::fail("rnn_grad: dropout between layers in training mode is not supported (see rnn)");
  require_init("rnn_grad", "Reserve", reserve);
  Shape os, ss, rs;
  require_rule("rnn_grad", shapes::rnn_shape(input.shape(), attrs, os, ss, rs));
  if (reserve.shape() != rs || reserve.dtype() != input.dtype())
    rt::fail(fmt::format("rnn_grad: Reserve is {} {}, expected {} {} as the rnn kernel wrote it",
                         rt::dtype_name(reserve.dtype()), reserve.shape().str(), rt::dtype_name(input.dtype()),
                         rs.str()));
  if (num_state_grad > num_pre_state)
    rt::fail(fmt::format("rnn_grad: {} State@GRAD for {} states", num_state_grad, num_pre_state));
  visit_float("rnn_grad", "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* dout = grad_or_null<T>(out_grad, os, "Out@GRAD");
    const T* dstate[2] = {nullptr, nullptr};
    for (int i = 0; i < num_state_grad; ++i) dstate[i] = grad_or_null<T>(state_grad[i], ss, "State@GRAD");
    rnn_grad_impl<T>(p, input, pre_state, weight_list, reserve.data<T>(), dout, dstate, input_grad,
                     pre_state_grad, num_pre_state_grad, weight_list_grad, num_weight_list_grad);
  });
}

}  // namespace fluidc::kernels
