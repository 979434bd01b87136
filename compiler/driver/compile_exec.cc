// compiler/driver/compile_exec.cc - run a compile or link of generated code: spawn the external compiler, or fork the embedded one.
#include "compiler/driver/compile_exec.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "compiler/driver/embedded_clang.h"
#include "compiler/support/diagnostics.h"

extern char** environ;

namespace fluidc {

std::string Compiler::describe() const {
  return embedded() ? "the embedded Clang" : fmt::format("the C++ compiler '{}'", external);
}

Compiler choose_compiler(const std::string& cxx_flag) {
  if (!cxx_flag.empty()) return {cxx_flag};
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) return {cxx};
  if (!embedded_clang_built()) return {"clang++"};
  if (const std::string why = embedded_clang_unusable(); !why.empty())
    user_error(fmt::format("the embedded Clang cannot compile here: {}; give --cxx clang++ (or set $CXX) to use an "
                           "installed compiler",
                           why));
  return {};
}

pid_t start_compile(const Compiler& compiler, std::vector<std::string> argv, bool verbose) {
  if (compiler.embedded()) {
    if (verbose) fmt::print(stderr, "[embedded clang++] {}\n", fmt::join(argv.begin() + 1, argv.end(), " "));
    std::fflush(nullptr);  // the child must not write the parent's buffered output a second time
    const pid_t pid = fork();
    if (pid < 0) user_error("cannot fork to run the embedded Clang");
    if (pid == 0) {
      const int rc = run_embedded_clang(std::vector<std::string>(argv.begin() + 1, argv.end()), verbose);
      std::fflush(nullptr);
      _exit(rc);  // not exit(): the parent's atexit handlers and static destructors are not the child's to run
    }
    return pid;
  }
  argv[0] = compiler.external;
  if (verbose) fmt::print(stderr, "{}\n", fmt::join(argv, " "));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0)
    user_error(fmt::format("cannot run the C++ compiler '{}' (--cxx PATH or $CXX chooses another)", argv[0]));
  return pid;
}

int wait_compile(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return 128;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int run_forked(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) user_error("cannot fork");
  if (pid == 0) {
    const int rc = body();
    std::fflush(nullptr);
    _exit(rc);
  }
  return wait_compile(pid);
}

int run_compile(const Compiler& compiler, const std::vector<std::string>& argv, bool verbose) {
  return wait_compile(start_compile(compiler, argv, verbose));
}

}  // namespace fluidc
