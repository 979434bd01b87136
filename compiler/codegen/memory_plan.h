// compiler/codegen/memory_plan.h - the memory-plan pass: which block-0 tensors live in an arena, and where.
//
// A side table of the main program, like the fusion plan: it names
// variables, so it stays valid only for the program it was made from.
// Two arenas: the static one holds variables whose size is known at
// compile time, at fixed offsets; the per-batch one holds variables whose
// size is c * N, N being the feeds' shared run-time batch dimension. Its
// offsets are planned for N = 1 in 64-byte units and scale by N, so the
// same plan is valid for every N (the generated code re-points the views
// when N changes). Everything else keeps owned storage.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/analysis/program_info.h"
#include "compiler/codegen/arena_placement.h"
#include "compiler/codegen/fusion_plan.h"
#include "compiler/ir/program.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc {

inline constexpr int64_t kArenaAlign = 64;

enum class ArenaKind { kStatic, kPerBatch };

struct PlannedVar {
  std::string name;  ///< a block-0 variable of the main program (or of `block`)
  ArenaKind arena = ArenaKind::kStatic;
  int64_t offset = 0;  ///< bytes (per-batch: per unit of N)
  int64_t bytes = 0;   ///< capacity, a multiple of kArenaAlign (per-batch: per unit of N)
  int first = 0, last = 0;  ///< live range in block-0 op positions
  /// > 0: the variable shares its bytes in place with the other members of
  /// this group, one after another: each member's last op is the next
  /// one's first, an op whose definition allows it (OpDef::in_place).
  int group = 0;
  /// > 0: a local of that sub-block (a loop body whose iterations are not
  /// recorded, a gradient block, or another block that one block-0 op
  /// runs); first = last =
  /// that op. The block's locals share bytes among themselves by their live
  /// ranges in the block's op positions (one iteration of a loop body),
  /// inside a region of the arena live at that op.
  int block = 0;
  int sub_first = 0, sub_last = 0;  ///< the live range in `block`'s op positions
};

struct ArenaStats {
  int64_t size = 0;         ///< the planned arena
  int64_t unplanned = 0;    ///< the same variables each in its own buffer
  int64_t lower_bound = 0;  ///< the most bytes live at once
  int peak_op = -1;         ///< the block-0 op where lower_bound is reached
  std::vector<std::string> peak_vars;  ///< live there, largest first
  std::string order;        ///< the placement order that won
};

struct MemoryPlan {
  std::vector<PlannedVar> vars;  ///< by arena, then offset
  ArenaStats fixed, batch;       ///< static; per-batch (bytes per unit of N)
  /// Feeds whose dim 0 is N (the per-batch arena's scale), in feed order.
  std::vector<std::string> batch_feeds;
  int owned = 0;  ///< block-0 non-persistable tensors left with owned storage
  double planning_ms = -1;  ///< CPU time plan_memory took (the report shows it); -1: not measured

  bool empty() const { return vars.empty(); }
  const PlannedVar* find(const std::string& name) const;
};

/// The pass: liveness over every block (compiler/codegen/liveness.h), then
/// best-fit offsets per arena. Never planned: persistables, feeds, fetch
/// targets and the loss, variables the startup program or a load-time op
/// touches, variables whose first touch in a step is not a plain write, and
/// sizes of any other form. Fused intermediates are planned (written only on
/// a chain's fallback path); the inputs of a chain of `fusion` are kept to its
/// last op, since its loop reads them while it writes the output. `types` are
/// main's inferred types; `load_time` may be empty.
MemoryPlan plan_memory(const Program& main, const Program* startup, const ProgramInfo& info,
                       const std::map<std::string, TensorType>& types, const FusionPlan& fusion,
                       const std::vector<bool>& load_time);

/// "" when sound, else the first problem: misalignment, a variable past its
/// arena, two variables live at once sharing a byte (other than in-place
/// group members handing over at one op), a group whose members differ in
/// arena, offset or capacity or do not follow one another.
std::string validate_memory_plan(const MemoryPlan& plan);
/// "" when every in-place hand-over of `plan` happens at a block-0 op of
/// `main` whose definition lets that output take that input's bytes.
std::string validate_in_place(const MemoryPlan& plan, const Program& main);

/// The plan's variables of one arena as buffers to place or check, an
/// in-place group as one buffer spanning its members; `names` gets each
/// buffer's name (a group's: its members', joined by " -> ").
std::vector<LiveBuffer> arena_buffers(const MemoryPlan& plan, ArenaKind kind, std::vector<std::string>* names);

/// The side-table file `fluidc opt` writes beside OUT (OUT.memory).
std::string memory_plan_text(const MemoryPlan& plan, const Program& main);
/// Parses memory_plan_text's format, checks the variables exist in `main`
/// and validates the plan. Throws UserError naming `path` and the line.
MemoryPlan read_memory_plan(const std::string& text, const std::string& path, const Program& main);
/// The report of `fluidc build --memory-report` and `fluidc dump`.
std::string memory_report(const MemoryPlan& plan, const Program& main);

}  // namespace fluidc
