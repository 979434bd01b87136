// kernels/sequence_legacy.h - Fluid 1.x LoD sequence ops: sequence_pad/unpad, slice, reshape, lod_reset, erase, enumerate, scatter.
//
// As in kernels/sequence.h, a sequence op works on the last LoD level of its
// LoD input (rows [lod[i], lod[i+1]) are sequence i; empty sequences allowed
// where Paddle allows them), and gradients read the LoD of the forward input
// they are given. Where Paddle 2.6.2 accepts one LoD level only (pad, slice,
// reshape, enumerate, scatter's Ids) these kernels refuse more, by name.
// Values: fp32 and fp64; pad, unpad, slice, reshape and scatter also move
// int32/int64 rows (Paddle registers those forward kernels); erase and
// enumerate take int32/int64 ids only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `sequence_pad`.
struct SequencePadAttrs {
  int padded_length = -1;  ///< steps per padded sequence; -1: the longest sequence's length

  template <class F>
  static void fields(F&& f) {
    f("padded_length", &SequencePadAttrs::padded_length);
  }
};
/// Out [sequences, padded_length, X dims 1..] holds sequence i's rows, then
/// PadValue (one value, or one step of X dims 1..) up to padded_length;
/// Length [sequences] (int64) the original lengths. Neither has a LoD.
void sequence_pad(const Tensor& x, const Tensor& pad_value, Tensor& out, Tensor& length, const SequencePadAttrs& attrs);
/// X@GRAD = Out@GRAD's first length_i steps of each sequence (X's rows).
void sequence_pad_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SequencePadAttrs& attrs);

/// The inverse of sequence_pad: X [N, L, ...] dense, Length [N] (int64,
/// each <= L); Out [sum Length, X dims 2..] ([sum, 1] for a 2-D X) holds the
/// first Length[i] steps of each row, with one LoD level of those lengths.
void sequence_unpad(const Tensor& x, const Tensor& length, Tensor& out);
/// X@GRAD (X's shape) = Out@GRAD's sequences back in place, zeros after.
/// Paddle's grad op has no Length input: the lengths are Out@GRAD's LoD
/// (its gradient shares Out's), so that LoD must be there.
void sequence_unpad_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Out's sequence i = rows [Offset[i], Offset[i] + Length[i]) of X's
/// sequence i (Offset, Length: int64 [sequences, 1]); Out has their LoD.
void sequence_slice(const Tensor& x, const Tensor& offset, const Tensor& length, Tensor& out);
void sequence_slice_grad(const Tensor& x, const Tensor& offset, const Tensor& length, const Tensor& out_grad,
                         Tensor* x_grad);

/// Attributes of `sequence_reshape`.
struct SequenceReshapeAttrs {
  int new_dim = 0;  ///< the new row width (required)

  template <class F>
  static void fields(F&& f) {
    f("new_dim", &SequenceReshapeAttrs::new_dim, true);  // Paddle has no default
  }
};
/// X [rows, D] -> Out [rows * D / new_dim, new_dim], the same values; each
/// sequence's length * D must divide by new_dim, and its length scales by D / new_dim.
void sequence_reshape(const Tensor& x, Tensor& out, const SequenceReshapeAttrs& attrs);
/// X@GRAD = Out@GRAD's values under X's shape.
void sequence_reshape_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SequenceReshapeAttrs& attrs);

/// Attributes of `lod_reset`.
struct LodResetAttrs {
  std::vector<int> target_lod;  ///< offsets of the new (last) level, when Y is absent
  bool append = false;          ///< add the level below X's levels instead of replacing them

  template <class F>
  static void fields(F&& f) {
    f("target_lod", &LodResetAttrs::target_lod);
    f("append", &LodResetAttrs::append);
  }
};
/// Out = X's values with a new LoD: Y's whole LoD when Y has one (append is
/// then ignored, as in Paddle), else Y's int32 values as offsets, else
/// target_lod; with append, that level follows X's levels. The result must
/// be a valid LoD of X's rows.
void lod_reset(const Tensor& x, const Tensor* y, Tensor& out, const LodResetAttrs& attrs);
/// X@GRAD = Out@GRAD (X@GRAD takes X's LoD).
void lod_reset_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const LodResetAttrs& attrs);

/// Attributes of `sequence_erase`.
struct SequenceEraseAttrs {
  std::vector<int> tokens;  ///< the ids to drop

  template <class F>
  static void fields(F&& f) {
    f("tokens", &SequenceEraseAttrs::tokens, true);  // Paddle has no default
  }
};
/// Out = X [rows, 1] (int32/int64 ids) without the rows holding a token;
/// the last LoD level shrinks to match, outer levels stay.
void sequence_erase(const Tensor& x, Tensor& out, const SequenceEraseAttrs& attrs);

/// Attributes of `sequence_enumerate`.
struct SequenceEnumerateAttrs {
  int win_size = 0;   ///< ids per window (at least 2, Paddle's rule)
  int pad_value = 0;  ///< written where a window runs past its sequence's end

  template <class F>
  static void fields(F&& f) {
    f("win_size", &SequenceEnumerateAttrs::win_size);
    f("pad_value", &SequenceEnumerateAttrs::pad_value);
  }
};
/// Out [rows, win_size] row r = X[r .. r + win_size) within r's sequence,
/// pad_value past its end; X [rows, 1] int32/int64 ids; Out keeps X's LoD.
void sequence_enumerate(const Tensor& x, Tensor& out, const SequenceEnumerateAttrs& attrs);

/// Out = X (dense [N, ...]) plus, for each entry j of Ids' sequence i,
/// Updates[j] added at column Ids[j] of row i (X's row flattened). Ids
/// (int64) and Updates hold one value per row and share Ids' LoD.
void sequence_scatter(const Tensor& x, const Tensor& ids, const Tensor& updates, Tensor& out);
/// X@GRAD = Out@GRAD; Updates@GRAD[j] = Out@GRAD at the place Updates[j] went.
void sequence_scatter_grad(const Tensor& ids, const Tensor& updates, const Tensor& out_grad, Tensor* x_grad,
                           Tensor* updates_grad);

}  // namespace fluidc::kernels
