// compiler/driver/usage.cc - which flags make sense together: a flag that would be ignored is an error.
#include "compiler/driver/usage.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "compiler/driver/pipeline.h"
#include "compiler/ops/registry.h"
#include "transpilers/loss.h"

namespace fluidc {
namespace {

bool listed(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Flags that configure a pass, and the pass: given while that pass does not
// run, they would be silently ignored.
struct PassFlag {
  const char* flag;
  const char* pass;
};
constexpr PassFlag kPassFlags[] = {
    {"--label", "autodiff"},       {"--loss-fn", "autodiff"},   {"--no-grad", "autodiff"},
    {"--optimizer", "optimizer"},  {"--lr", "optimizer"},       {"--momentum", "optimizer"},
    {"--nesterov", "optimizer"},   {"--beta1", "optimizer"},    {"--beta2", "optimizer"},
    {"--epsilon", "optimizer"},    {"--weight-decay", "optimizer"}, {"--clip-norm", "optimizer"},
    {"--pservers", "distribute"},  {"--trainers", "distribute"},  {"--trainer-id", "distribute"},
    {"--sync", "distribute"},      {"--async", "distribute"},     {"--min-block-size", "distribute"},
    {"--collective", "distribute"}, {"--nranks", "distribute"},
};

// Optimizer attributes set by a flag: the optimizer op must have them.
struct AttrFlag {
  const char* flag;
  const char* attr;
};
constexpr AttrFlag kAttrFlags[] = {
    {"--momentum", "mu"}, {"--nesterov", "use_nesterov"}, {"--beta1", "beta1"}, {"--beta2", "beta2"}, {"--epsilon", "epsilon"}};

// Flags only some subcommands read.
struct CmdFlag {
  const char* flag;
  std::vector<std::string> cmds;
};
const std::vector<CmdFlag>& cmd_flags() {
  static const std::vector<CmdFlag> k = {
      {"--startup-out", {"opt"}},           {"--namespace", {"emit"}},
      {"--no-main", {"emit", "build"}},     // build: refused below with a pointer to emit
      {"--all-attrs", {"dump"}},            {"--save-temps", {"build"}}, {"-v", {"build", "run"}},
      {"--verbose", {"build", "run"}},      {"--params", {"build", "emit", "run"}},  // run: refused with a pointer
      {"--fetch", {"build", "emit", "run"}}, {"--no-fuse", {"build", "emit", "opt", "run"}},
      {"--train", {"build", "emit", "run"}},       {"--markdown", {"ops"}},
      {"--emit", {"build"}},                {"--class", {"build"}},
      {"--no-memory-plan", {"build", "emit", "opt", "run"}}, {"--memory-report", {"build", "emit"}},
      {"--max-memory", {"build", "emit"}},
      {"--pservers", {"opt"}}, {"--trainers", {"opt"}}, {"--trainer-id", {"opt"}}, {"--sync", {"opt"}},
      {"--async", {"opt"}}, {"--min-block-size", {"opt"}}, {"--collective", {"opt"}}, {"--nranks", {"opt"}},
      {"--target", {"build", "emit"}},
      {"--cxx", {"build"}},
  };
  return k;
}

// The passes that will run: what the driver's pipeline_options picks.
std::vector<std::string> passes_run(const std::string& cmd, const BuildOptions& o) {
  std::vector<std::string> p = o.passes;
  if (p.empty() && (cmd == "opt" || o.train)) p = {"autodiff", "optimizer"};
  return p;
}

}  // namespace

void usage_error(const std::string& message) { throw UsageError(message); }

void check_flag_use(const std::string& cmd, const std::set<std::string>& given, const BuildOptions& o) {
  const bool compiles = cmd == "build" || cmd == "emit" || cmd == "opt" || cmd == "run";
  for (const auto& cf : cmd_flags())
    if (given.count(cf.flag) && !listed(cf.cmds, cmd))
      usage_error(fmt::format("{} does not apply to `fluidc {}` (only to `fluidc {}`)", cf.flag, cmd,
                              fmt::join(cf.cmds, "`, `fluidc ")));
  if (!compiles) {
    // check, dump and ops read no pipeline flag. Listed rather than "all but
    // --all-attrs", so a flag added for check later needs no change here.
    static const std::set<std::string> kPipelineFlags = {
        "-o", "--startup", "--loss", "--passes", "--print-after", "-O0", "-O1", "-O2", "-O3"};
    for (const auto& f : given) {
      bool pipeline = kPipelineFlags.count(f) > 0;
      for (const auto& pf : kPassFlags) pipeline |= f == pf.flag;
      if (pipeline) usage_error(fmt::format("{} does not apply to `fluidc {}`", f, cmd));
    }
    return;
  }
  if (cmd == "run" && given.count("-o")) usage_error("-o does not apply to `fluidc run`: it writes no binary");
  if (o.output.empty() && cmd != "run")
    usage_error(fmt::format("`fluidc {}` needs -o {}", cmd, cmd == "emit" ? "DIR" : "OUT"));
  if (given.count("--passes") && cmd != "opt" && o.train)
    usage_error("give --train or --passes, not both (--train runs autodiff,optimizer)");
  for (const auto& p : o.passes)
    if (!listed(kPipelinePasses, p)) usage_error(fmt::format("unknown pass '{}' ({})", p, fmt::join(kPipelinePasses, ", ")));
  const auto& pa = o.pipeline.print_after;
  if (!pa.empty() && pa != "all" && !listed(kPipelinePasses, pa))
    usage_error(fmt::format("--print-after={} names no pass (all, {})", pa, fmt::join(kPipelinePasses, ", ")));

  const std::vector<std::string> passes = passes_run(cmd, o);
  const std::string how = cmd == "opt" ? "--passes naming {}" : "--train";
  for (const auto& pf : kPassFlags)
    if (given.count(pf.flag) && !listed(passes, pf.pass))
      usage_error(fmt::format("{} configures the {} pass, which does not run here: it needs {}", pf.flag, pf.pass,
                              fmt::format(fmt::runtime(how), pf.pass)));
  if (given.count("--loss-fn") && o.pipeline.label.empty())
    usage_error("--loss-fn builds a loss on --label NAME: give --label too (without it, --loss names the loss itself)");
  if (given.count("--loss-fn")) {
    const auto fns = loss_functions();
    if (!listed(fns, o.pipeline.loss_fn))
      usage_error(fmt::format("--loss-fn {} is not one of {}", o.pipeline.loss_fn, fmt::join(fns, ", ")));
  }
  if (listed(passes, "optimizer")) {
    const ops::OpDef* def = ops::find_op(o.pipeline.optimizer.type);
    if (!def || !def->optimizer) {
      std::vector<std::string> known;
      for (const auto& d : ops::all_ops())
        if (d.optimizer) known.push_back(d.type);
      usage_error(fmt::format("--optimizer: unknown optimizer '{}' ({})", o.pipeline.optimizer.type, fmt::join(known, ", ")));
    }
    for (const auto& af : kAttrFlags) {
      if (!given.count(af.flag)) continue;
      bool has = false;
      for (const auto& a : def->optimizer->attrs) has |= a.name == af.attr;
      if (!has) usage_error(fmt::format("{} does not apply to --optimizer {}", af.flag, def->type));
    }
  }
  if (listed(passes, "distribute")) {
    if (cmd != "opt") usage_error("the distribute pass writes several programs: run it with `fluidc opt`");
    const auto& d = o.pipeline.distribute_options;
    const bool ps = given.count("--pservers") > 0, coll = given.count("--collective") > 0;
    if (ps && coll) usage_error("give --pservers (parameter-server mode) or --collective, not both");
    if (given.count("--sync") && given.count("--async")) usage_error("give --sync or --async, not both");
    for (const char* f : {"--trainers", "--trainer-id", "--sync", "--async", "--min-block-size"})
      if (given.count(f) && !ps) usage_error(fmt::format("{} is a parameter-server setting: it needs --pservers", f));
    if (given.count("--nranks") && !coll) usage_error("--nranks is a collective setting: it needs --collective");
    if (std::string bad = check_distribute_options(d); !bad.empty()) usage_error(bad);
    if (o.startup_out.empty())
      usage_error("the distribute pass rewrites the startup program (trainers receive the parameters): give "
                  "--startup-out FILE");
  }
  if (cmd == "opt" && listed(passes, "optimizer") && o.startup_out.empty())
    usage_error("the optimizer pass adds state to the startup program: give --startup-out FILE");
  if (cmd == "build" && !o.emit_main) usage_error("--no-main makes sources to link into other code: use `fluidc emit`");
  if (given.count("--class") && !o.emit_lib) usage_error("--class names the class of a library: give --emit lib too");
}

}  // namespace fluidc
