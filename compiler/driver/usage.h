// compiler/driver/usage.h - command-line misuse (exit 2), kept apart from bad input files (exit 1).
#pragma once

#include <set>
#include <stdexcept>
#include <string>

#include "compiler/driver/build.h"

namespace fluidc {

/// Bad, missing or conflicting command-line arguments of fluidc: `fluidc`
/// prints it with a pointer to --help and exits 2 (docs/cli.md). Bad input
/// files stay UserError (exit 1). Not a UserError on purpose, so a catch of
/// UserError never turns a usage error into exit 1.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& msg) : std::runtime_error(msg) {}
};

[[noreturn]] void usage_error(const std::string& message);

/// Checks that each flag in `given` (names as typed, e.g. "--lr") means
/// something for subcommand `cmd` with the other flags given: a training
/// flag needs the pass it configures (a plain `fluidc build` would ignore
/// it), optimizer attributes need an optimizer that has them, and so on.
/// Throws UsageError naming the flag and what it needs.
void check_flag_use(const std::string& cmd, const std::set<std::string>& given, const BuildOptions& o);

}  // namespace fluidc
