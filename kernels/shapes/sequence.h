// kernels/shapes/sequence.h - output shapes of the sequence ops, for kernels and compiler (-1: known at run time).
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/sequence.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// sequence_pool: one row per sequence (`sequences`, -1 when unknown), X's other dims.
inline std::string sequence_pool_shape(const rt::Shape& x, int64_t sequences, rt::Shape& out) {
  if (x.rank < 1) return "X must have a row axis";
  out = x;
  out.d[0] = sequences;
  return "";
}

/// sequence_conv: [X rows, Filter cols]; Filter is [contextLength * X cols, M].
inline std::string sequence_conv_shape(const rt::Shape& x, const rt::Shape& filter, const kernels::SequenceConvAttrs& a,
                                       rt::Shape& out) {
  if (x.rank != 2) return fmt::format("X must be 2-D [rows, width], got {}", x.str());
  if (filter.rank != 2) return fmt::format("Filter must be 2-D, got {}", filter.str());
  if (a.contextLength < 1) return fmt::format("contextLength must be at least 1, got {}", a.contextLength);
  if (a.contextStride != 1) return fmt::format("contextStride must be 1 (Paddle's only), got {}", a.contextStride);
  if (x.d[1] >= 0 && filter.d[0] >= 0 && filter.d[0] != a.contextLength * x.d[1])
    return fmt::format("Filter {} must have contextLength ({}) x width ({}) rows", filter.str(), a.contextLength,
                       x.d[1]);
  out = rt::Shape{x.d[0], filter.d[1]};
  return "";
}

/// lookup_table (v1): Ids [..., 1] -> [..., W cols].
inline std::string lookup_table_shape(const rt::Shape& ids, const rt::Shape& w, rt::Shape& out) {
  if (w.rank != 2) return fmt::format("W must be 2-D, got {}", w.str());
  if (ids.rank < 1 || (ids.d[ids.rank - 1] != 1 && ids.d[ids.rank - 1] >= 0))
    return fmt::format("Ids must end in a dim of 1 (lookup_table v1), got {}", ids.str());
  out = ids;
  out.d[ids.rank - 1] = w.d[1];
  return "";
}

/// sequence_mask: X's dims plus maxlen (-1 when it is read from X or MaxLenTensor at run time).
inline std::string sequence_mask_shape(const rt::Shape& x, int64_t maxlen, rt::Shape& out) {
  if (x.rank >= rt::Shape::kMaxRank) return "X's rank is too large";
  out = x;
  out.d[out.rank++] = maxlen;
  return "";
}

}  // namespace fluidc::shapes
