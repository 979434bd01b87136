// compiler/driver/dump.h - `fluidc dump` and `fluidc ops`: human-readable listings.
#pragma once

#include <string>

namespace fluidc {

/// A listing of blocks, variables (dtype, dims, persistable) and ops of a
/// program that parses, even when it does not verify. Verification problems
/// are printed after the listing; returns the exit code.
int dump_program(const std::string& path, bool all_attrs);

/// The supported ops with their grad op and whether a CPU and CUDA path exist.
void print_op_table();

}  // namespace fluidc
