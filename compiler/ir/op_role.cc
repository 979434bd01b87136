// compiler/ir/op_role.cc - finding the loss by Paddle's op_role marks.
#include "compiler/ir/op_role.h"

#include <set>
#include <vector>

#include "compiler/ir/attrs.h"

namespace fluidc {

std::string marked_loss(const pb::BlockDesc& block) {
  std::vector<std::string> candidates;
  std::set<std::string> seeded;
  for (const auto& op : block.ops()) {
    int64_t role = attr_int(op, "op_role", 0);
    if (!(role & kOpRoleLoss)) continue;
    for (const auto& out : op.outputs())
      for (const auto& name : out.arguments()) {
        if (role & kOpRoleBackward) seeded.insert(name);
        else if (candidates.empty() || candidates.back() != name) candidates.push_back(name);
      }
  }
  if (candidates.size() == 1) return candidates[0];
  for (const auto& c : candidates)
    if (seeded.count(grad_var_name(c))) return c;
  return "";
}

}  // namespace fluidc
