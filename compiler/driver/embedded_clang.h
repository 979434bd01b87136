// compiler/driver/embedded_clang.h - the Clang/LLVM 14 linked into fluidc: a clang++ driver run in-process.
//
// compile_exec.cc forks a child and calls run_embedded_clang there, so a
// crash inside Clang ends that child, never fluidc. The child behaves as
// `clang++ ARGS...` does: the same driver (Debian's Clang 14 libraries), the
// same cc1 arguments and so the same objects; the assembler (-cc1as, for
// params.S) is embedded_assembler.cc; only the final link runs the system
// linker (/usr/bin/ld, binutils), as clang++ itself does.
#pragma once

#include <string>
#include <vector>

namespace fluidc {

/// True when this fluidc was built with the Clang libraries (CMake option
/// FLUIDC_EMBEDDED_CLANG); false from embedded_clang_none.cc.
bool embedded_clang_built();

/// Why the embedded compiler cannot run on this machine ("" when it can):
/// its built-in headers (Clang's resource directory) are missing.
std::string embedded_clang_unusable();

/// "Debian clang version 14.0.6" or similar: the PCH cache key names it.
std::string embedded_clang_version();

/// Runs the clang++ driver on `args` (compiler flags, inputs, -o; no argv[0])
/// in this process and returns its exit status. Call it in a child process:
/// it initialises LLVM's global state and leaks the compiler's memory, as
/// clang's own -disable-free does.
int run_embedded_clang(const std::vector<std::string>& args, bool verbose);

/// `-cc1as ARGS` (the driver's assembler job, args without "-cc1as"): the
/// LLVM MC assembler, for params.S. Exit status.
int run_embedded_assembler(const std::vector<const char*>& args);

/// `fluidc run`: compiles the generated sources (`compiles`: one command per
/// translation unit, flags and the source as for clang++ -c; the one with
/// main() first) to LLVM IR in memory, links them in an ORC JIT against
/// `archives` (the runtime's) and this process's libraries, and runs main()
/// with `program_args` (argv[0] first). main's exit status, or 3 when the
/// JIT fails. Call it in a child process.
int run_embedded_jit(const std::vector<std::vector<std::string>>& compiles, const std::vector<std::string>& archives,
                     const std::vector<std::string>& program_args);

}  // namespace fluidc
