// compiler/analysis/verify.h - structural and semantic checks of a program before anything else runs.
#pragma once

#include "compiler/support/diagnostics.h"
#include "compiler/ir/program.h"

namespace fluidc {

/// Checks block structure (indices, parents, no cycles), that every op type
/// is supported (all unsupported ones are reported together in one error),
/// that each op's slots and attributes match its definition, and that every
/// variable an op reads or writes is defined in its block or an ancestor.
/// Appends located diagnostics; never throws for bad input.
void verify_program(const Program& prog, Diagnostics& diags);

}  // namespace fluidc
