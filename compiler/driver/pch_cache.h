// compiler/driver/pch_cache.h - a cached precompiled header of the runtime's and kernels' headers for the embedded Clang.
//
// Parsing the runtime and kernel headers is about half of compiling a small
// program. The embedded compiler parses them once into a precompiled header
// kept in $XDG_CACHE_HOME/fluidc (default ~/.cache/fluidc), one entry per
// compiler version, flags and header set, reused while every header it read
// keeps its size and modification time (what Clang itself checks). The code
// it gives is the same as without it (install.embedded_compiler compares).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/driver/compile_exec.h"

namespace fluidc {

/// The precompiled header for the C++ compiles `command` makes for `recipe`,
/// built first when not cached: its path, for -include-pch, or
/// "" when none is used: an external compiler, FLUIDC_NO_PCH=1, -g in the
/// flags (debug information would name the cache), no writable cache
/// directory, a header under a -ffile-prefix-map directory other than one
/// that covers an -I directory (its __FILE__ would depend on that map; a map
/// that covers an -I directory, the working directory over fluidc's headers,
/// is part of the entry's key instead), or building it failed (the build
/// goes on without; -v says why).
/// `command(recipe, source, object)`: the compile command the PCH must match
/// (default: target.object_command; `--emit lib` passes its -fPIC one).
using CompileCommandFn =
    std::function<std::vector<std::string>(const BuildRecipe&, const std::string& source, const std::string& object)>;
std::string precompiled_header(const Compiler& compiler, const Target& target, const BuildRecipe& recipe, bool verbose,
                               const CompileCommandFn& command = {});

/// `cmd` (an object_command) with the precompiled header `pch` included first.
void use_precompiled_header(std::vector<std::string>& cmd, const std::string& pch);

}  // namespace fluidc
