// kernels/crf.h - the linear-chain CRF: linear_chain_crf (negative log-likelihood, forward-backward gradient), crf_decoding and viterbi_decode (Viterbi), and chunk_eval (the taggers' chunk precision/recall).
//
// Sequences come either from Emission's LoD ([N, D] rows, one LoD level) or,
// in Paddle's padded form, from Length: Emission [B, S, D], sequence b is
// rows [b*S, b*S + Length[b]) of the [B*S, D] view. Transition is [D + 2, D]:
// row 0 the start weights, row 1 the end weights, row 2 + i the weights of
// moving from tag i to each tag. Labels are int64 (or int32) tag indices.
// Sequences may be empty. fp32 and fp64.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Paddle's linear_chain_crf. LogLikelihood [sequences, 1] holds, despite its
/// name, each sequence's NEGATIVE log-likelihood log Z - score(Label) (0 for
/// an empty sequence): Fluid programs use it as the cost. Alpha [like
/// Emission] holds the forward variables with each row scaled to sum 1 (zero
/// rows past a padded sequence's end), EmissionExps exp(x - rowmax(x)) per
/// row, TransitionExps exp(Transition). No output carries a LoD (Paddle's
/// rule).
void linear_chain_crf(const Tensor& emission, const Tensor& transition, const Tensor& label, const Tensor* length,
                      Tensor& alpha, Tensor& emission_exps, Tensor& transition_exps, Tensor& log_likelihood);

/// The gradients of LogLikelihood weighted by LogLikelihood@GRAD: Emission@GRAD
/// (tag marginals minus the label's one-hot, zero past a padded sequence's
/// end) and Transition@GRAD (start/end marginals and pairwise marginals minus
/// the label's counts). Recomputed from Emission and Transition by the
/// forward-backward algorithm; the forward's Alpha, EmissionExps and
/// TransitionExps are accepted but not read.
void linear_chain_crf_grad(const Tensor& emission, const Tensor& transition, const Tensor& label, const Tensor* length,
                           const Tensor* alpha, const Tensor* emission_exps, const Tensor* transition_exps,
                           const Tensor& log_likelihood_grad, Tensor* emission_grad, Tensor* transition_grad);

/// Paddle's crf_decoding: each sequence's highest-scoring tag path (Viterbi,
/// the scores summed in the emission's own precision, the lowest tag winning
/// a tie, as Paddle's kernel does). ViterbiPath is int64, [N, 1] with
/// Emission's LoD, or [B, S] in the padded form (zero past each end). With
/// Label, each entry is instead 1 where the decoded tag equals the label and
/// 0 where it does not.
void crf_decoding(const Tensor& emission, const Tensor& transition, const Tensor* label, const Tensor* length,
                  Tensor& viterbi_path);

/// Attributes of `viterbi_decode`.
struct ViterbiDecodeAttrs {
  bool include_bos_eos_tag = true;  ///< Transition's last two rows are the stop and start tags' weights

  template <class F>
  static void fields(F&& f) {
    f("include_bos_eos_tag", &ViterbiDecodeAttrs::include_bos_eos_tag);
  }
};
/// Paddle 2.x's viterbi_decode (paddle.text.viterbi_decode, PaddleNLP's
/// taggers): Input [B, S, N] padded potentials, Transition [N, N] (entry
/// [i][j] scores tag i followed by tag j), Length [B] int64. Scores [B] (the
/// best path's score, Input's dtype) and Path [B, M] int64 with M the largest
/// Length (zero past each sequence's end). With include_bos_eos_tag, row N-1
/// of Transition is added at the first step (the start tag's) and row N-2 at
/// each sequence's last (the stop tag's). A Length of 0 (or less) gives that
/// row the first step's score and a zero path, as Paddle's kernel does; the
/// largest Length must not exceed S. The first of equal scores wins.
void viterbi_decode(const Tensor& input, const Tensor& transition, const Tensor& length, Tensor& scores, Tensor& path,
                    const ViterbiDecodeAttrs& attrs);

/// Attributes of `chunk_eval`.
struct ChunkEvalAttrs {
  int num_chunk_types = 0;             ///< chunk types; tag values run to num_chunk_types * tags per type
  std::string chunk_scheme = "IOB";    ///< "IOB", "IOE", "IOBES" or "plain" (one tag per type)
  std::vector<int> excluded_chunk_types;  ///< types left out of every count

  template <class F>
  static void fields(F&& f) {
    f("num_chunk_types", &ChunkEvalAttrs::num_chunk_types, true);
    f("chunk_scheme", &ChunkEvalAttrs::chunk_scheme);
    f("excluded_chunk_types", &ChunkEvalAttrs::excluded_chunk_types);
  }
};
/// Paddle's chunk_eval: splits each sequence of Inference and of Label into
/// chunks by the scheme (tag = value % tags per type, type = value / tags
/// per type; type num_chunk_types, i.e. the value num_chunk_types * tags per
/// type, is outside every chunk, and larger values are an error) and counts
/// the chunks of each and those in both (same begin, end and type). Precision, Recall, F1-Score (float32 [1], 0 when
/// undefined) and the three counts (int64 [1]). Sequences come from
/// Inference's LoD, or with SeqLength from rows of the [B, S] padded form.
void chunk_eval(const Tensor& inference, const Tensor& label, const Tensor* seq_length, Tensor& precision,
                Tensor& recall, Tensor& f1_score, Tensor& num_infer_chunks, Tensor& num_label_chunks,
                Tensor& num_correct_chunks, const ChunkEvalAttrs& attrs);

}  // namespace fluidc::kernels
