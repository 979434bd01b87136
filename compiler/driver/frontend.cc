// compiler/driver/frontend.cc - load, verify, infer shapes, check def-before-use.
#include "compiler/driver/frontend.h"

#include <fmt/format.h>

#include <set>

#include "compiler/analysis/dense_rows.h"
#include "compiler/analysis/shape_infer.h"
#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/analysis/verify.h"

namespace fluidc {

CheckedProgram load_checked(const std::string& path) { return check_program(Program::load(path)); }

CheckedProgram check_program(Program program) {
  CheckedProgram c{std::move(program), {}, {}};
  densify_selected_rows(c.program);  // before the verifier, which takes them for dense tensors
  verify_program(c.program, c.diags);
  c.diags.throw_if_errors();
  c.types = infer_shapes(c.program, c.diags);
  c.diags.throw_if_errors();
  return c;
}

void check_dataflow(const Program& prog, const ProgramInfo& info, Diagnostics& diags) {
  std::set<std::string> defined(info.feeds.begin(), info.feeds.end());
  defined.insert(info.persistables.begin(), info.persistables.end());
  const auto& block = prog.block(0);
  for (int i = 0; i < block.ops_size(); ++i) {
    const auto& op = block.ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    // A feed op's input is Paddle's feed holder, filled by the driver.
    bool feed = def && def->has(ops::kFeed);
    if (!feed) {
      for (const auto& in : op.inputs())
        for (const auto& name : in.arguments()) {
          if (is_empty_var_name(name) || defined.count(name)) continue;
          const pb::VarDesc* v = prog.find_var(0, name);
          if (!v || !is_dense_tensor(*v)) continue;
          diags.error(prog.loc(0, i, name),
                      fmt::format("input {} is read before any op writes it, and it is neither fed nor persistable",
                                  in.parameter()));
          defined.insert(name);  // report each variable once
        }
    }
    for (const auto& out : op.outputs())
      for (const auto& name : out.arguments()) defined.insert(name);
  }
  if (!info.loss.empty() && !defined.count(info.loss))
    diags.error(prog.loc(0, -1, info.loss), "the loss is never written by any op of block 0");
}

}  // namespace fluidc
