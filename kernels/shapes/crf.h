// kernels/shapes/crf.h - shapes of linear_chain_crf, crf_decoding and viterbi_decode, for kernels and compiler (-1: known at run time).
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/crf.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Emission [N, D] (LoD form) or [B, S, D] (`padded`: with Length), and
/// Transition [D + 2, D]; unknown (-1) dims pass.
inline std::string crf_inputs_check(const rt::Shape& emission, const rt::Shape& transition, bool padded) {
  if (emission.rank != (padded ? 3 : 2))
    return padded ? fmt::format("Emission must be 3-D [batch, max length, tags] with Length, got {}", emission.str())
                  : fmt::format("Emission must be 2-D [rows, tags] (a LoD tensor), got {}", emission.str());
  const int64_t d = emission.d[emission.rank - 1];
  if (transition.rank != 2) return fmt::format("Transition must be 2-D [tags + 2, tags], got {}", transition.str());
  if (d >= 0 && ((transition.d[1] >= 0 && transition.d[1] != d) || (transition.d[0] >= 0 && transition.d[0] != d + 2)))
    return fmt::format("Transition must be [tags + 2, tags] = [{}, {}], got {}", d + 2, d, transition.str());
  if (d == 0) return "Emission must have at least one tag";
  return "";
}

/// LogLikelihood: [sequences, 1]; `sequences` is B in the padded form, else
/// the LoD's (-1 when unknown).
inline std::string crf_log_likelihood_shape(const rt::Shape& emission, bool padded, int64_t sequences,
                                            rt::Shape& out) {
  out = rt::Shape{padded ? emission.d[0] : sequences, 1};
  return "";
}

/// ViterbiPath: [N, 1], or [B, S] in the padded form.
inline std::string crf_decoding_shape(const rt::Shape& emission, bool padded, rt::Shape& out) {
  out = padded ? rt::Shape{emission.d[0], emission.d[1]} : rt::Shape{emission.d[0], 1};
  return "";
}

/// viterbi_decode: Input [B, S, N], Transition [N, N] (N >= 2 with the
/// start and stop tags), Length [B]; unknown (-1) dims pass.
inline std::string viterbi_decode_check(const rt::Shape& input, const rt::Shape& transition, const rt::Shape& length,
                                        bool bos_eos) {
  if (input.rank != 3) return fmt::format("Input must be 3-D [batch, max length, tags], got {}", input.str());
  const int64_t n = input.d[2];
  if (transition.rank != 2 || (n >= 0 && ((transition.d[0] >= 0 && transition.d[0] != n) ||
                                          (transition.d[1] >= 0 && transition.d[1] != n))))
    return fmt::format("Transition must be [tags, tags] with Input's {} tags, got {}", n, transition.str());
  if (length.rank != 1 || (input.d[0] >= 0 && length.d[0] >= 0 && length.d[0] != input.d[0]))
    return fmt::format("Length must be 1-D with one entry per Input row ({}), got {}", input.d[0], length.str());
  if (n == 0 || (bos_eos && n >= 0 && n < 2))
    return fmt::format("Input has {} tags; include_bos_eos_tag needs at least 2 (the start and stop tags)", n);
  return "";
}

}  // namespace fluidc::shapes
