// test/unit/transpilers/program_describe.h - the canonical text of a program that tools/fixtures_distribute.py writes for Paddle's.
#pragma once

#include <string>

#include "compiler/ir/program.h"

namespace fluidc::test {

/// Per block: its ops (non-empty slots, sorted by slot name; the key
/// attributes of the distributed transpilers' ops) and its variables
/// (sorted, control variables left out); `__control_var@...` names become
/// @C0, @C1... in order of first use. Must match describe() in
/// tools/fixtures_distribute.py line for line.
std::string describe_program(const pb::ProgramDesc& prog);

}  // namespace fluidc::test
