// compiler/analysis/dense_rows.cc - SELECTED_ROWS variables whose every use allows it become dense tensors.
#include "compiler/analysis/dense_rows.h"

#include <map>
#include <utility>

#include "compiler/ops/registry.h"

namespace fluidc {

std::vector<std::string> densify_selected_rows(Program& program) {
  // (defining block, name) -> whether every use so far allows a dense tensor.
  std::map<std::pair<int, std::string>, bool> dense_ok;
  for (int b = 0; b < program.num_blocks(); ++b) {
    const auto& block = program.block(b);
    for (int i = 0; i < block.ops_size(); ++i) {
      const auto& op = block.ops(i);
      const ops::OpDef* def = ops::find_op(op.type());
      auto visit = [&](const auto& vars, bool inputs) {
        for (const auto& v : vars) {
          const ops::SlotDef* slot = !def ? nullptr : inputs ? def->input(v.parameter()) : def->output(v.parameter());
          for (const auto& name : v.arguments()) {
            int found = -1;
            const pb::VarDesc* var = program.find_var(b, name, &found);
            if (!var || var->type().type() != pb::VarType::SELECTED_ROWS) continue;
            const bool ok = slot && slot->rows_as_dense;
            auto [it, fresh] = dense_ok.emplace(std::make_pair(found, name), ok);
            if (!fresh) it->second = it->second && ok;
          }
        }
      };
      visit(op.inputs(), true);
      visit(op.outputs(), false);
    }
  }
  std::vector<std::string> changed;
  for (const auto& [key, ok] : dense_ok) {
    if (!ok) continue;
    pb::VarDesc* var = nullptr;
    for (auto& v : *program.mutable_desc().mutable_blocks(key.first)->mutable_vars())
      if (v.name() == key.second) var = &v;
    if (!var) continue;
    pb::VarType* type = var->mutable_type();
    pb::VarType::TensorDesc desc = type->selected_rows();
    type->clear_selected_rows();
    type->set_type(pb::VarType::LOD_TENSOR);
    *type->mutable_lod_tensor()->mutable_tensor() = std::move(desc);
    changed.push_back(key.second);
  }
  return changed;
}

}  // namespace fluidc
