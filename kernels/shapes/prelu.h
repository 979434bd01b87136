// kernels/shapes/prelu.h - which slope of prelu's Alpha each X element takes, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/prelu.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// X element i takes slope (i / inner) % count: "all" (inner = numel,
/// count = 1), "channel" first (inner = the dims after the channel), channel
/// last (inner = 1, count = C), "element" (inner = 1, count = numel / N).
struct PreluMap {
  int64_t inner = 1, count = 1;
};

/// The map for X and the number of values Alpha must hold; kUnknown dims
/// give kUnknown counts (not checked).
inline std::string prelu_map(const Shape& x, const kernels::PreluAttrs& a, PreluMap& m) {
  m = PreluMap{};
  const bool first = a.data_format == "NCHW" || a.data_format == "NCDHW" || a.data_format == "NCL" ||
                     a.data_format == "NC" || a.data_format == "AnyLayout" || a.data_format.empty();
  const bool last = a.data_format == "NHWC" || a.data_format == "NDHWC" || a.data_format == "NLC";
  if (!first && !last) return fmt::format("data_format {} is neither channel-first nor channel-last", a.data_format);
  if (a.mode == "all") {
    m.inner = numel_of(x, 0, x.rank);
    m.count = 1;
    return {};
  }
  if (a.mode != "channel" && a.mode != "element")
    return fmt::format("mode {} is not one of all, channel, element", a.mode);
  if (x.rank < 2) return fmt::format("X {} must have rank >= 2 in {} mode", x.str(), a.mode);
  if (a.mode == "element") {
    m.count = numel_of(x, 1, x.rank);
  } else if (last) {
    m.count = x.d[x.rank - 1];
  } else {
    m.count = x.d[1];
    m.inner = numel_of(x, 2, x.rank);
  }
  return {};
}

/// The map, with Alpha's element count checked against it.
inline std::string prelu_check(const Shape& x, const Shape& alpha, const kernels::PreluAttrs& a, PreluMap& m) {
  if (std::string e = prelu_map(x, a, m); !e.empty()) return e;
  const int64_t n = numel_of(alpha, 0, alpha.rank);
  if (n >= 0 && m.count >= 0 && n != m.count)
    return fmt::format("Alpha {} has {} values; X {} in {} mode needs {}", alpha.str(), n, x.str(), a.mode, m.count);
  return {};
}

}  // namespace fluidc::shapes
