// runtime/error.h - the one exception type the runtime and kernels throw for bad input.
#pragma once

#include <stdexcept>
#include <string>

namespace fluidc::rt {

/// Thrown by kernels and runtime IO when input is invalid (shape mismatch,
/// bad feed, truncated file). The driver catches it, prefixes the location
/// of the op that was running, prints it and exits 1. Never thrown for our
/// own bugs: those are asserts.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

/// Throws Error(message) when `cond` is false. Message building is deferred
/// to the failing path by taking a callable or a plain string.
[[noreturn]] void fail(const std::string& msg);
inline void check(bool cond, const char* msg) {
  if (!cond) fail(msg);
}

}  // namespace fluidc::rt
