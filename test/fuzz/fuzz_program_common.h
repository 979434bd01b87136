// test/fuzz/fuzz_program_common.h - shared body of the two ProgramDesc fuzz targets.
#pragma once

#include <string>

#include "compiler/ir/program.h"

namespace fluidc::fuzz {

// A parse either fails with UserError (the documented outcome for a corrupt
// file) or yields a Program whose lookups must then work on whatever the file
// declared. Any other exception escapes, and libFuzzer reports it as a crash.
inline void parse_program(const std::string& bytes, bool text) {
  Program p = [&]() -> Program {
    try {
      return Program::parse(bytes, "fuzz-input", text);
    } catch (const UserError&) {
      return Program::from_desc({}, "");
    }
  }();
  // Walk what was accepted: name lookup through parents, locations, and the
  // text printer, the parts every later pass leans on.
  for (int b = 0; b < p.num_blocks(); ++b) {
    try {
      (void)p.parent_of(b);
      const auto& block = p.block(b);
      for (const auto& v : block.vars()) (void)p.find_var(b, v.name());
      for (int op = 0; op < block.ops_size(); ++op) (void)p.loc(b, op);
    } catch (const UserError&) {
      // A parent index out of range and the like are reported as user errors.
    }
  }
  if (p.num_blocks() > 0) (void)p.to_text();
}

}  // namespace fluidc::fuzz
