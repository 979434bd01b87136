// compiler/driver/compile_exec.h - the one place that runs "the compiler" on generated code: a process or the embedded Clang.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace fluidc {

/// Which compiler builds generated code.
struct Compiler {
  /// An external compiler's path or name (run as a process); empty: the
  /// Clang linked into fluidc (compiler/driver/embedded_clang.h).
  std::string external;
  bool embedded() const { return external.empty(); }
  /// For messages: "the embedded Clang" or "the C++ compiler 'g++'".
  std::string describe() const;
};

/// `--cxx PATH` when given, else $CXX when set, else the embedded Clang when
/// this fluidc has it (an error when it cannot run here, naming why), else
/// clang++ from $PATH.
Compiler choose_compiler(const std::string& cxx_flag);

/// Starts one command the target made (argv[0], the target's compiler name,
/// is replaced by `compiler`) and returns its process id, for waitpid(): an
/// external compiler is spawned; the embedded one runs in a forked child, so
/// a crash inside Clang ends the child, not fluidc.
pid_t start_compile(const Compiler& compiler, std::vector<std::string> argv, bool verbose);

/// Waits for `pid`: its exit status, or 128 + the signal that ended it.
int wait_compile(pid_t pid);

/// Runs `body` in a forked child (so that a crash in it ends the child, not
/// fluidc) and returns its result, or 128 + the signal that ended it.
int run_forked(const std::function<int()>& body);

/// Runs one command to completion: its exit status.
int run_compile(const Compiler& compiler, const std::vector<std::string>& argv, bool verbose);

}  // namespace fluidc
