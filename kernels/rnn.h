// kernels/rnn.h - Paddle's fused multi-layer recurrent op `rnn` (LSTM, GRU, simple RNN) and rnn_grad.
//
// Time-major: Input [T, B, input_size] (paddle.nn.LSTM/GRU/SimpleRNN put
// transpose2 around the op for batch-major data). WeightList holds, for every
// layer and direction in order (layer 0 forward, layer 0 backward, layer 1
// ...), weight_ih [G*H, in] and weight_hh [G*H, H], followed by every
// bias_ih [G*H] and bias_hh [G*H] in the same order; G is the number of gates
// (LSTM 4: i, f, c~, o; GRU 3: r, z, c~; RNN 1). fp32 and fp64.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `rnn` and `rnn_grad`.
struct RnnAttrs {
  float dropout_prob = 0.0f;
  bool is_bidirec = false;
  int input_size = 10;
  int hidden_size = 100;
  int num_layers = 1;
  std::string mode;  ///< LSTM, GRU, RNN_TANH or RNN_RELU
  int seed = 0;
  bool is_test = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("dropout_prob", &RnnAttrs::dropout_prob);
    f("is_bidirec", &RnnAttrs::is_bidirec);
    f("input_size", &RnnAttrs::input_size);
    f("hidden_size", &RnnAttrs::hidden_size);
    f("num_layers", &RnnAttrs::num_layers);
    f("mode", &RnnAttrs::mode, kRequiredAttr);
    f("seed", &RnnAttrs::seed);
    f("is_test", &RnnAttrs::is_test);
  }
};

/// Out [T, B, D*H] (D = 2 when bidirectional: forward then backward halves),
/// State [L*D, B, H] (the last hidden state, and for LSTM the last cell
/// state) from PreState (h0, and c0 for LSTM). With SequenceLength [B]
/// (int32/int64), steps t >= length of a sequence leave its state unchanged
/// and write zeros to Out, as Paddle does. Reserve receives what rnn_grad
/// needs (gate activations, cell and hidden states, inner layer outputs);
/// DropoutState is left empty. Dropout between layers runs only with
/// dropout_prob 0 or is_test (Paddle's random mask cannot be reproduced):
/// anything else fails.
void rnn(const Tensor& input, const Tensor* const* pre_state, int num_pre_state, const Tensor* const* weight_list,
         int num_weights, const Tensor* sequence_length, Tensor& out, Tensor* const* state, int num_state,
         Tensor* reserve, Tensor* dropout_state, const RnnAttrs& attrs);

/// Backpropagation through time: Input@GRAD, PreState@GRAD and
/// WeightList@GRAD (nullptr entries are not wanted) from Out@GRAD and
/// State@GRAD, reading the forward's Reserve. A gradient the program never
/// wrote (an output nobody differentiated) counts as zeros.
void rnn_grad(const Tensor& input, const Tensor* const* pre_state, int num_pre_state,
              const Tensor* const* weight_list, int num_weights, const Tensor* sequence_length, const Tensor& out,
              const Tensor& reserve, const Tensor* dropout_state, const Tensor* out_grad,
              const Tensor* const* state_grad, int num_state_grad, Tensor* input_grad,
              Tensor* const* pre_state_grad, int num_pre_state_grad, Tensor* const* weight_list_grad,
              int num_weight_list_grad, const RnnAttrs& attrs);

}  // namespace fluidc::kernels

namespace fluidc::kernels {

/// Attributes of `coalesce_tensor`, which the startup program of
/// paddle.nn.LSTM/GRU/SimpleRNN runs to copy the cells' weights into one
/// flat parameter (unused by the rnn op in static mode, but saved).
struct CoalesceTensorAttrs {
  bool copy_data = false;
  bool set_constant = false;
  float constant = 0.0f;
  int dtype = -1;
  bool use_align = true;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("copy_data", &CoalesceTensorAttrs::copy_data);
    f("set_constant", &CoalesceTensorAttrs::set_constant);
    f("constant", &CoalesceTensorAttrs::constant);
    f("dtype", &CoalesceTensorAttrs::dtype);
    f("use_align", &CoalesceTensorAttrs::use_align);
  }
};

/// FusedOutput [sum of numels] = the Input tensors flattened one after the
/// other (copy_data), or `constant` everywhere (set_constant, which also
/// fills each Output); zeros otherwise. Output[i] keeps Input[i]'s values
/// (Paddle makes it a view into FusedOutput). fp32 and fp64. Paddle's
/// aligned layout (use_align) pads between tensors by a device-dependent
/// amount and is refused.
void coalesce_tensor(const Tensor* const* input, int num_input, Tensor* const* output, int num_output,
                     Tensor& fused_output, const CoalesceTensorAttrs& attrs);

}  // namespace fluidc::kernels
