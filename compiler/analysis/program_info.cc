// compiler/analysis/program_info.cc - deriving feeds, fetches, state and loss from a ProgramDesc.
#include "compiler/analysis/program_info.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

// Feed and fetch ops carry their column; order by it so the binary's
// feed/fetch order is the one Paddle's Executor would use.
std::vector<std::string> by_column(const pb::BlockDesc& block, ops::Trait trait, bool outputs) {
  std::map<int64_t, std::string> cols;
  for (const auto& op : block.ops()) {
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || !def->has(trait)) continue;
    auto names = outputs ? op_outputs(op, "Out") : op_inputs(op, "X");
    if (!names.empty()) cols.emplace(attr_int(op, "col", static_cast<int64_t>(cols.size())), names[0]);
  }
  std::vector<std::string> out;
  for (auto& [col, name] : cols) out.push_back(name);
  return out;
}

// Without feed ops (a training program as paddle.static writes it), the
// feeds are the non-persistable tensors read before any op writes them.
std::vector<std::string> feeds_by_dataflow(const Program& prog) {
  const auto& block = prog.block(0);
  std::set<std::string> written, chosen;
  std::vector<std::string> feeds;
  for (const auto& op : block.ops()) {
    for (const auto& in : op.inputs())
      for (const auto& name : in.arguments()) {
        if (is_empty_var_name(name) || written.count(name) || chosen.count(name)) continue;
        const pb::VarDesc* v = prog.find_var(0, name);
        if (!v || v->persistable() || !is_dense_tensor(*v)) continue;
        chosen.insert(name);
        feeds.push_back(name);
      }
    for (const auto& out : op.outputs())
      for (const auto& name : out.arguments()) written.insert(name);
  }
  // Prefer the declared data variables' order (paddle.static.data sets
  // need_check_feed), keeping discovery order otherwise.
  std::stable_sort(feeds.begin(), feeds.end(), [&](const std::string& a, const std::string& b) {
    return prog.find_var(0, a)->need_check_feed() > prog.find_var(0, b)->need_check_feed();
  });
  return feeds;
}

// Persistables every reader of which (in any block) takes through an
// integer_storage slot; none when something else reads them.
std::set<std::string> integer_storage_persistables(const Program& prog, const std::vector<std::string>& persistables) {
  std::map<std::string, bool> only;  // name -> all reads so far are integer_storage ones
  const std::set<std::string> wanted(persistables.begin(), persistables.end());
  for (int b = 0; b < prog.num_blocks(); ++b)
    for (const auto& op : prog.block(b).ops()) {
      const ops::OpDef* def = ops::find_op(op.type());
      for (const auto& in : op.inputs()) {
        const ops::SlotDef* slot = def ? def->input(in.parameter()) : nullptr;
        const bool integer = slot && slot->integer_storage;
        for (const auto& name : in.arguments())
          if (wanted.count(name)) {
            auto [it, fresh] = only.emplace(name, integer);
            if (!fresh) it->second = it->second && integer;
          }
      }
    }
  std::set<std::string> out;
  for (const auto& [name, integer] : only)
    if (integer) out.insert(name);
  return out;
}

}  // namespace

ProgramInfo analyze_program(const Program& prog, const std::string& loss_override, Diagnostics& diags) {
  ProgramInfo info;
  const auto& block = prog.block(0);
  std::set<std::string> params;
  for (int i = 0; i < block.ops_size(); ++i) {
    const auto& op = block.ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (def && def->has(ops::kOptimizer)) {
      info.is_trainer = true;
      for (const auto& p : op_inputs(op, def->optimizer ? def->optimizer->param : "Param")) params.insert(p);
    }
  }
  info.loss = marked_loss(block);
  // A distributed trainer (the distribute pass's output) has a loss and
  // communication ops instead of optimizer ops: its servers update.
  if (!info.is_trainer && !info.loss.empty())
    for (const auto& op : block.ops())
      if (const ops::OpDef* def = ops::find_op(op.type()); def && def->has(ops::kCommunication)) info.is_trainer = true;
  if (!loss_override.empty()) {
    if (!prog.find_var(0, loss_override))
      diags.error(prog.loc(0, -1, loss_override), "--loss names a variable that block 0 does not define");
    info.loss = loss_override;
  }
  for (const auto& v : block.vars()) {
    if (!v.persistable() || !is_dense_tensor(v)) continue;
    info.persistables.push_back(v.name());
    if (params.count(v.name()) || v.is_parameter()) info.parameters.push_back(v.name());
  }
  std::sort(info.persistables.begin(), info.persistables.end());
  std::sort(info.parameters.begin(), info.parameters.end());
  info.integer_storage = integer_storage_persistables(prog, info.persistables);
  info.feeds = by_column(block, ops::kFeed, true);
  if (info.feeds.empty()) info.feeds = feeds_by_dataflow(prog);
  info.fetches = by_column(block, ops::kFetch, false);
  if (info.is_trainer && info.loss.empty())
    diags.error(prog.loc(0), "trainer program has no loss: no op is marked op_role Forward|Loss; pass --loss VAR");
  if (info.is_trainer && info.fetches.empty() && !info.loss.empty()) info.fetches.push_back(info.loss);
  return info;
}

}  // namespace fluidc
