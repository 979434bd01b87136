// compiler/driver/pipeline.h - the one pass pipeline that build, emit and opt run: Program in, Program + side tables out.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/fusion_plan.h"
#include "compiler/codegen/memory_plan.h"
#include "compiler/ir/program.h"
#include "compiler/analysis/program_info.h"
#include "compiler/ops/shape_ctx.h"
#include "transpilers/distribute.h"
#include "transpilers/optimizer.h"

namespace fluidc {

/// The passes by name, in the order run_pipeline runs them. `distribute`
/// runs transpilers/distribute.h with PipelineOptions::distribute_options
/// (a hook, when set, replaces it). `memory-plan` runs the built-in planner
/// unless a hook replaces it.
inline const std::vector<std::string> kPipelinePasses = {
    "strip-inference", "loss", "autodiff", "optimizer", "distribute", "fold-batch-norm", "remove-dropout",
    "conv-epilogue", "winograd", "dead-code", "fold-constants", "fuse", "memory-plan"};
/// The rewrites `build` and `emit` run by default on an inference program
/// (no optimizer op) when --passes does not say otherwise.
/// (winograd: CPU builds only; its ops have no CUDA kernels.)
inline const std::vector<std::string> kInferenceRewrites = {"fold-batch-norm", "remove-dropout", "conv-epilogue",
                                                            "winograd", "dead-code", "fold-constants"};

struct PipelineState;
/// A pass plugged into one of the empty slots: rewrites state.main /
/// state.startup (ProgramDescs) or fills a side table; errors go to diags.
using PassHook = std::function<void(PipelineState&, Diagnostics&)>;

struct PipelineOptions {
  /// The passes to run (names from kPipelinePasses, any order: the pipeline
  /// fixes the order). The driver picks them per subcommand.
  std::vector<std::string> passes;
  /// loss: the loss to differentiate, or with `label` the model output the
  /// loss pass builds it on. Without training passes, it overrides the loss
  /// program analysis finds (--loss on a Paddle trainer program).
  std::string loss;
  std::string label;
  std::string loss_fn = "mse";
  std::vector<std::string> no_grad;  ///< variables that get no gradient (besides stop_gradient ones)
  OptimizerOptions optimizer;
  std::vector<std::string> fetch;    ///< extra variables the program exposes (e.g. gradients)
  /// "" | a pass name | "all": print the program (protobuf text) to stdout
  /// after that pass, or after every pass that runs.
  std::string print_after;
  PassHook distribute;   ///< replaces the built-in distribute pass when set
  PassHook memory_plan;  ///< replaces the built-in memory planner when set (fills state.memory)
  /// distribute: parameter-server or collective mode and their settings.
  DistributeOptions distribute_options;
};

/// What passes read and write as the pipeline runs. Program-rewriting
/// passes work on the ProgramDescs; after the check, `main` is frozen and
/// the later passes add side tables.
struct PipelineState {
  pb::ProgramDesc main, startup;
  std::string main_origin, startup_origin;
  bool has_startup = false;
  std::string loss;   ///< the loss the loss pass built / autodiff seeded ("" before)
  ParamGrads params;  ///< autodiff's (parameter, gradient) pairs, for the optimizer
  FusionPlan fusion;  ///< the fuse pass's side table (the memory plan reads it)
  MemoryPlan memory;  ///< the memory-plan pass's side table
  std::vector<ServerProgram> servers;  ///< distribute (parameter-server mode): one per server
};

/// A parameter server's programs, checked like the trainer's.
struct ServerPrograms {
  std::string endpoint;
  Program main, startup;
};

/// The pipeline's output: checked programs and the side tables.
struct PipelineResult {
  Program main;
  std::optional<Program> startup;
  ProgramInfo info;                 ///< feeds, fetches (with --fetch), persistables, loss
  std::map<std::string, TensorType> types;  ///< main's inferred types (they reach codegen)
  FusionPlan fusion;                ///< empty unless `fuse` ran
  /// fold-constants: per block-0 op, computed once per parameter load
  /// (compiler/analysis/load_time.h); empty unless the pass ran.
  std::vector<bool> load_time;
  std::vector<std::string> ran;     ///< the passes that ran, in order
  MemoryPlan memory;                ///< empty unless `memory-plan` ran
  /// distribute in parameter-server mode: each server's programs, in
  /// --pservers order; empty otherwise.
  std::vector<ServerPrograms> servers;
};

/// Runs the selected passes over `main` (and `startup`, created empty when
/// the optimizer needs one) in the fixed order below, checks the result
/// like any input (verify, infer shapes, analyze, def-before-use) and makes
/// the side tables. Both inputs must already be checked (load_checked), so
/// problems in them are reported against the user's file. Throws UserError.
PipelineResult run_pipeline(const Program& main, const std::optional<Program>& startup, const PipelineOptions& options);

}  // namespace fluidc
