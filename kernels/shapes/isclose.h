// kernels/shapes/isclose.h - isclose/allclose: the operands' shape rule and the tolerance strings' parse, for kernels and compiler.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Input and Other: one rank, equal dims (a -1 passes); Paddle does not
/// broadcast them.
inline std::string isclose_check(const rt::Shape& input, const rt::Shape& other) {
  bool same = input.rank == other.rank;
  for (int i = 0; same && i < input.rank; ++i)
    if (input.d[i] >= 0 && other.d[i] >= 0 && input.d[i] != other.d[i]) same = false;
  if (!same) return fmt::format("Input {} and Other {} must have one shape", input.str(), other.str());
  return "";
}

/// Parses a tolerance attribute (rtol / atol, which Paddle writes as a
/// string): the whole string must be one finite number. The text is not
/// echoed back (it comes from the program, and may be anything).
inline std::string parse_tolerance(const char* name, const std::string& text, double& value) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  value = text.empty() ? 0.0 : std::strtod(s, &end);
  if (text.empty() || end != s + text.size() || errno == ERANGE || !std::isfinite(value))
    return fmt::format("attribute {} ({} characters) is not a finite number", name, text.size());
  return "";
}

}  // namespace fluidc::shapes
