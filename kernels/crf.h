// kernels/crf.h - the linear-chain CRF: linear_chain_crf (negative log-likelihood, forward-backward gradient) and crf_decoding (Viterbi).
//
// Sequences come either from Emission's LoD ([N, D] rows, one LoD level) or,
// in Paddle's padded form, from Length: Emission [B, S, D], sequence b is
// rows [b*S, b*S + Length[b]) of the [B*S, D] view. Transition is [D + 2, D]:
// row 0 the start weights, row 1 the end weights, row 2 + i the weights of
// moving from tag i to each tag. Labels are int64 (or int32) tag indices.
// Sequences may be empty. fp32 and fp64.
#pragma once

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

}  // namespace fluidc::kernels
