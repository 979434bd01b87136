// kernels/sequence.h - ops on LoD (sequence) tensors: pooling, softmax, reverse, expand(_as), concat, conv, mask, the fused lstm and gru, lookup_table (v1).
//
// A sequence op works on the last LoD level of its LoD input (Paddle's rule):
// rows [lod[i], lod[i+1]) are sequence i. Sequences may be empty (length 0)
// where Paddle allows it. Gradients read the LoD of the forward input they
// are given (X), never that of a gradient tensor. fp32 and fp64.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `sequence_pool` (paddle.static.nn.sequence_pool).
struct SequencePoolAttrs {
  /// "AVERAGE", "SUM", "SQRT" (sum / sqrt(length)), "MAX", "LAST", "FIRST".
  std::string pooltype = "AVERAGE";
  bool is_test = false;
  /// The value of an empty sequence's row.
  float pad_value = 0.f;

  template <class F>
  static void fields(F&& f) {
    f("pooltype", &SequencePoolAttrs::pooltype);
    f("is_test", &SequencePoolAttrs::is_test);
    f("pad_value", &SequencePoolAttrs::pad_value);
  }
};
/// Out[i] = pool of X's rows of sequence i ([sequences, X dims 1..]); with
/// MAX, MaxIndex (int32, like Out) holds the row each max came from (-1 for
/// an empty sequence). Out keeps X's outer LoD levels (all but the last).
void sequence_pool(const Tensor& x, Tensor& out, Tensor* max_index, const SequencePoolAttrs& attrs);
void sequence_pool_grad(const Tensor& x, const Tensor* max_index, const Tensor& out_grad, Tensor* x_grad,
                        const SequencePoolAttrs& attrs);

/// Softmax over the rows of each sequence; X holds one value per row.
void sequence_softmax(const Tensor& x, Tensor& out);
void sequence_softmax_grad(const Tensor& out, const Tensor& out_grad, const Tensor& x, Tensor* x_grad);

/// Y = X with the rows of each sequence in reverse order. Its own gradient
/// (Paddle differentiates it by another sequence_reverse).
void sequence_reverse(const Tensor& x, Tensor& y);

/// Out = row i of X repeated once per row of Y's sequence i; Out takes Y's LoD.
void sequence_expand_as(const Tensor& x, const Tensor& y, Tensor& out);
void sequence_expand_as_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad);

/// Attributes of `sequence_expand`.
struct SequenceExpandAttrs {
  int ref_level = -1;  ///< Y's LoD level whose sequence lengths give the repeats; -1: the last

  template <class F>
  static void fields(F&& f) {
    f("ref_level", &SequenceExpandAttrs::ref_level);
  }
};
/// Out = sequence i of X (row i for a dense X) repeated as many times as Y's
/// sequence i at ref_level has entries. Out has a LoD (the repeated
/// sequences) only when X has one.
void sequence_expand(const Tensor& x, const Tensor& y, Tensor& out, const SequenceExpandAttrs& attrs);
void sequence_expand_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          const SequenceExpandAttrs& attrs);

/// Out's sequence i = sequence i of X[0], then of X[1], ... (all inputs have
/// the same number of sequences).
void sequence_concat(const Tensor* const* x, int nx, Tensor& out);
void sequence_concat_grad(const Tensor* const* x, int nx, const Tensor& out_grad, Tensor* const* x_grad, int ngrad);

/// Attributes of `sequence_conv`.
struct SequenceConvAttrs {
  int contextLength = 0;   ///< rows per window (required)
  int contextStart = 0;    ///< window offset from the row (negative: rows before it)
  int contextStride = 1;   ///< Paddle supports 1 only
  bool paddingTrainable = false;  ///< rows outside the sequence read PaddingData instead of zeros

  template <class F>
  static void fields(F&& f) {
    f("contextLength", &SequenceConvAttrs::contextLength);
    f("contextStart", &SequenceConvAttrs::contextStart);
    f("contextStride", &SequenceConvAttrs::contextStride);
    f("paddingTrainable", &SequenceConvAttrs::paddingTrainable);
  }
};
/// Out[t] = [X[t+start], ..., X[t+start+len-1]] (rows outside t's sequence
/// zero) times Filter [len * D, M]; Out [rows, M] keeps X's LoD.
void sequence_conv(const Tensor& x, const Tensor* padding_data, const Tensor& filter, Tensor& out,
                   const SequenceConvAttrs& attrs);
void sequence_conv_grad(const Tensor& x, const Tensor* padding_data, const Tensor& filter, const Tensor& out_grad,
                        Tensor* x_grad, Tensor* padding_data_grad, Tensor* filter_grad, const SequenceConvAttrs& attrs);

/// Attributes of `sequence_mask`.
struct SequenceMaskAttrs {
  int maxlen = -1;      ///< -1: the largest length in X
  int out_dtype = 3;    ///< Paddle VarType code of Y (int64, Paddle's default)

  template <class F>
  static void fields(F&& f) {
    f("maxlen", &SequenceMaskAttrs::maxlen);
    f("out_dtype", &SequenceMaskAttrs::out_dtype);
  }
};
/// Y[..., j] = j < X[...] (X: integer lengths), Y dims X dims + [maxlen];
/// MaxLenTensor, when given, wins over the attribute.
void sequence_mask(const Tensor& x, const Tensor* max_len_tensor, Tensor& y, const SequenceMaskAttrs& attrs);

/// Attributes of `split_lod_tensor` and `merge_lod_tensor` (Fluid's IfElse batch splitting).
struct LodSplitAttrs {
  int level = 0;  ///< the LoD level whose sequences the mask picks; rows of a dense X

  template <class F>
  static void fields(F&& f) {
    f("level", &LodSplitAttrs::level);
  }
};
/// OutTrue = X's rows whose Mask entry is true, OutFalse = the others, in
/// order (Mask: bool or integer, one entry per row of a dense X).
void split_lod_tensor(const Tensor& x, const Tensor& mask, Tensor& out_true, Tensor& out_false,
                      const LodSplitAttrs& attrs);
/// The inverse: Out (X's rows, the branches' other dims) takes its next row
/// from InTrue where Mask is true, else from InFalse. A branch that no row
/// takes is not read (its conditional_block did not run).
void merge_lod_tensor(const Tensor& x, const Tensor& mask, const Tensor& in_true, const Tensor& in_false, Tensor& out,
                      const LodSplitAttrs& attrs);

/// Attributes of `lstm` (Fluid's dynamic_lstm over LoD sequences).
struct LstmAttrs {
  bool use_peepholes = true;  ///< Bias is [1, 7D]: b then the peephole weights w_ic, w_fc, w_oc
  bool is_reverse = false;    ///< each sequence runs from its last row to its first
  bool is_test = false;
  std::string gate_activation = "sigmoid";      ///< sigmoid, tanh, relu or identity
  std::string cell_activation = "tanh";
  std::string candidate_activation = "tanh";

  template <class F>
  static void fields(F&& f) {
    f("use_peepholes", &LstmAttrs::use_peepholes);
    f("is_reverse", &LstmAttrs::is_reverse);
    f("is_test", &LstmAttrs::is_test);
    f("gate_activation", &LstmAttrs::gate_activation);
    f("cell_activation", &LstmAttrs::cell_activation);
    f("candidate_activation", &LstmAttrs::candidate_activation);
  }
};
/// Input [rows, 4D] holds each row's projected gates in Paddle's order
/// [candidate, input, forget, output]; Weight [D, 4D] the recurrent
/// weights, Bias [1, 4D] (or [1, 7D] with peepholes). H0/C0 [sequences, D]
/// start each sequence (zeros when absent). Hidden and Cell [rows, D] keep
/// Input's LoD. BatchGate [rows, 4D] and BatchCellPreAct [rows, D] hold the
/// activated gates and cells in row order (Paddle keeps them in its own
/// batch order: intermediates, not for comparing); the gradient recomputes
/// what it needs from the inputs.
void lstm(const Tensor& input, const Tensor* h0, const Tensor* c0, const Tensor& weight, const Tensor& bias,
          Tensor& hidden, Tensor& cell, Tensor* batch_gate, Tensor* batch_cell_pre_act, const LstmAttrs& attrs);
/// Paddle's lstm_grad: the gradients through Hidden only (Paddle does not
/// differentiate the Cell output); the forward outputs it is given are not
/// read (recomputed from the inputs). Always the true gradient: Paddle
/// 2.6.2's float32 CPU kernel is wrong when D is a multiple of 8 (its AVX
/// path; tools/check_paddle_lstm_grad.py), so references use other sizes.
void lstm_grad(const Tensor& input, const Tensor* h0, const Tensor* c0, const Tensor& weight, const Tensor& bias,
               const Tensor* hidden, const Tensor* cell, const Tensor* batch_gate, const Tensor* batch_cell_pre_act,
               const Tensor& hidden_grad, Tensor* input_grad, Tensor* h0_grad, Tensor* c0_grad, Tensor* weight_grad,
               Tensor* bias_grad, const LstmAttrs& attrs);

/// Attributes of `gru` (Fluid's dynamic_gru over LoD sequences).
struct GruAttrs {
  std::string activation = "tanh";          ///< of the candidate: sigmoid, tanh, relu or identity
  std::string gate_activation = "sigmoid";  ///< of the update and reset gates
  bool is_reverse = false;                  ///< each sequence runs from its last row to its first
  /// false (Paddle's default): h = (1 - u) * h_prev + u * c; true (the
  /// original paper's form): h = u * h_prev + (1 - u) * c.
  bool origin_mode = false;

  template <class F>
  static void fields(F&& f) {
    f("activation", &GruAttrs::activation);
    f("gate_activation", &GruAttrs::gate_activation);
    f("is_reverse", &GruAttrs::is_reverse);
    f("origin_mode", &GruAttrs::origin_mode);
  }
};
/// Input [rows, 3D] holds each row's projected gates in Paddle's order
/// [update, reset, candidate]. Weight [D, 3D] is stored as two blocks: its
/// first 2D*D values are the [D, 2D] update+reset weights, the last D*D the
/// [D, D] candidate weights (applied to reset * h_prev). Bias [1, 3D] and
/// H0 [sequences, D] are optional (zeros). Hidden [rows, D] keeps Input's
/// LoD. BatchGate [rows, 3D] (activated u, r, c), BatchResetHiddenPrev
/// [rows, D] (r * h_prev) and BatchHidden [rows, D] are written in row
/// order (Paddle keeps them in its own batch order: intermediates, not for
/// comparing); the gradient recomputes what it needs from the inputs.
void gru(const Tensor& input, const Tensor* h0, const Tensor& weight, const Tensor* bias, Tensor& hidden,
         Tensor* batch_gate, Tensor* batch_reset_hidden_prev, Tensor* batch_hidden, const GruAttrs& attrs);
/// Paddle's gru_grad: the gradients through Hidden; the forward's other
/// outputs it is given are not read (recomputed from the inputs). Always the
/// true gradient: Paddle 2.6.2's drops the first step's reset-gate and
/// recurrent-weight terms when H0 is given without an H0@GRAD to write.
void gru_grad(const Tensor& input, const Tensor* h0, const Tensor& weight, const Tensor* bias, const Tensor* hidden,
              const Tensor* batch_gate, const Tensor* batch_reset_hidden_prev, const Tensor* batch_hidden,
              const Tensor& hidden_grad, Tensor* input_grad, Tensor* h0_grad, Tensor* weight_grad, Tensor* bias_grad,
              const GruAttrs& attrs);

/// Attributes of `lookup_table` (v1, Fluid's embedding): Ids end in a dim of 1.
struct LookupTableAttrs {
  int64_t padding_idx = -1;  ///< rows of this id read as zeros; -1: none
  bool is_sparse = false;    ///< SelectedRows gradient, held dense (see LookupTableV2Attrs)

  template <class F>
  static void fields(F&& f) {
    f("padding_idx", &LookupTableAttrs::padding_idx);
    f("is_sparse", &LookupTableAttrs::is_sparse);
  }
};
/// Out = W's rows at Ids; Out dims: Ids dims with the last (1) replaced by W's row length.
void lookup_table(const Tensor& ids, const Tensor& w, Tensor& out, const LookupTableAttrs& attrs);
void lookup_table_grad(const Tensor& ids, const Tensor& w, const Tensor& out_grad, Tensor* w_grad,
                       const LookupTableAttrs& attrs);

}  // namespace fluidc::kernels
