// compiler/codegen/liveness.cc - block-0 live ranges over a linearised program (sub-blocks at their owner's position).
#include "compiler/codegen/liveness.h"

#include <set>
#include <vector>

namespace fluidc {
namespace {

// The sub-blocks an op runs (BLOCK and BLOCKS attributes).
std::vector<int> sub_blocks(const pb::OpDesc& op, int num_blocks) {
  std::vector<int> out;
  for (const auto& a : op.attrs()) {
    if (a.type() == pb::BLOCK && a.has_block_idx()) out.push_back(a.block_idx());
    if (a.type() == pb::BLOCKS)
      for (int b : a.blocks_idx()) out.push_back(b);
  }
  std::erase_if(out, [&](int b) { return b <= 0 || b >= num_blocks; });
  return out;
}

template <class F> void for_each_name(const pb::OpDesc& op, F&& f) {
  for (const auto& v : op.inputs())
    for (const auto& n : v.arguments()) f(n, true);
  for (const auto& v : op.outputs())
    for (const auto& n : v.arguments()) f(n, false);
}

// Block-0 names touched by the ops of `block` and of the blocks they run,
// marking each block reached with the block-0 position that runs it.
void collect_sub(const Program& p, int block, int pos, std::set<std::string>& names, std::vector<int>& owner,
                 int depth) {
  if (owner[block] >= 0 || depth > p.num_blocks()) return;  // each block once (a malformed cycle ends too)
  owner[block] = pos;
  for (const auto& op : p.block(block).ops()) {
    for_each_name(op, [&](const std::string& n, bool) {
      int found = -1;
      if (!is_empty_var_name(n) && p.find_var(block, n, &found) && found == 0) names.insert(n);
    });
    for (int sb : sub_blocks(op, p.num_blocks())) collect_sub(p, sb, pos, names, owner, depth + 1);
  }
}

}  // namespace

std::map<std::string, VarLiveness> block0_liveness(const Program& main) {
  const auto& b0 = main.block(0);
  const int n_ops = b0.ops_size();
  std::vector<int> owner(main.num_blocks(), -1);
  std::vector<std::set<std::string>> sub_refs(n_ops);
  for (int i = 0; i < n_ops; ++i)
    for (int sb : sub_blocks(b0.ops(i), main.num_blocks())) collect_sub(main, sb, i, sub_refs[i], owner, 0);
  // A gradient block touches, at its owner's position, everything its
  // forward block's owner touched (replayed records, restored loop vars).
  std::vector<std::set<std::string>> extra(n_ops);
  for (int b = 1; b < main.num_blocks(); ++b) {
    const int fwd = main.block(b).forward_block_idx();
    if (fwd <= 0 || fwd >= main.num_blocks() || owner[b] < 0 || owner[fwd] < 0) continue;
    const int at = owner[b], from = owner[fwd];
    extra[at].insert(sub_refs[from].begin(), sub_refs[from].end());
    for_each_name(b0.ops(from), [&](const std::string& n, bool) { extra[at].insert(n); });
  }
  std::set<std::string> declared;
  for (const auto& v : b0.vars()) declared.insert(v.name());
  std::map<std::string, VarLiveness> live;
  for (int i = 0; i < n_ops; ++i) {
    // What op i does to each name: read (directly or inside a sub-block) or write.
    std::map<std::string, bool> plain_write;  // name -> written and never read by op i
    for_each_name(b0.ops(i), [&](const std::string& n, bool input) {
      auto [it, fresh] = plain_write.emplace(n, !input);
      if (!fresh) it->second = it->second && !input;
    });
    for (const auto* refs : {&sub_refs[i], &extra[i]})
      for (const auto& n : *refs) plain_write[n] = false;
    for (const auto& [n, write] : plain_write) {
      if (is_empty_var_name(n) || !declared.count(n)) continue;
      VarLiveness& l = live[n];
      if (l.first < 0) l.first = i, l.defined_first = write;
      l.last = i;
    }
  }
  return live;
}

std::vector<int> op_sub_blocks(const pb::OpDesc& op, int num_blocks) { return sub_blocks(op, num_blocks); }

std::map<std::string, VarLiveness> block_liveness(const Program& main, int block) {
  std::map<std::string, VarLiveness> live;
  if (block <= 0 || block >= main.num_blocks()) return live;
  const auto& blk = main.block(block);
  std::set<std::string> declared;
  for (const auto& v : blk.vars()) declared.insert(v.name());
  for (int i = 0; i < blk.ops_size(); ++i) {
    const pb::OpDesc& op = blk.ops(i);
    std::map<std::string, bool> plain_write;  // name -> written and never read by op i
    for_each_name(op, [&](const std::string& n, bool input) {
      auto [it, fresh] = plain_write.emplace(n, !input);
      if (!fresh) it->second = it->second && !input;
    });
    // Names a nested block's ops use that resolve to this block's variables.
    for (int sb : sub_blocks(op, main.num_blocks())) {
      std::vector<int> seen(main.num_blocks(), -1);
      seen[block] = 0;
      std::vector<int> stack{sb};
      while (!stack.empty()) {
        const int b = stack.back();
        stack.pop_back();
        if (seen[b] >= 0) continue;
        seen[b] = 0;
        for (const auto& nop : main.block(b).ops()) {
          for_each_name(nop, [&](const std::string& n, bool) {
            int found = -1;
            if (!is_empty_var_name(n) && main.find_var(b, n, &found) && found == block) plain_write[n] = false;
          });
          for (int nb : sub_blocks(nop, main.num_blocks())) stack.push_back(nb);
        }
      }
    }
    for (const auto& [n, write] : plain_write) {
      int found = -1;
      if (is_empty_var_name(n) || !declared.count(n) || !main.find_var(block, n, &found) || found != block) continue;
      VarLiveness& l = live[n];
      if (l.first < 0) l.first = i, l.defined_first = write;
      l.last = i;
    }
  }
  return live;
}

std::set<std::string> names_touched(const Program& prog) {
  std::set<std::string> out;
  for (int b = 0; b < prog.num_blocks(); ++b) {
    for (const auto& v : prog.block(b).vars()) out.insert(v.name());
    for (const auto& op : prog.block(b).ops()) for_each_name(op, [&](const std::string& n, bool) { out.insert(n); });
  }
  return out;
}

}  // namespace fluidc
