// transpilers/distribute_server.h - a parameter server's programs: listen_and_serv and one optimize block per slice.
#pragma once

#include "transpilers/distribute_plan.h"

namespace fluidc::dist {

/// The programs of server `server` (index into o.pservers), cut from the
/// original trainer program and its startup (before the trainer rewrite).
/// Warns when the server gets no slice.
ServerProgram build_server(const pb::ProgramDesc& main, const pb::ProgramDesc& startup, const Plan& plan, int server,
                           const DistributeOptions& o, const std::string& origin, Diagnostics& diags);

}  // namespace fluidc::dist
