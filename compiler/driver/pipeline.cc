// compiler/driver/pipeline.cc - run_pipeline: every pass in order, with the rule that fixes its place.
#include "compiler/driver/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "compiler/analysis/load_time.h"
#include "compiler/driver/frontend.h"
#include "compiler/driver/usage.h"
#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "transpilers/autodiff.h"
#include "transpilers/conv_epilogue.h"
#include "transpilers/dead_code.h"
#include "transpilers/fold_batch_norm.h"
#include "transpilers/remove_dropout.h"
#include "transpilers/winograd.h"
#include "transpilers/loss.h"
#include "transpilers/strip_inference.h"

namespace fluidc {
namespace {

class Runner {
 public:
  explicit Runner(const PipelineOptions& o) : o_(o) {
    for (const auto& p : o.passes)
      if (std::find(kPipelinePasses.begin(), kPipelinePasses.end(), p) == kPipelinePasses.end())
        usage_error(fmt::format("unknown pass '{}' ({})", p, fmt::join(kPipelinePasses, ", ")));
    if (!o.print_after.empty() && o.print_after != "all" &&
        std::find(kPipelinePasses.begin(), kPipelinePasses.end(), o.print_after) == kPipelinePasses.end())
      usage_error(fmt::format("--print-after={} names no pass (all, {})", o.print_after, fmt::join(kPipelinePasses, ", ")));
  }

  bool selected(const std::string& pass) const {
    return std::find(o_.passes.begin(), o_.passes.end(), pass) != o_.passes.end();
  }

  // Bookkeeping after a pass: what ran, and --print-after.
  void after(const std::string& pass, const pb::ProgramDesc& main, const std::string& side_table = "") {
    ran_.push_back(pass);
    if (o_.print_after != pass && o_.print_after != "all") return;
    fmt::print("// fluidc: program after pass {}\n{}", pass, Program::from_desc(main, "").to_text());
    // Side tables as protobuf-text comments, so the output still parses.
    std::istringstream lines(side_table);
    for (std::string line; std::getline(lines, line);) fmt::print("{}{}\n", line.starts_with("#") ? "" : "# ", line);
  }

  std::vector<std::string> ran_;

 private:
  const PipelineOptions& o_;
};

// The program's fetch targets (inputs of block 0's fetch ops), in order.
std::vector<std::string> fetch_targets(const Program& p) {
  std::vector<std::string> out;
  for (const auto& op : p.block(0).ops()) {
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || !def->has(ops::kFetch)) continue;
    for (const auto& x : op_inputs(op, "X"))
      if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  }
  return out;
}

std::string sole_fetch_target(const Program& p) {
  const auto targets = fetch_targets(p);
  if (targets.size() == 1) return targets[0];
  std::vector<std::string> shown;
  for (const auto& t : targets) shown.push_back("'" + printable(t) + "'");
  usage_error(targets.empty()
                  ? "training needs --loss VAR (the loss, or the output the loss is built on with --label); "
                    "the program has no fetch target to default to"
                  : fmt::format("training needs --loss VAR: the program has {} fetch targets ({}); name the one "
                                "to train on",
                                targets.size(), fmt::join(shown, ", ")));
}

bool has_optimizer(const pb::ProgramDesc& prog) {
  for (const auto& block : prog.blocks())
    for (const auto& op : block.ops())
      if (const ops::OpDef* def = ops::find_op(op.type()); def && def->has(ops::kOptimizer)) return true;
  return false;
}

void run_hook(const PassHook& hook, const std::string& pass, PipelineState& s) {
  if (!hook) usage_error(fmt::format("the {} pass does not exist yet", pass));
  Diagnostics diags;
  hook(s, diags);
  diags.throw_if_errors();
}

}  // namespace

PipelineResult run_pipeline(const Program& main, const std::optional<Program>& startup, const PipelineOptions& o) {
  Runner r(o);
  PipelineState s;
  s.main = main.desc();
  s.main_origin = main.origin();
  s.has_startup = startup.has_value();
  if (startup) s.startup = startup->desc(), s.startup_origin = startup->origin();
  else s.startup_origin = "<startup>";
  s.loss = o.loss;
  // Training without --loss: a program with one fetch target (an exported
  // model's output, named by Paddle, e.g. save_infer_model/scale_0.tmp_1)
  // trains on it; looked up before strip-inference drops the fetch ops.
  if (s.loss.empty() && (r.selected("autodiff") || r.selected("loss"))) s.loss = sole_fetch_target(main);
  if (r.selected("loss") && o.label.empty()) usage_error("the loss pass builds a loss on --label NAME: give one");
  bool rewrote = false;  // an unchanged input keeps its own bytes' sha256 in the generated stamp

  // 1. strip-inference: first, so that no later pass sees feed/fetch ops
  //    (autodiff would try to differentiate them) or is_test=true ops.
  if (r.selected("strip-inference")) {
    strip_inference(s.main);
    rewrote = true;
    r.after("strip-inference", s.main);
  }

  // 2. loss: before autodiff, which differentiates the loss it builds.
  if (r.selected("loss")) {
    s.loss = build_loss(s.main, s.main_origin, {.output = s.loss, .label = o.label, .loss_fn = o.loss_fn});
    rewrote = true;
    r.after("loss", s.main);
  }

  // 3. autodiff: after the loss exists; before the optimizer, which
  //    consumes its (parameter, gradient) pairs.
  if (r.selected("autodiff")) {
    Diagnostics diags;
    AutodiffOptions ao;
    ao.loss = s.loss;
    ao.no_grad.insert(o.no_grad.begin(), o.no_grad.end());
    s.params = append_backward(s.main, s.main_origin, ao, diags);
    diags.throw_if_errors();
    rewrote = true;
    r.after("autodiff", s.main);
  }

  // 4. optimizer: after autodiff (needs the gradients); writes its state's
  //    initialisation into startup, created empty if there is none.
  if (r.selected("optimizer")) {
    if (!r.selected("autodiff"))
      usage_error("the optimizer pass needs the autodiff pass before it (--passes=autodiff,optimizer)");
    Diagnostics diags;
    append_optimizer(s.main, s.startup, s.params, o.optimizer, diags);
    diags.throw_if_errors();
    s.has_startup = true;
    rewrote = true;
    r.after("optimizer", s.main);
  }

  // 5. distribute: after the optimizer, whose ops move to the parameter
  //    servers; before the check and the fuse pass, which must see the
  //    final trainer program.
  if (r.selected("distribute")) {
    if (o.distribute) {
      run_hook(o.distribute, "distribute", s);
    } else {
      if (std::string bad = check_distribute_options(o.distribute_options); !bad.empty()) usage_error(bad);
      Diagnostics diags;
      s.servers = distribute(s.main, s.startup, o.distribute_options, s.main_origin, diags);
      diags.throw_if_errors();
      fmt::print(stderr, "{}", diags.str());  // warnings (a server without parameters)
      s.has_startup = true;  // the trainer's startup receives the parameters
    }
    rewrote = true;
    r.after("distribute", s.main);
  }

  // 6. fold-batch-norm: inference programs only (a trainer's batch_norm
  //    learns); before dead-code, which drops what the fold left unread.
  const bool inference = !has_optimizer(s.main);
  if (r.selected("fold-batch-norm") && inference) {
    // conv-epilogue first moves a bias add between a convolution and its
    // batch_norm (conv2d_transpose -> add(bias) -> batch_norm, as DB text
    // detectors write it) into the convolution, whose batch_norm then folds;
    // its run in step 8 takes the activation after the folded batch_norm.
    if (r.selected("conv-epilogue") && fuse_conv_epilogue(s.main, o.fetch) > 0) rewrote = true;
    if (fold_batch_norm(s.main, o.fetch) > 0) rewrote = true;
    r.after("fold-batch-norm", s.main);
  }

  // 7. remove-dropout: inference programs only (a trainer's dropout is
  //    random); before dead-code, which then drops what fed only a mask.
  if (r.selected("remove-dropout") && inference) {
    std::vector<std::string> keep = o.fetch;
    if (remove_dropout(s.main, keep) > 0) rewrote = true;
    r.after("remove-dropout", s.main);
  }

  // 8. conv-epilogue: inference programs only (a trainer differentiates
  //    the bias add and the activation); after fold-batch-norm, whose bias
  //    it extends and which must see the convolution before its activation,
  //    and after remove-dropout, which may leave the activation right after
  //    the convolution.
  if (r.selected("conv-epilogue") && inference) {
    if (fuse_conv_epilogue(s.main, o.fetch) > 0) rewrote = true;
    r.after("conv-epilogue", s.main);
  }

  // 8b. winograd: inference programs only (its filter transform runs once
  //    per parameter load; a trainer's filters change every step); after
  //    fold-batch-norm, whose folded filters it transforms, and conv-epilogue,
  //    whose bias and activation the Winograd op keeps.
  if (r.selected("winograd") && inference) {
    if (use_winograd(s.main) > 0) rewrote = true;
    r.after("winograd", s.main);
  }

  // 9. dead-code: after every pass that adds ops (their results may be the
  //    only uses of earlier ones); before the check, so what is removed is
  //    never checked or compiled. Inference programs only: a trainer's loss
  //    is a result without a fetch op.
  if (r.selected("dead-code") && inference) {
    std::vector<std::string> keep = o.fetch;
    if (!s.loss.empty()) keep.push_back(s.loss);
    if (remove_dead_code(s.main, keep) > 0) rewrote = true;
    r.after("dead-code", s.main);
  }

  // The rewritten programs must verify and infer like any input; from here
  // on main is frozen: the passes below only add side tables, which name
  // its ops and variables.
  // An unchanged input is checked again only for its inferred types, which
  // codegen uses (the Program itself, and its file checksum, stay as loaded).
  CheckedProgram final_main = check_program(rewrote ? Program::from_desc(s.main, s.main_origin) : main);
  PipelineResult res{std::move(final_main.program), std::nullopt, {}, std::move(final_main.types), {}, {}, {}, {}, {}};
  if (rewrote && s.has_startup) res.startup.emplace(check_program(Program::from_desc(s.startup, s.startup_origin)).program);
  else res.startup = startup;
  Diagnostics diags;
  // The loss the passes built or seeded wins over the program's marking.
  res.info = analyze_program(res.main, s.loss, diags);
  for (const auto& name : o.fetch) {
    const pb::VarDesc* v = res.main.find_var(0, name);
    if (!v || !is_dense_tensor(*v))
      diags.error(res.main.loc(0, -1, name), "--fetch names no tensor variable of block 0");
    else if (std::find(res.info.fetches.begin(), res.info.fetches.end(), name) == res.info.fetches.end())
      res.info.fetches.push_back(name);
  }
  check_dataflow(res.main, res.info, diags);
  diags.throw_if_errors();

  // 10. fold-constants: a side table of the final program (which ops run
  //    once per parameter load); after the check, since it reads the final
  //    fetch list. The emitter writes fused chains that touch those ops op
  //    by op, so fuse needs no ordering with it.
  if (r.selected("fold-constants")) {
    res.load_time = load_time_ops(res.main, res.info);
    r.after("fold-constants", res.main.desc(), "# " + describe_load_time(res.load_time));
  }

  // 11. fuse: after the last op rewrite (the plan names ops by index) and
  //    after the fetch list is final (a fetched value is never fused away).
  if (r.selected("fuse")) {
    s.fusion = plan_fusion(res.main, res.info);
    r.after("fuse", res.main.desc(), fusion_plan_text(s.fusion, res.main));
  }

  // 12. memory-plan: last, since it needs the fusion plan (a fused
  //    intermediate is never materialised and needs no buffer) and the
  //    load-time ops (what they write must outlive a step). A hook, when
  //    given, replaces the built-in planner.
  if (r.selected("memory-plan")) {
    if (o.memory_plan) {
      run_hook(o.memory_plan, "memory-plan", s);
    } else {
      s.memory = plan_memory(res.main, res.startup ? &*res.startup : nullptr, res.info, res.types, s.fusion,
                             res.load_time);
    }
    r.after("memory-plan", res.main.desc(), memory_plan_text(s.memory, res.main));
  }

  // The servers' programs are checked like the trainer's (verify, infer).
  for (size_t i = 0; i < s.servers.size(); ++i) {
    const std::string origin = fmt::format("{} (pserver {})", s.main_origin, i);
    Program server_main = check_program(Program::from_desc(std::move(s.servers[i].main), origin)).program;
    Program server_startup =
        check_program(Program::from_desc(std::move(s.servers[i].startup), origin + " startup")).program;
    res.servers.push_back({s.servers[i].endpoint, std::move(server_main), std::move(server_startup)});
  }

  res.fusion = std::move(s.fusion);
  res.memory = std::move(s.memory);
  res.ran = r.ran_;
  return res;
}

}  // namespace fluidc
