// compiler/driver/main.cc - the `fluidc` command line: build, emit, check, dump, ops.
#include <fmt/format.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "compiler/analysis/shape_infer.h"
#include "compiler/driver/build.h"
#include "compiler/driver/dump.h"
#include "compiler/driver/embedded_clang.h"
#include "compiler/driver/op_doc.h"
#include "compiler/driver/frontend.h"
#include "compiler/driver/usage.h"
#include "compiler/version.h"
#include "runtime/error.h"

namespace {

const char* kUsage = R"(fluidc - ahead-of-time compiler for PaddlePaddle Fluid programs

usage:
  fluidc build MAIN [--startup STARTUP] [--params FILE|DIR] [--loss VAR] [-O0..-O3]
               [--fetch VAR,...] [--save-temps DIR] [--no-fuse] [-v] -o OUT
      Compile a ProgramDesc (.pdmodel, __model__, or .pbtxt text) into a standalone
      executable: a trainer when the program has optimizer ops, an inference binary
      otherwise. --startup compiles the startup program in (parameter initialisation);
      --params embeds weights (combined .pdiparams or per-variable directory) as the
      binary's default. --fetch adds variables the binary writes out (any tensor of
      block 0, e.g. gradients). Chains of elementwise ops become single loops unless
      --no-fuse is given. Compiles in-process with the Clang built into fluidc (when it
      has one; else clang++), or with --cxx PATH (default: $CXX when set) as a process.
      Block-0 temporaries share one planned arena unless --no-memory-plan is given;
      --memory-report prints the plan (arena, bytes without a plan, lower bound, peak);
      --max-memory BYTES fails the build when the static arena needs more.
  fluidc build PROGRAM --train [--loss VAR] [--label NAME --loss-fn mse|cross_entropy|softmax_cross_entropy]
               [--optimizer sgd|momentum|adam] [--lr X] [--momentum M] [--nesterov]
               [--beta1 B1] [--beta2 B2] [--epsilon E] [--weight-decay W] [--clip-norm N] [--no-grad VAR,...]
               [--startup S] -o trainer
      Build a trainer from a forward-only or exported inference program: fluidc appends
      the backward pass (autodiff) and the optimizer itself. With --label, --loss names
      the model output and the loss is built from it and a new label feed. Without
      --loss, the program's only fetch target. Training flags need --train.
  fluidc build MAIN [same options] --emit lib [--class NS::Name] -o DIR/libNAME.a
      A static library instead of an executable: libNAME.a (the program, the runtime and
      the kernels: link it and -lpthread) and DIR/NAME.h, a self-contained header declaring
      class NS::Name (default fluidc_models::Name) with typed, named input and output
      accessors and run(), or step()/save()/load() for a trainer. See docs/library.md.
  fluidc build MAIN [same options] --target cuda -o OUT
      A CUDA binary instead (model.cu built by nvcc with cuBLAS; same command line plus
      --device N, --no-cuda-graph, --cuda-stats; exits 77 without a GPU). docs/cuda.md.
  fluidc emit MAIN [same options] [--namespace NS] [--no-main] -o DIR
      Write the generated C++ and a CMakeLists.txt that builds it, instead of building.
      The program becomes class NS::Model with NS::model_info() (runtime/model.h);
      --no-main leaves out main() so several programs link into one binary.
  fluidc opt PROGRAM [--passes=PASS,...] [training options] [--startup S]
             [--startup-out S2] [--print-after=PASS|all] -o OUT.pdmodel|OUT.pbtxt
      Run the pipeline's passes (strip-inference, loss, autodiff, optimizer, dead-code, fuse, memory-plan; default
      autodiff,optimizer) in their fixed order and write the rewritten ProgramDesc (binary,
      or text for .pbtxt; Paddle loads it back) and its side tables beside it (the fuse
      pass's plan: OUT.fusion; the memory plan's: OUT.memory). --print-after prints the program after a pass, or each.
  fluidc opt TRAINER --passes=[autodiff,optimizer,]distribute --startup S --startup-out S2 -o OUT
             (--pservers H:P,... --trainers N --trainer-id I [--sync|--async] [--min-block-size K]
              | --collective --nranks N)
      Distributed training, structured as Paddle's DistributeTranspiler / GradAllReduce:
      OUT is the trainer, S2 its startup, and per server OUT.pserver<i> and
      OUT.pserver<i>.startup (before OUT's extension). See docs/distributed.md.
  fluidc run MAIN [build options] -- [program options]
      Compile MAIN in memory with the embedded Clang and run it in an ORC JIT, without
      writing a binary; the options after -- are the generated binary's (--feed, --params...).
  fluidc check PROGRAM
      Verify a program; print located diagnostics; exit 0 if it compiles, 1 if not.
  fluidc dump PROGRAM [--all-attrs]
      List blocks, variables (dtype, dims, persistable) and ops, and the side tables
      `fluidc opt` wrote beside PROGRAM (PROGRAM.fusion, PROGRAM.memory).
  fluidc ops [--markdown]
      List the supported ops: gradient op, CPU path, CUDA path. --markdown writes the
      fuller table of docs/ops.md (slots, attributes, fusable ops) by op family.
  fluidc --version | --help

--strict-shapes (build, emit, opt, check): a declared VarDesc dim that conflicts with the
inferred one is an error; by default the inferred shape wins, with a warning.

Exit status: 0 success, 1 bad input (located diagnostics on stderr), 2 usage error
(unknown, missing, conflicting or ignored command-line arguments), 3 internal error.
Generated binaries take --check-nan: stop at the first op that outputs NaN or Inf.
See docs/cli.md for details.
)";

struct Args {
  std::vector<std::string> positional;
  fluidc::BuildOptions build;
  bool all_attrs = false;
  bool markdown = false;  ///< `fluidc ops --markdown`
  std::set<std::string> given;  ///< flags as typed ("--lr", "-o"), for check_flag_use
};

using fluidc::usage_error;

// --max-memory BYTES: a plain non-negative count of bytes.
int64_t max_memory(const std::string& v) {
  if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos)
    usage_error(fmt::format("--max-memory needs a number of bytes, not '{}'", v));
  return std::stoll(v);
}

double number(const std::string& v, const char* flag) {
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (const std::exception&) {
  }
  usage_error(fmt::format("{} expects a number, got '{}'", flag, v));
}

// A whole number for a count flag (--trainers, --nranks, --min-block-size...).
int64_t integer(const std::string& v, const char* flag) {
  if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos)
    usage_error(fmt::format("{} expects a whole number, got '{}'", flag, v));
  return std::stoll(v);
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
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
    if (arg.size() > 1 && arg[0] == '-') a.given.insert(arg.substr(0, arg.find('=')));
    auto is = [&](const char* flag) { return arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0; };
    auto& po = a.build.pipeline;
    auto& attrs = po.optimizer.attrs;  // optimizer attributes by Paddle name; ops ignore those they lack
    if (is("--startup")) a.build.startup_path = value(i, "--startup");
    else if (is("--params")) a.build.params_path = value(i, "--params");
    else if (is("--save-temps")) a.build.save_temps = value(i, "--save-temps");
    else if (is("--loss")) po.loss = value(i, "--loss");
    else if (arg == "--train") a.build.train = true;
    else if (is("--label")) po.label = value(i, "--label");
    else if (is("--loss-fn")) po.loss_fn = value(i, "--loss-fn");
    else if (is("--optimizer")) po.optimizer.type = value(i, "--optimizer");
    else if (is("--lr")) po.optimizer.learning_rate = number(value(i, "--lr"), "--lr");
    else if (is("--momentum")) attrs["mu"] = number(value(i, "--momentum"), "--momentum");
    else if (arg == "--nesterov") attrs["use_nesterov"] = 1;
    else if (is("--beta1")) attrs["beta1"] = number(value(i, "--beta1"), "--beta1");
    else if (is("--beta2")) attrs["beta2"] = number(value(i, "--beta2"), "--beta2");
    else if (is("--epsilon")) attrs["epsilon"] = number(value(i, "--epsilon"), "--epsilon");
    else if (is("--weight-decay")) po.optimizer.weight_decay = number(value(i, "--weight-decay"), "--weight-decay");
    else if (is("--no-grad"))
      for (const auto& v : split(value(i, "--no-grad"))) po.no_grad.push_back(v);
    else if (is("--clip-norm")) po.optimizer.clip_norm = number(value(i, "--clip-norm"), "--clip-norm");
    else if (is("--passes")) a.build.passes = split(value(i, "--passes"));
    else if (is("--print-after")) po.print_after = value(i, "--print-after");
    else if (is("--startup-out")) a.build.startup_out = value(i, "--startup-out");
    else if (is("--fetch"))
      for (const auto& v : split(value(i, "--fetch"))) po.fetch.push_back(v);
    else if (arg == "-o") a.build.output = value(i, "-o");
    else if (arg.size() == 3 && arg.rfind("-O", 0) == 0 && arg[2] >= '0' && arg[2] <= '3') a.build.opt_level = arg[2] - '0';
    else if (arg == "-v" || arg == "--verbose") a.build.verbose = true;
    else if (is("--target")) {
      a.build.target = value(i, "--target");
      if (a.build.target != "cpu" && a.build.target != "cuda")
        usage_error(fmt::format("--target: expected cpu or cuda, got '{}'", fluidc::printable(a.build.target)));
    }
    else if (arg == "--no-fuse") a.build.fuse = false;
    else if (arg == "--no-memory-plan") a.build.memory_plan = false;
    else if (arg == "--memory-report") a.build.memory_report = true;
    else if (is("--max-memory")) a.build.max_memory = max_memory(value(i, "--max-memory"));
    else if (arg == "--markdown") a.markdown = true;
    else if (arg == "--strict-shapes") fluidc::set_strict_shapes(true);
    else if (is("--namespace")) a.build.cpp_namespace = value(i, "--namespace");
    else if (arg == "--no-main") a.build.emit_main = false;
    else if (is("--emit")) {
      const std::string what = value(i, "--emit");
      if (what == "lib") a.build.emit_lib = true;
      else if (what != "exe") usage_error(fmt::format("--emit expects exe or lib, got '{}'", what));
    }
    else if (is("--class")) a.build.lib_class = value(i, "--class");
    // The distribute pass (docs/distributed.md).
    else if (is("--pservers")) {
      po.distribute_options.mode = fluidc::DistributeOptions::Mode::kPserver;
      po.distribute_options.pservers = split(value(i, "--pservers"));
    }
    else if (is("--trainers")) po.distribute_options.trainers = static_cast<int>(integer(value(i, "--trainers"), "--trainers"));
    else if (is("--trainer-id"))
      po.distribute_options.trainer_id = static_cast<int>(integer(value(i, "--trainer-id"), "--trainer-id"));
    else if (arg == "--sync") po.distribute_options.sync = true;
    else if (arg == "--async") po.distribute_options.sync = false;
    else if (is("--min-block-size"))
      po.distribute_options.min_block_size = integer(value(i, "--min-block-size"), "--min-block-size");
    else if (arg == "--collective") po.distribute_options.mode = fluidc::DistributeOptions::Mode::kCollective;
    else if (is("--nranks")) po.distribute_options.nranks = static_cast<int>(integer(value(i, "--nranks"), "--nranks"));
    else if (is("--cxx")) a.build.cxx = value(i, "--cxx");
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
  if (argc < 2) {
    fmt::print(stderr, "fluidc: no command given\nRun `fluidc --help` for usage.\n");
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (cmd == "--version") {
    fmt::print("fluidc {}\n", fluidc::kFluidcVersion);
    // Which compiler `fluidc build` uses by default (without --cxx or $CXX).
    if (fluidc::embedded_clang_built()) fmt::print("embedded compiler: {}\n", fluidc::embedded_clang_version());
    else fmt::print("embedded compiler: none (clang++ or $CXX compiles generated code)\n");
    return 0;
  }
  try {
    // `fluidc run MAIN [build options] -- [program options]`: what follows -- goes to the program.
    std::vector<std::string> program_args;
    if (cmd == "run") {
      for (int i = 2; i < argc; ++i)
        if (std::strcmp(argv[i], "--") == 0) {
          program_args.assign(argv + i + 1, argv + argc);
          argc = i;
          break;
        }
    }
    Args a = parse(argc, argv, 2);
    if (cmd == "run") {
      fluidc::check_flag_use(cmd, a.given, a.build);
      a.build.main_path = one_program(a, "run");
      return fluidc::run_program(a.build, program_args);
    }
    if (cmd == "build" || cmd == "emit" || cmd == "opt" || cmd == "check" || cmd == "dump" || cmd == "ops")
      fluidc::check_flag_use(cmd, a.given, a.build);
    if (cmd == "build" || cmd == "emit") {
      a.build.main_path = one_program(a, cmd.c_str());
      if (cmd == "build") fluidc::build_executable(a.build);
      else fluidc::emit_sources(a.build);
      return 0;
    }
    if (cmd == "opt") {
      a.build.main_path = one_program(a, "opt");
      fluidc::optimize_program(a.build);
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
      if (!a.positional.empty()) usage_error("`fluidc ops` takes no program");
      if (a.markdown)
        fluidc::print_op_table_markdown();
      else
        fluidc::print_op_table();
      return 0;
    }
    usage_error(fmt::format("unknown command '{}'", cmd));
  } catch (const fluidc::UsageError& e) {
    fmt::print(stderr, "fluidc: {}\nRun `fluidc --help` for usage.\n", e.what());
    return 2;
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
