// transpilers/block_uses.h - who reads and writes each variable, and small op-building helpers, for the inference rewrites.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// How often each variable is read (all blocks) and written (block 0), and
/// which must keep their values: fetched, in `keep`, or read by a sub-block.
struct Uses {
  std::unordered_map<std::string, int> reads;
  std::unordered_map<std::string, int> writes;  // block 0 only
  std::unordered_set<std::string> pinned;

  int read_count(const std::string& name) const;
  int write_count(const std::string& name) const;
  /// Written once in block 0, read by exactly one op, not pinned: an
  /// intermediate that a rewrite may rename or drop.
  bool private_value(const std::string& name) const;
};
Uses count_uses(const pb::ProgramDesc& prog, const std::vector<std::string>& keep);

/// The single variable bound to `slot`, or "" when there is none or several.
std::string sole(const pb::OpDesc& op, const std::string& slot, bool input);

/// A persistable dense tensor of `block` (a parameter).
bool persistable(const pb::BlockDesc& block, const std::string& name);

/// A fresh variable named after `base`, typed like `like` (dtype and dims).
std::string new_var(pb::BlockDesc& block, const std::string& base, const pb::VarDesc& like);

/// An op of `type` with the given single-variable inputs and one output.
pb::OpDesc make_op(const std::string& type, std::vector<std::pair<std::string, std::string>> in,
                   const std::string& out_slot, const std::string& out);

/// Binds input `slot` to `var`, reusing an empty slot entry (old programs
/// list their unused slots, e.g. `Bias=[]`).
void bind_input(pb::OpDesc& op, const std::string& slot, const std::string& var);
/// Rebinds output `slot` (one variable) to `var`.
void bind_output(pb::OpDesc& op, const std::string& slot, const std::string& var);

/// The block's ops again, with `before[i]` inserted ahead of op i (moved out) and the ops in
/// `dropped` left out: how fold-batch-norm and conv-epilogue apply their rewrites in one pass.
void rewrite_ops(pb::BlockDesc& block, std::unordered_map<int, std::vector<pb::OpDesc>>& before,
                 const std::unordered_set<int>& dropped);

}  // namespace fluidc
