// compiler/driver/main.cc - the `fluidc` command line: build, emit, check, dump, ops.
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/driver/build.h"
#include "compiler/driver/dump.h"
#include "compiler/driver/pipeline.h"
#include "compiler/version.h"
#include "runtime/error.h"

namespace {

const char* kUsage = R"(fluidc - ahead-of-time compiler for PaddlePaddle Fluid programs

usage:
  fluidc build MAIN [--startup STARTUP] [--params FILE|DIR] [--loss VAR] [-O0..-O3]
               [--save-temps DIR] [-v] -o OUT
      Compile a ProgramDesc (.pdmodel, __model__, or .pbtxt text) into a standalone
      executable: a trainer when the program has optimizer ops, an inference binary
      otherwise. --startup compiles the startup program in (parameter initialisation);
      --params embeds weights (combined .pdiparams or per-variable directory) as the
      binary's default. Uses clang++ unless $CXX is set.
  fluidc emit MAIN [same options] -o DIR
      Write the generated C++ and a CMakeLists.txt that builds it, instead of building.
  fluidc check PROGRAM
      Verify a program; print located diagnostics; exit 0 if it compiles, 1 if not.
  fluidc dump PROGRAM [--all-attrs]
      List blocks, variables (dtype, dims, persistable) and ops.
  fluidc ops
      List the supported ops: gradient op, CPU path, CUDA path.
  fluidc --version | --help

Exit status: 0 success, 1 bad input (located diagnostics on stderr), 2 usage error.
See docs/cli.md for details.
)";

struct Args {
  std::vector<std::string> positional;
  fluidc::BuildOptions build;
  bool all_attrs = false;
};

[[noreturn]] void usage_error(const std::string& msg) {
  fmt::print(stderr, "fluidc: {}\nRun `fluidc --help` for usage.\n", msg);
  std::exit(2);
}

Args parse(int argc, char** argv, int first) {
  Args a;
  auto value = [&](int& i, const char* flag) -> std::string {
    std::string arg = argv[i];
    if (auto eq = arg.find('='); eq != std::string::npos) return arg.substr(eq + 1);
    if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", flag));
    return argv[++i];
  };
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    auto is = [&](const char* flag) { return arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0; };
    if (is("--startup")) a.build.startup_path = value(i, "--startup");
    else if (is("--params")) a.build.params_path = value(i, "--params");
    else if (is("--save-temps")) a.build.save_temps = value(i, "--save-temps");
    else if (is("--loss")) a.build.loss = value(i, "--loss");
    else if (arg == "-o") a.build.output = value(i, "-o");
    else if (arg.size() == 3 && arg.rfind("-O", 0) == 0 && arg[2] >= '0' && arg[2] <= '3') a.build.opt_level = arg[2] - '0';
    else if (arg == "-v" || arg == "--verbose") a.build.verbose = true;
    else if (arg == "--all-attrs") a.all_attrs = true;
    else if (arg.size() > 1 && arg[0] == '-') usage_error(fmt::format("unknown option '{}'", arg));
    else a.positional.push_back(arg);
  }
  return a;
}

std::string one_program(const Args& a, const char* cmd) {
  if (a.positional.size() != 1) usage_error(fmt::format("`fluidc {}` takes exactly one program file", cmd));
  return a.positional[0];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage_error("no command given");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (cmd == "--version") {
    fmt::print("fluidc {}\n", fluidc::kFluidcVersion);
    return 0;
  }
  try {
    Args a = parse(argc, argv, 2);
    if (cmd == "build" || cmd == "emit") {
      a.build.main_path = one_program(a, cmd.c_str());
      if (cmd == "build") fluidc::build_executable(a.build);
      else fluidc::emit_sources(a.build);
      return 0;
    }
    if (cmd == "check") {
      auto checked = fluidc::load_checked(one_program(a, "check"));
      fmt::print(stderr, "{}", checked.diags.str());
      fmt::print("{}: ok ({} blocks, {} ops in block 0)\n", checked.program.origin(), checked.program.num_blocks(),
                 checked.program.block(0).ops_size());
      return 0;
    }
    if (cmd == "dump") return fluidc::dump_program(one_program(a, "dump"), a.all_attrs);
    if (cmd == "ops") {
      fluidc::print_op_table();
      return 0;
    }
    usage_error(fmt::format("unknown command '{}'", cmd));
  } catch (const fluidc::UserError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  } catch (const fluidc::rt::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  } catch (const fluidc::InternalError& e) {
    fmt::print(stderr, "fluidc: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fluidc: internal error (a fluidc bug, please report it): {}\n", e.what());
    return 3;
  }
}
