// runtime/op_profile.h - --profile: wall time per op of a compiled program, for the two drivers.
//
// Generated code enters every op (or fused chain) through enter_op(), which
// marks the op a kernel error is reported against and, only when --profile
// asked for it, stamps the time: each op is charged the time from its
// entry to the next op's entry (or to the end of the run). One predictable
// branch per op when off. Ops inside control-flow blocks are charged
// themselves; the control-flow op only its own bookkeeping. A fused chain
// is charged to its first op. On CUDA each op is waited for (g_profile_sync).
// Single-threaded: the drivers run one
// instance on one thread (the kernels' own threads never enter ops).
#pragma once

#include <cstdio>

#include "runtime/model.h"

namespace fluidc::rt {

/// Set by the drivers' --profile before the first run.
extern constinit bool g_profile_ops;

/// Waits for the work an op queued to finish before its time is taken:
/// set by the CUDA runtime, whose kernels run asynchronously (and which
/// runs eagerly, not from a captured graph, under --profile). Null on CPU.
using ProfileSync = void (*)();
extern constinit ProfileSync g_profile_sync;

/// Charges the time since the previous entry to the previous op and starts
/// `site`'s; nullptr ends the run (the last op's time stops there).
void profile_op(const OpSite* site) noexcept;

inline void enter_op(const OpSite& site) noexcept {
  g_current_op = &site;
  if (g_profile_ops) [[unlikely]] profile_op(&site);
}

/// After Model::run(): no op is current any more (a later error is the
/// driver's) and the last op's time is closed.
inline void end_ops() noexcept {
  g_current_op = nullptr;
  if (g_profile_ops) [[unlikely]] profile_op(nullptr);
}

/// The table --profile prints at exit: ops by time per run, then the same
/// summed per op type. `runs`: how many Model::run() calls were profiled,
/// named `unit` ("run", "step") in the table.
void print_op_profile(std::FILE* out, long long runs, const char* unit);

/// Help text of --profile, shared by both drivers.
inline constexpr const char* kProfileHelp =
    "  --profile           time every op and print the slowest ones, and the time per op type,\n"
    "                      at exit (per run; a fused chain is charged to its first op)\n";

}  // namespace fluidc::rt
