// compiler/driver/dump.h - `fluidc dump`: a human-readable listing of a program.
#pragma once

#include <string>

namespace fluidc {

/// A listing of blocks, variables (dtype, dims, persistable) and ops of a
/// program that parses, even when it does not verify. Verification problems
/// are printed after the listing; returns the exit code.
int dump_program(const std::string& path, bool all_attrs);

}  // namespace fluidc
