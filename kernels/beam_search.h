// kernels/beam_search.h - Fluid 1.x beam-search decoding: beam_search (one step) and beam_search_decode (back-trace).
//
// Both work on two-level LoD tensors (Paddle's beam layout): level 0 groups
// prefixes by source sentence, level 1 groups each prefix's selected rows.
// Neither has a gradient. Ids are int64; beam_search's scores float32 (all
// Paddle 2.6.2's CPU kernel reads), beam_search_decode's fp32 or fp64.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"
#include "runtime/tensor_array.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;
using fluidc::rt::TensorArray;

/// Attributes of `beam_search` (Paddle requires all but is_accumulated).
struct BeamSearchAttrs {
  int level = 0;               ///< the LoD level whose entries are source sentences
  int beam_size = 0;           ///< rows kept per source sentence
  int end_id = 0;              ///< the id that ends a sentence
  bool is_accumulated = true;  ///< false: scores are probabilities, the op adds log(p) to pre_scores

  template <class F>
  static void fields(F&& f) {
    f("level", &BeamSearchAttrs::level, kRequiredAttr);
    f("beam_size", &BeamSearchAttrs::beam_size, kRequiredAttr);
    f("end_id", &BeamSearchAttrs::end_id, kRequiredAttr);
    f("is_accumulated", &BeamSearchAttrs::is_accumulated);
  }
};
/// One decoding step. Row r of scores [rows, K] (ids [rows, K] int64, or
/// column numbers when absent) holds prefix r's K candidates; pre_ids /
/// pre_scores [rows, 1] its last id and score. Each source sentence (an
/// entry of LoD level `level`, in rows) keeps its beam_size best candidates
/// (score descending; equal scores: the later prefix first, then column
/// order); a prefix whose last id is end_id offers only (end_id,
/// pre_score). A source whose every kept candidate continues an ended
/// prefix is dropped. Outputs [n, 1] grouped by prefix, with LoD {source
/// offsets in prefixes, prefix offsets in selected rows}; parent_idx [n]
/// int32 the prefix row of each (no LoD).
void beam_search(const Tensor& pre_ids, const Tensor& pre_scores, const Tensor* ids, const Tensor& scores,
                 Tensor& selected_ids, Tensor& selected_scores, Tensor* parent_idx, const BeamSearchAttrs& attrs);

/// Attributes of `beam_search_decode`.
struct BeamSearchDecodeAttrs {
  int beam_size = 0;  ///< most sentences per source
  int end_id = 0;     ///< repeated end ids of an ended branch are written once

  template <class F>
  static void fields(F&& f) {
    f("beam_size", &BeamSearchDecodeAttrs::beam_size, kRequiredAttr);
    f("end_id", &BeamSearchDecodeAttrs::end_id, kRequiredAttr);
  }
};
/// Ids / Scores: one beam_search output per step (arrays of the same
/// length, element LoDs as beam_search writes them). Back-traces every
/// candidate of each source's last step (a source dropped earlier: of the
/// last step that still held it) to step 0. SentenceIds (int64) and
/// SentenceScores [total] hold the sentences, each source's ordered by
/// final score descending, with LoD {sentences per source, words per
/// sentence}.
void beam_search_decode(const TensorArray& ids, const TensorArray& scores, Tensor& sentence_ids,
                        Tensor& sentence_scores, const BeamSearchDecodeAttrs& attrs);

/// Paddle 2.x's gather_tree (paddle.nn.functional.gather_tree, the last step
/// of PaddleNLP's beam-search decoders): Ids and Parents [steps, batch,
/// beam], both int32 or both int64. Out (like Ids) holds each final beam's
/// whole sequence: Out[T-1] = Ids[T-1], and going back, Out[t][b][k] =
/// Ids[t][b][p] with p the parent chain of beam k (p = Parents[T-1][b][k],
/// then Parents[t][b][p]). A parent outside [0, beam) is refused.
void gather_tree(const Tensor& ids, const Tensor& parents, Tensor& out);

}  // namespace fluidc::kernels
