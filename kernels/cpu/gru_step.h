// kernels/cpu/gru_step.h - private: one GRU step forward and back, shared by gru (over LoD sequences) and gru_unit (a batch).
//
// Gates in Paddle's order [update, reset, candidate]; the weights as gru stores them: wg the [D, 2D]
// update+reset block, wc the [D, D] candidate block applied to reset * h_prev. Rows of h_prev that are
// zero are skipped in the products (the first step of a sequence starts from zeros).
#pragma once

#include <cstdint>

#include "kernels/cpu/rnn_act.h"

namespace fluidc::kernels::detail {

/// z [3D] = the activated gates, rh [D] = reset * hp, h [D] = the new state (may be hp itself), from the
/// row's projected gates x [3D], the bias b [3D] (or null) and the previous state hp [D].
template <class T>
void gru_step(const T* x, const T* b, const T* hp, const T* wg, const T* wc, int64_t d, rnn_act::Act gate,
              rnn_act::Act cand, bool origin_mode, T* z, T* rh, T* h) {
  for (int64_t j = 0; j < 3 * d; ++j) z[j] = x[j] + (b ? b[j] : T(0));
  for (int64_t i = 0; i < d; ++i) {
    const T hi = hp[i];
    if (hi == T(0)) continue;
    for (int64_t j = 0; j < 2 * d; ++j) z[j] += hi * wg[i * 2 * d + j];
  }
  rnn_act::apply_n(gate, z, 2 * d);
  for (int64_t j = 0; j < d; ++j) rh[j] = z[d + j] * hp[j];
  for (int64_t i = 0; i < d; ++i) {
    const T ri = rh[i];
    if (ri == T(0)) continue;
    for (int64_t j = 0; j < d; ++j) z[2 * d + j] += ri * wc[i * d + j];
  }
  rnn_act::apply_n(cand, z + 2 * d, d);
  for (int64_t j = 0; j < d; ++j) {
    const T u = z[j], c = z[2 * d + j];
    h[j] = origin_mode ? u * hp[j] + (T(1) - u) * c : (T(1) - u) * hp[j] + u * c;
  }
}

/// One step back from hg [D], the gradient reaching the step's h: dz [3D] = the gates' pre-activation
/// gradients (the projected input's), dhp [D] = the gradient reaching hp (may be hg itself). gw and gwc
/// (the [D, 2D] and [D, D] blocks of Weight@GRAD, or null) accumulate; drh [D] is scratch. z, rh and hp
/// are what gru_step kept and read.
template <class T>
void gru_step_grad(const T* z, const T* rh, const T* hp, const T* hg, const T* wg, const T* wc, int64_t d,
                   rnn_act::Act gate, rnn_act::Act cand, bool origin_mode, T* dz, T* dhp, T* drh, T* gw, T* gwc) {
  // First the direct path through h = mix(u, h_prev, c).
  for (int64_t j = 0; j < d; ++j) {
    const T u = z[j], c = z[2 * d + j], g = hg[j];
    const T du = origin_mode ? g * (hp[j] - c) : g * (c - hp[j]);
    const T dc = origin_mode ? g * (T(1) - u) : g * u;
    dhp[j] = origin_mode ? g * u : g * (T(1) - u);
    dz[j] = du * rnn_act::slope(gate, u);
    dz[2 * d + j] = dc * rnn_act::slope(cand, c);
  }
  // Candidate: zc += (r * h_prev) @ Wc.
  for (int64_t i = 0; i < d; ++i) {
    T acc = 0;
    for (int64_t j = 0; j < d; ++j) {
      acc += dz[2 * d + j] * wc[i * d + j];
      if (gwc) gwc[i * d + j] += rh[i] * dz[2 * d + j];
    }
    drh[i] = acc;
  }
  for (int64_t j = 0; j < d; ++j) {
    const T rj = z[d + j];
    dz[d + j] = drh[j] * hp[j] * rnn_act::slope(gate, rj);
    dhp[j] += drh[j] * rj;
  }
  // Update and reset: z[0:2D] += h_prev @ Wg.
  for (int64_t i = 0; i < d; ++i) {
    T acc = 0;
    for (int64_t j = 0; j < 2 * d; ++j) {
      acc += dz[j] * wg[i * 2 * d + j];
      if (gw) gw[i * 2 * d + j] += hp[i] * dz[j];
    }
    dhp[i] += acc;
  }
}

}  // namespace fluidc::kernels::detail
