// kernels/shapes/rnn.h - the shape rule of the fused rnn op (Out, State, Reserve), for kernels and compiler.
#pragma once

#include "kernels/rnn.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// The op's sizes, from its attributes and Input [T, B, I].
struct RnnDims {
  int64_t T = 0, B = 0, I = 0, H = 0, L = 0, D = 1, G = 1;
};

/// Gates per mode (LSTM 4, GRU 3, RNN_TANH/RNN_RELU 1); 0 for an unknown mode.
inline int rnn_gates(const std::string& mode) {
  if (mode == "LSTM") return 4;
  if (mode == "GRU") return 3;
  if (mode == "RNN_TANH" || mode == "RNN_RELU") return 1;
  return 0;
}

/// Elements of Reserve: for every layer and direction, the gate activations
/// [T, B, G*H], one auxiliary [T, B, H] (LSTM: cell state, GRU: the hidden
/// projection of the candidate) and the hidden states [T, B, H]; then the
/// outputs [T, B, D*H] of every layer but the last (the next layer's input).
inline int64_t rnn_reserve_size(const RnnDims& d) {
  if (d.T < 0 || d.B < 0) return kUnknown;
  return d.L * d.D * d.T * d.B * (d.G + 2) * d.H + (d.L - 1) * d.T * d.B * d.D * d.H;
}

inline std::string rnn_dims(const Shape& x, const kernels::RnnAttrs& a, RnnDims& d) {
  d.G = rnn_gates(a.mode);
  if (d.G == 0) return fmt::format("mode \"{}\" is not one of LSTM, GRU, RNN_TANH, RNN_RELU", a.mode);
  if (x.rank != 3) return fmt::format("Input must be [T, batch, input_size], got rank {}", x.rank);
  if (a.hidden_size <= 0 || a.num_layers <= 0 || a.input_size <= 0)
    return fmt::format("hidden_size {}, num_layers {} and input_size {} must be positive", a.hidden_size,
                       a.num_layers, a.input_size);
  if (!dims_agree(x.d[2], a.input_size))
    return fmt::format("Input has {} features but input_size is {}", x.d[2], a.input_size);
  d.T = x.d[0];
  d.B = x.d[1];
  d.I = a.input_size;
  d.H = a.hidden_size;
  d.L = a.num_layers;
  d.D = a.is_bidirec ? 2 : 1;
  return {};
}

/// Out [T, B, D*H], each State [L*D, B, H], Reserve [rnn_reserve_size].
inline std::string rnn_shape(const Shape& x, const kernels::RnnAttrs& a, Shape& out, Shape& state, Shape& reserve) {
  RnnDims d;
  if (std::string e = rnn_dims(x, a, d); !e.empty()) return e;
  out = Shape{d.T, d.B, d.D * d.H};
  state = Shape{d.L * d.D, d.B, d.H};
  reserve = Shape{rnn_reserve_size(d)};
  return {};
}

}  // namespace fluidc::shapes
