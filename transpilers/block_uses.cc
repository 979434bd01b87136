// transpilers/block_uses.cc - use counts of a program's variables and the op-building helpers of block_uses.h.
#include "transpilers/block_uses.h"

#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

int count(const std::unordered_map<std::string, int>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

}  // namespace

int Uses::read_count(const std::string& name) const { return count(reads, name); }
int Uses::write_count(const std::string& name) const { return count(writes, name); }
bool Uses::private_value(const std::string& name) const {
  return !name.empty() && !pinned.count(name) && read_count(name) == 1 && write_count(name) == 1;
}

Uses count_uses(const pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  Uses u;
  u.pinned.insert(keep.begin(), keep.end());
  for (int b = 0; b < prog.blocks_size(); ++b)
    for (const auto& op : prog.blocks(b).ops()) {
      const ops::OpDef* def = ops::find_op(op.type());
      const bool fetch = def && def->has(ops::kFetch);
      for (const auto& slot : op.inputs())
        for (const auto& name : slot.arguments()) {
          ++u.reads[name];
          if (fetch || b != 0) u.pinned.insert(name);
        }
      if (b == 0)
        for (const auto& slot : op.outputs())
          for (const auto& name : slot.arguments()) ++u.writes[name];
    }
  return u;
}

std::string sole(const pb::OpDesc& op, const std::string& slot, bool input) {
  const auto v = input ? op_inputs(op, slot) : op_outputs(op, slot);
  return v.size() == 1 ? v[0] : "";
}

bool persistable(const pb::BlockDesc& block, const std::string& name) {
  const pb::VarDesc* v = find_block_var(block, name);
  return v && v->persistable() && is_dense_tensor(*v);
}

std::string new_var(pb::BlockDesc& block, const std::string& base, const pb::VarDesc& like) {
  std::string name = base;
  for (int n = 2; find_block_var(block, name); ++n) name = fmt::format("{}_{}", base, n);
  const auto& td = like.type().lod_tensor().tensor();
  add_tensor_var(block, name, td.data_type(), {td.dims().begin(), td.dims().end()});
  return name;
}

pb::OpDesc make_op(const std::string& type, std::vector<std::pair<std::string, std::string>> in,
                   const std::string& out_slot, const std::string& out) {
  pb::OpDesc op;
  op.set_type(type);
  for (const auto& [slot, var] : in) ops::add_input(op, slot, {var});
  ops::add_output(op, out_slot, {out});
  return op;
}

namespace {

// Slot `slot` of `slots` (an op's inputs or outputs) bound to `var` alone; false when it has no such slot.
template <class Slots>
bool rebind(Slots& slots, const std::string& slot, const std::string& var) {
  for (auto& s : slots)
    if (s.parameter() == slot) {
      s.clear_arguments();
      s.add_arguments(var);
      return true;
    }
  return false;
}

}  // namespace

void bind_input(pb::OpDesc& op, const std::string& slot, const std::string& var) {
  if (!rebind(*op.mutable_inputs(), slot, var)) ops::add_input(op, slot, {var});
}

void bind_output(pb::OpDesc& op, const std::string& slot, const std::string& var) {
  if (!rebind(*op.mutable_outputs(), slot, var)) ops::add_output(op, slot, {var});
}

void rewrite_ops(pb::BlockDesc& block, std::unordered_map<int, std::vector<pb::OpDesc>>& before,
                 const std::unordered_set<int>& dropped) {
  google::protobuf::RepeatedPtrField<pb::OpDesc> rewritten;
  for (int i = 0; i < block.ops_size(); ++i) {
    if (auto it = before.find(i); it != before.end())
      for (auto& op : it->second) *rewritten.Add() = std::move(op);
    if (!dropped.count(i)) *rewritten.Add() = block.ops(i);
  }
  block.mutable_ops()->Swap(&rewritten);
}

}  // namespace fluidc
