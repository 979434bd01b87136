// transpilers/distribute_trainer.h - trainer side of parameter-server mode (see distribute.h for the structure).
#pragma once

#include <set>
#include <string>

#include "transpilers/distribute_plan.h"

namespace fluidc::dist {

/// The variables only the optimizer ops of `main` use (learning rates,
/// optimizer state): they move to the servers.
std::set<std::string> optimizer_only_vars(const pb::BlockDesc& main, const Plan& plan);

/// Block 0 of the trainer: gradients renamed per trainer, split_byref + send
/// after each gradient, send_barrier, recv per parameter, fetch_barrier,
/// concat per sliced parameter; optimizer ops and their variables removed.
void rewrite_trainer_main(pb::BlockDesc& main, const Plan& plan, const DistributeOptions& o, ControlVars& control);

/// Block 0 of the trainer's startup: the optimizer state's initialisers
/// removed; recv of every parameter (its blocks), fetch_barrier, concat.
void rewrite_trainer_startup(pb::BlockDesc& startup, const pb::BlockDesc& main, const Plan& plan,
                             const std::set<std::string>& optimizer_vars, const DistributeOptions& o,
                             ControlVars& control);

}  // namespace fluidc::dist
