// compiler/codegen/memory_plan.cc - the memory-plan pass: candidates, their sizes (static or c * N), placement, checks.
#include "compiler/codegen/memory_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <optional>
#include <set>

#include "compiler/analysis/shape_infer.h"
#include "compiler/codegen/arena_placement.h"
#include "compiler/codegen/liveness.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/registry.h"
#include "runtime/tensor.h"

namespace fluidc {
namespace {

// Bytes of a fully known type; nullopt when a dim is unknown or the dtype has no size.
std::optional<int64_t> static_bytes(const TensorType& t) {
  if (!t.known) return std::nullopt;
  const size_t elem = rt::dtype_size(static_cast<rt::DType>(t.dtype));
  if (elem == 0) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0) return std::nullopt;
    n *= d;
  }
  return n * static_cast<int64_t>(elem);
}

// The feeds whose dim 0 is the run-time batch N: those whose only unknown
// dim is dim 0 and, in a trainer (whose driver slices --batch-size rows of
// every feed, whatever the declared dim 0), every feed. Empty when some
// feed has another unknown dim (then no size is a multiple of one N).
std::vector<std::string> batch_feeds(const ProgramInfo& info, const std::map<std::string, TensorType>& types) {
  std::vector<std::string> out;
  for (const auto& f : info.feeds) {
    auto it = types.find(f);
    if (it == types.end() || !it->second.known || it->second.dims.empty()) return {};
    const auto& d = it->second.dims;
    if (std::any_of(d.begin() + 1, d.end(), [](int64_t x) { return x < 0; })) return {};
    if (d[0] < 0 || info.is_trainer) out.push_back(f);
  }
  return out;
}

// `prog`'s types with every batch feed's dim 0 set to n; empty on failure.
// `prog` is a copy of main changed in place: only dims change, so its name
// index stays valid (and no checksum is recomputed, as from_desc would).
std::map<std::string, TensorType> types_at_batch(Program& prog, const std::vector<std::string>& feeds, int64_t n) {
  auto* block = prog.mutable_desc().mutable_blocks(0);
  for (auto& v : *block->mutable_vars()) {
    if (std::find(feeds.begin(), feeds.end(), v.name()) == feeds.end()) continue;
    if (!v.type().has_lod_tensor() || v.type().lod_tensor().tensor().dims_size() == 0) return {};
    v.mutable_type()->mutable_lod_tensor()->mutable_tensor()->set_dims(0, n);
  }
  try {
    Diagnostics diags;
    auto types = infer_shapes(prog, diags, false);
    if (diags.has_errors()) return {};
    return types;
  } catch (const std::exception&) {
    return {};
  }
}

// The variables of one arena as buffers: an in-place group is one buffer
// spanning its members, and so are a sub-block's locals (its region: from
// the lowest member offset to the highest end; each member's index in
// `members`).
std::vector<LiveBuffer> group_buffers(const std::vector<PlannedVar>& vars, ArenaKind kind,
                                      std::vector<std::vector<size_t>>& members) {
  std::vector<LiveBuffer> bufs;
  std::map<int, size_t> of_key;  // in-place group g -> its buffer; sub-block b -> at -b
  for (size_t i = 0; i < vars.size(); ++i) {
    const PlannedVar& v = vars[i];
    if (v.arena != kind) continue;
    const int key = v.block > 0 ? -v.block : v.group;
    if (key != 0) {
      if (auto it = of_key.find(key); it != of_key.end()) {
        LiveBuffer& b = bufs[it->second];
        const int64_t end = std::max(b.offset + b.size, v.offset + v.bytes);
        b.offset = std::min(b.offset, v.offset);
        b.size = end - b.offset;
        b.first = std::min(b.first, v.first), b.last = std::max(b.last, v.last);
        members[it->second].push_back(i);
        continue;
      }
      of_key[key] = bufs.size();
    }
    bufs.push_back({v.bytes, v.first, v.last, v.offset});
    members.push_back({i});
  }
  return bufs;
}

// In-place reuse: at an op whose definition lets output O take input I's
// bytes (OpDef::in_place), when I dies there and O is first written there,
// with the same inferred type (dtype and dims: capacities are rounded up, so
// equal capacities would let a broadcast X pass) in the same arena, O joins
// I's group. The input must be bound to that slot alone (the kernel reads
// other slots freely).
void group_in_place(const Program& main, const std::map<std::string, TensorType>& types,
                    std::vector<PlannedVar>& vars) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < vars.size(); ++i) index[vars[i].name] = i;
  int groups = 0;
  const auto& b0 = main.block(0);
  for (int pos = 0; pos < b0.ops_size(); ++pos) {
    const pb::OpDesc& op = b0.ops(pos);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def) continue;
    for (const auto& pair : def->in_place) {
      const auto in = op_inputs(op, pair.input), out = op_outputs(op, pair.output);
      if (in.size() != 1 || out.size() != 1 || in[0] == out[0]) continue;
      int bound = 0;
      for (const auto& slot : op.inputs()) bound += static_cast<int>(std::count(slot.arguments().begin(), slot.arguments().end(), in[0]));
      auto host_it = index.find(in[0]), guest_it = index.find(out[0]);
      if (bound != 1 || host_it == index.end() || guest_it == index.end()) continue;
      PlannedVar& host = vars[host_it->second];
      PlannedVar& guest = vars[guest_it->second];
      auto host_type = types.find(in[0]), guest_type = types.find(out[0]);
      if (host_type == types.end() || guest_type == types.end() || !host_type->second.known ||
          host_type->second.dtype != guest_type->second.dtype || host_type->second.dims != guest_type->second.dims)
        continue;
      if (host.last != pos || guest.first != pos || guest.group != 0 || host.arena != guest.arena ||
          host.bytes != guest.bytes)
        continue;
      if (host.group == 0) host.group = ++groups;
      guest.group = host.group;
    }
  }
}

// The in-place groups of a plan, each group's members in order of their first op.
std::map<int, std::vector<const PlannedVar*>> in_place_groups(const MemoryPlan& plan) {
  std::map<int, std::vector<const PlannedVar*>> groups;
  for (const auto& v : plan.vars)
    if (v.group > 0) groups[v.group].push_back(&v);
  for (auto& [g, m] : groups)
    std::stable_sort(m.begin(), m.end(), [](const PlannedVar* a, const PlannedVar* b) { return a->first < b->first; });
  return groups;
}

void finish_arena(ArenaKind kind, std::vector<PlannedVar>& vars, ArenaStats& stats) {
  std::vector<std::vector<size_t>> members;
  std::vector<LiveBuffer> bufs = group_buffers(vars, kind, members);
  for (const auto& v : vars)
    if (v.arena == kind) stats.unplanned += v.bytes;
  if (bufs.empty()) return;
  std::vector<int64_t> base;  // each buffer's offset before placement: members keep theirs relative to it
  for (const auto& b : bufs) base.push_back(b.offset);
  const Placement p = place_buffers(bufs, kArenaAlign);
  stats.size = p.arena;
  stats.lower_bound = p.lower_bound;
  stats.peak_op = p.peak;
  stats.order = p.order;
  std::vector<std::pair<int64_t, std::string>> peak;
  for (size_t k = 0; k < bufs.size(); ++k)
    for (size_t i : members[k]) {
      vars[i].offset = bufs[k].offset + (vars[i].offset - base[k]);
      if (vars[i].first <= p.peak && p.peak <= vars[i].last) peak.emplace_back(vars[i].bytes, vars[i].name);
    }
  std::stable_sort(peak.begin(), peak.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [bytes, name] : peak) stats.peak_vars.push_back(name);
}

// The blocks (besides block 0) that `b` runs, directly or through blocks it runs.
std::set<int> nested_blocks(const Program& main, int b) {
  std::set<int> out;
  std::vector<int> stack{b};
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    for (const auto& op : main.block(x).ops())
      for (int nb : op_sub_blocks(op, main.num_blocks()))
        if (nb != b && out.insert(nb).second) stack.push_back(nb);
  }
  return out;
}

// Sub-blocks whose locals the plan may place, each with the block-0 op that
// runs it: a child of block 0 that exactly one op (of block 0) runs, and
// neither it nor a block nested in it is the forward block of a gradient
// block (those iterations are recorded for while_grad, which saves every
// local of the body after each iteration and restores them). It may be a
// gradient block itself (a while_grad's, run once per recorded iteration);
// the blocks nested in it may not.
std::map<int, int> plannable_blocks(const Program& main) {
  std::map<int, int> owner;
  std::map<int, int> runs;  // block -> how many ops run it
  for (int b = 0; b < main.num_blocks(); ++b)
    for (int i = 0; i < main.block(b).ops_size(); ++i)
      for (int sb : op_sub_blocks(main.block(b).ops(i), main.num_blocks())) {
        ++runs[sb];
        if (b == 0) owner[sb] = i;
      }
  std::set<int> has_grad;
  for (int b = 1; b < main.num_blocks(); ++b)
    if (main.block(b).forward_block_idx() >= 0) has_grad.insert(main.block(b).forward_block_idx());
  std::map<int, int> out;
  for (const auto& [b, pos] : owner) {
    if (runs[b] != 1 || main.block(b).parent_idx() != 0) continue;
    const std::set<int> sub = nested_blocks(main, b);
    if (has_grad.count(b) || std::any_of(sub.begin(), sub.end(), [&](int x) {
          return has_grad.count(x) || main.block(x).forward_block_idx() >= 0 || runs[x] != 1;
        }))
      continue;
    out[b] = pos;
  }
  return out;
}

// Names that ops outside block `b` and the blocks it runs name.
std::set<std::string> names_outside(const Program& main, int b) {
  std::set<int> inside = nested_blocks(main, b);
  inside.insert(b);
  std::set<std::string> out;
  for (int x = 0; x < main.num_blocks(); ++x) {
    if (inside.count(x)) continue;
    for (const auto& op : main.block(x).ops()) {
      for (const auto& v : op.inputs()) out.insert(v.arguments().begin(), v.arguments().end());
      for (const auto& v : op.outputs()) out.insert(v.arguments().begin(), v.arguments().end());
    }
  }
  return out;
}

// Offsets of one sub-block's locals of one arena among themselves, by their
// live ranges in the block (relative: finish_arena moves the region).
void place_block_locals(std::vector<PlannedVar>& vars, int block, ArenaKind kind) {
  std::vector<size_t> idx;
  std::vector<LiveBuffer> bufs;
  for (size_t i = 0; i < vars.size(); ++i)
    if (vars[i].block == block && vars[i].arena == kind) {
      idx.push_back(i);
      bufs.push_back({vars[i].bytes, vars[i].sub_first, vars[i].sub_last});
    }
  if (bufs.empty()) return;
  place_buffers(bufs, kArenaAlign);
  for (size_t k = 0; k < idx.size(); ++k) vars[idx[k]].offset = bufs[k].offset;
}

/// A fused chain's loop reads the chain's inputs (the first op's value and
/// every op's second operand) while it writes the chain's output, so each
/// such input is kept until the chain's last op: its bytes cannot then go to
/// the output. Otherwise the output could be placed on a row operand (a mean
/// [N, 1]) that dies at the chain's first op and be written over it while the
/// loop still reads it. The intermediates (an op's Out that the next chain op
/// reads) keep their spans: the loop never touches them, and the op-by-op
/// fallback may hand their bytes on in place.
void widen_for_chains(std::map<std::string, VarLiveness>& live, const pb::BlockDesc& block,
                      const std::vector<FusedChain>& chains) {
  for (const FusedChain& c : chains) {
    std::set<std::string> made;  // outputs of the chain's ops so far
    for (int pos : c.ops) {
      const pb::OpDesc& op = block.ops(pos);
      for (const auto& slot : op.inputs())
        for (const auto& name : slot.arguments())
          if (auto it = live.find(name); it != live.end() && !made.count(name))
            it->second.last = std::max(it->second.last, c.ops.back());
      for (const auto& slot : op.outputs()) made.insert(slot.arguments().begin(), slot.arguments().end());
    }
  }
}

}  // namespace

const PlannedVar* MemoryPlan::find(const std::string& name) const {
  for (const auto& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

MemoryPlan plan_memory(const Program& main, const Program* startup, const ProgramInfo& info,
                       const std::map<std::string, TensorType>& types, const FusionPlan& fusion,
                       const std::vector<bool>& load_time) {
  // CPU time, not wall time: on a shared machine the wall time counts other processes' turns.
  const std::clock_t start = std::clock();
  MemoryPlan plan;
  std::set<std::string> never(info.feeds.begin(), info.feeds.end());
  never.insert(info.fetches.begin(), info.fetches.end());
  never.insert(info.persistables.begin(), info.persistables.end());
  if (!info.loss.empty()) never.insert(info.loss);
  if (startup) {
    auto s = names_touched(*startup);
    never.insert(s.begin(), s.end());
  }
  // Fused intermediates (the Out of a chain op that the next one reads) are
  // planned like any other temporary: the chain's fallback path (taken when
  // the fused loop cannot index an operand, e.g. a conv bias [C, 1, 1])
  // writes them, the fused loop leaves their bytes alone. The chain's inputs
  // live to its last op (widen_for_chains).
  const auto& b0 = main.block(0);
  // Load-time ops run once per parameter load, not every step: what they
  // write must survive from one step to the next.
  for (int i = 0; i < b0.ops_size() && i < static_cast<int>(load_time.size()); ++i)
    if (load_time[i]) {
      for (const auto& v : b0.ops(i).inputs()) never.insert(v.arguments().begin(), v.arguments().end());
      for (const auto& v : b0.ops(i).outputs()) never.insert(v.arguments().begin(), v.arguments().end());
    }

  plan.batch_feeds = batch_feeds(info, types);
  std::vector<std::map<std::string, TensorType>> at_n;  // types at N = 1, 2, 3
  std::optional<Program> scratch;
  if (!plan.batch_feeds.empty()) scratch.emplace(main);
  if (!plan.batch_feeds.empty())
    for (int64_t n = 1; n <= 3; ++n) {
      at_n.push_back(types_at_batch(*scratch, plan.batch_feeds, n));
      if (at_n.back().empty()) {
        at_n.clear();
        break;
      }
    }

  // With batch feeds but no inference at N (it failed), a size may hide a
  // dim-0 batch that the trainer changes: only sizes with no batch feed plan.
  const bool batch_dependent = !plan.batch_feeds.empty() && at_n.empty();
  // The capacity of `name` in pv (and its arena), or 0 when the plan cannot bound it.
  auto size_var = [&](const std::string& name, PlannedVar& pv) {
    if (!at_n.empty()) {
      // Sized at N = 1, 2, 3: the same (static) or exactly c * N (per batch).
      std::optional<int64_t> s[3];
      for (int k = 0; k < 3; ++k)
        if (auto it = at_n[k].find(name); it != at_n[k].end()) s[k] = static_bytes(it->second);
      if (s[0] && s[1] && s[2] && *s[0] == *s[1] && *s[1] == *s[2]) {
        pv.bytes = align_up(*s[0], kArenaAlign);
      } else if (s[0] && s[1] && s[2] && *s[1] == 2 * *s[0] && *s[2] == 3 * *s[0]) {
        pv.arena = ArenaKind::kPerBatch;
        pv.bytes = align_up(*s[0], kArenaAlign);
      }
    } else if (!batch_dependent) {
      if (auto t = types.find(name); t != types.end())
        if (auto bytes = static_bytes(t->second)) pv.bytes = align_up(*bytes, kArenaAlign);
    }
  };
  auto live = block0_liveness(main);
  widen_for_chains(live, b0, fusion.chains(0));
  for (const auto& v : b0.vars()) {
    if (!is_dense_tensor(v) || v.persistable()) continue;
    auto l = live.find(v.name());
    auto t = types.find(v.name());
    bool planned = false;
    const bool one_line = v.name().find_first_of("\r\n") == std::string::npos;  // the side table is line based
    if (one_line && !never.count(v.name()) && l != live.end() && l->second.defined_first && t != types.end()) {
      PlannedVar pv{v.name(), ArenaKind::kStatic, 0, 0, l->second.first, l->second.last};
      size_var(v.name(), pv);
      if (pv.bytes > 0) {
        plan.vars.push_back(pv);
        planned = true;
      }
    }
    if (!planned) ++plan.owned;
  }
  // Sub-block locals: a loop body's are written before they are read in
  // every iteration, so they share bytes by their live ranges within one
  // iteration. Only names declared once in the program (the inferred types
  // are by name), named by no op outside the block, and no X@GRAD of an
  // input X of the op that runs the block: while_grad and
  // conditional_block_grad read their gradient block's X@GRAD by that name
  // after the block has run (to sum it over the steps or hand it out).
  std::map<std::string, int> declared;
  for (int b = 0; b < main.num_blocks(); ++b)
    for (const auto& v : main.block(b).vars()) ++declared[v.name()];
  for (const auto& [blk, pos] : plannable_blocks(main)) {
    auto outside = names_outside(main, blk);
    for (const auto& in : b0.ops(pos).inputs())
      for (const auto& n : in.arguments()) outside.insert(n + kGradSuffix);
    auto blive = block_liveness(main, blk);
    widen_for_chains(blive, main.block(blk), fusion.chains(blk));
    for (const auto& v : main.block(blk).vars()) {
      if (!is_dense_tensor(v) || v.persistable() || declared[v.name()] != 1 || outside.count(v.name()) ||
          never.count(v.name()) || v.name().find_first_of("\r\n") != std::string::npos)
        continue;
      auto l = blive.find(v.name());
      if (l == blive.end() || !l->second.defined_first || !types.count(v.name())) continue;
      PlannedVar pv{v.name(), ArenaKind::kStatic, 0, 0, pos, pos};
      pv.block = blk, pv.sub_first = l->second.first, pv.sub_last = l->second.last;
      size_var(v.name(), pv);
      if (pv.bytes > 0) plan.vars.push_back(pv);
    }
    place_block_locals(plan.vars, blk, ArenaKind::kStatic);
    place_block_locals(plan.vars, blk, ArenaKind::kPerBatch);
  }
  group_in_place(main, types, plan.vars);
  finish_arena(ArenaKind::kStatic, plan.vars, plan.fixed);
  finish_arena(ArenaKind::kPerBatch, plan.vars, plan.batch);
  std::stable_sort(plan.vars.begin(), plan.vars.end(), [](const PlannedVar& a, const PlannedVar& b) {
    return a.arena != b.arena ? a.arena < b.arena : a.offset < b.offset;
  });
  if (std::none_of(plan.vars.begin(), plan.vars.end(), [](const PlannedVar& v) { return v.arena == ArenaKind::kPerBatch; }))
    plan.batch_feeds.clear();
  plan.planning_ms = 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
#ifndef NDEBUG
  if (std::string why = validate_memory_plan(plan); !why.empty()) internal_error("memory plan: " + why);
  if (std::string why = validate_in_place(plan, main); !why.empty()) internal_error("memory plan: " + why);
#endif
  return plan;
}

std::vector<LiveBuffer> arena_buffers(const MemoryPlan& plan, ArenaKind kind, std::vector<std::string>* names) {
  std::vector<std::vector<size_t>> members;
  std::vector<LiveBuffer> bufs = group_buffers(plan.vars, kind, members);
  if (names)
    for (const auto& m : members) {
      std::vector<std::string> n;
      for (size_t i : m) n.push_back(plan.vars[i].name);
      names->push_back(fmt::format("{}", fmt::join(n, " -> ")));
    }
  return bufs;
}

std::string validate_memory_plan(const MemoryPlan& plan) {
  for (const auto& v : plan.vars)
    if (v.bytes <= 0 || v.bytes % kArenaAlign != 0)
      return fmt::format("{}: capacity {} is not a positive multiple of {}", v.name, v.bytes, kArenaAlign);
  // An in-place group: one arena, offset and capacity; members one after another.
  for (const auto& [g, group] : in_place_groups(plan)) {
    const auto& m = group;
    for (size_t k = 1; k < m.size(); ++k) {
      if (m[k]->arena != m[0]->arena || m[k]->offset != m[0]->offset || m[k]->bytes != m[0]->bytes)
        return fmt::format("in-place group {}: {} and {} differ in arena, offset or capacity", g, m[0]->name,
                           m[k]->name);
      if (m[k - 1]->last != m[k]->first)
        return fmt::format("in-place group {}: {} (live {}-{}) does not hand over to {} (live {}-{}) at one op", g,
                           m[k - 1]->name, m[k - 1]->first, m[k - 1]->last, m[k]->name, m[k]->first, m[k]->last);
    }
  }
  // A sub-block's locals: live at one block-0 op (the one that runs the
  // block), never in an in-place group, and sound among themselves by their
  // ranges in the block (the block-0 check below sees them as one region).
  std::map<std::pair<int, ArenaKind>, std::vector<const PlannedVar*>> locals;
  for (const auto& v : plan.vars) {
    if (v.block <= 0) continue;
    if (v.group != 0 || v.first != v.last || v.sub_first < 0 || v.sub_first > v.sub_last)
      return fmt::format("{}: a local of block {} must be live at one block-0 op, in no in-place group, over a "
                         "range of the block's ops", v.name, v.block);
    auto& m = locals[{v.block, v.arena}];
    if (!m.empty() && m[0]->first != v.first)
      return fmt::format("block {}: {} and {} are live at different block-0 ops", v.block, m[0]->name, v.name);
    m.push_back(&v);
  }
  for (const auto& [key, m] : locals) {
    std::vector<LiveBuffer> bufs;
    std::vector<std::string> names;
    for (const PlannedVar* v : m) {
      bufs.push_back({v->bytes, v->sub_first, v->sub_last, v->offset});
      names.push_back(v->name);
    }
    const ArenaStats& s = key.second == ArenaKind::kStatic ? plan.fixed : plan.batch;
    if (std::string why = check_placement(bufs, s.size, kArenaAlign, &names); !why.empty())
      return fmt::format("block {}: {}", key.first, why);
  }
  for (ArenaKind kind : {ArenaKind::kStatic, ArenaKind::kPerBatch}) {
    std::vector<std::string> names;
    const std::vector<LiveBuffer> bufs = arena_buffers(plan, kind, &names);
    const ArenaStats& s = kind == ArenaKind::kStatic ? plan.fixed : plan.batch;
    std::string why = check_placement(bufs, s.size, kArenaAlign, &names);
    if (why.empty()) continue;
    return fmt::format("{} arena: {}", kind == ArenaKind::kStatic ? "static" : "per-batch", why);
  }
  return "";
}

std::string validate_in_place(const MemoryPlan& plan, const Program& main) {
  for (const auto& [g, group] : in_place_groups(plan)) {
    const auto& m = group;
    for (size_t k = 1; k < m.size(); ++k) {
      const int pos = m[k]->first;
      if (pos < 0 || pos >= main.block(0).ops_size()) return fmt::format("in-place group {}: no op {}", g, pos);
      const pb::OpDesc& op = main.block(0).ops(pos);
      const ops::OpDef* def = ops::find_op(op.type());
      const bool allowed = def && std::any_of(def->in_place.begin(), def->in_place.end(), [&](const auto& p) {
        return op_inputs(op, p.input) == std::vector<std::string>{m[k - 1]->name} &&
               op_outputs(op, p.output) == std::vector<std::string>{m[k]->name};
      });
      if (!allowed)
        return fmt::format("in-place group {}: op {} ({}) may not write {} into {}'s bytes", g, pos, op.type(),
                           m[k]->name, m[k - 1]->name);
    }
  }
  return "";
}

}  // namespace fluidc
