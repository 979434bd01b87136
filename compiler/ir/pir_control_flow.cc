// compiler/ir/pir_control_flow.cc - PIR's pd_op.if and pd_op.while as conditional_block, select_input and while.
#include <fmt/format.h>

#include "compiler/ir/pir_lowering.h"

namespace fluidc::pir {

std::vector<int64_t> Translator::translate_region(const Op& owner, const Block& b, pb::BlockDesc* into) {
  if (b.ops.empty() || b.ops.back().name != "cf.yield") fail(owner, "a region whose block does not end in cf.yield");
  pb::BlockDesc* outer = block_;
  block_ = into;
  for (size_t i = 0; i + 1 < b.ops.size(); ++i) translate(b.ops[i]);
  std::vector<int64_t> yielded = b.ops.back().operands;
  for (int64_t v : yielded)
    if (v == 0) fail(b.ops.back(), "a yield of no value");
  block_ = outer;
  return yielded;
}

void Translator::write_assign(pb::BlockDesc* b, const std::string& from, const std::string& to) {
  pb::OpDesc* a = b->add_ops();
  a->set_type("assign");
  add_slot(a->add_inputs(), "X", {from});
  add_slot(a->add_outputs(), "Out", {to});
}

pb::OpDesc* Translator::write_conditional_block(const std::string& cond, const std::vector<std::string>& outs, int sub) {
  pb::OpDesc* o = block_->add_ops();
  o->set_type("conditional_block");
  add_slot(o->add_inputs(), "Cond", {cond});
  add_slot(o->add_outputs(), "Out", outs);
  pb::OpDesc::Attr* a = o->add_attrs();
  a->set_name("sub_block");
  a->set_type(pb::BLOCK);
  a->set_block_idx(sub);
  set_attr(*o, "is_scalar_condition", Attr{.kind = Attr::kBool, .b = true});
  return o;
}

void Translator::write_if(const Op& op) {
  if (op.operands.size() != 1 || op.operands[0] == 0) fail(op, "an if takes one condition");
  const std::string cond = tensor_var(op, op.operands[0]);
  std::vector<std::vector<std::string>> branch_vars(2);
  for (int br = 0; br < 2; ++br) {
    pb::BlockDesc* sub = new_block(block_->idx());
    const int sub_idx = sub->idx();
    const std::vector<int64_t> yielded = translate_region(op, op.regions[br], sub);
    if (yielded.size() != op.results.size())
      fail(op, fmt::format("a branch yields {} values for {} results", yielded.size(), op.results.size()));
    pb::BlockDesc* into = desc_.mutable_blocks(sub_idx);
    for (size_t i = 0; i < yielded.size(); ++i) {
      const Type& t = op.result_types[i];
      if (t.kind != Type::kTensor) fail(op, fmt::format("result {} is not a dense tensor", i));
      const std::string v = fresh_var(fmt::format("if.tmp_{}.{}", op.results[i], br ? "false" : "true"), t);
      write_assign(into, tensor_var(op, yielded[i]), v);
      branch_vars[br].push_back(v);
    }
    std::string run_if = cond;
    if (br == 1) {
      run_if = fresh_var(fmt::format("if.not_{}", op.operands[0]), type_of(op.operands[0]));
      pb::OpDesc* n = block_->add_ops();
      n->set_type("logical_not");
      add_slot(n->add_inputs(), "X", {cond});
      add_slot(n->add_outputs(), "Out", {run_if});
    }
    write_conditional_block(run_if, branch_vars[br], sub_idx);
  }
  if (op.results.empty()) return;
  const std::string mask = fresh_var(fmt::format("if.mask_{}", op.operands[0]), Type{.kind = Type::kTensor, .dtype = pb::VarType::INT32, .dims = {1}});
  pb::OpDesc* c = block_->add_ops();
  c->set_type("cast");
  add_slot(c->add_inputs(), "X", {cond});
  add_slot(c->add_outputs(), "Out", {mask});
  set_attr(*c, "in_dtype", Attr{.kind = Attr::kInt32, .i = type_of(op.operands[0]).dtype});
  set_attr(*c, "out_dtype", Attr{.kind = Attr::kInt32, .i = pb::VarType::INT32});
  for (size_t i = 0; i < op.results.size(); ++i) {
    declare(op, op.results[i]);
    pb::OpDesc* sel = block_->add_ops();
    sel->set_type("select_input");
    add_slot(sel->add_inputs(), "X", {branch_vars[1][i], branch_vars[0][i]});  // Mask 0 picks X[0]
    add_slot(sel->add_inputs(), "Mask", {mask});
    add_slot(sel->add_outputs(), "Out", {name_of(op.results[i])});
  }
}

void Translator::write_while(const Op& op) {
  const Block& body = op.regions[0];
  if (op.operands.empty() || op.operands[0] == 0) fail(op, "a while takes a condition");
  const size_t k = op.operands.size() - 1;
  if (op.results.size() != k || body.args.size() != k)
    fail(op, fmt::format("{} loop values, {} results and {} block arguments disagree", k, op.results.size(), body.args.size()));
  std::vector<std::string> loop_vars;
  for (size_t i = 0; i < k; ++i) {
    if (op.operands[i + 1] == 0) fail(op, fmt::format("loop value {} is missing", i));
    declare(op, op.results[i]);
    loop_vars.push_back(name_of(op.results[i]));
    write_assign(block_, tensor_var(op, op.operands[i + 1]), loop_vars[i]);
    names_[body.args[i]] = loop_vars[i];
    bound_.insert(body.args[i]);
  }
  const std::string cond = fresh_var(fmt::format("while.cond_{}", op.results.empty() ? op.index : op.results[0]),
                                     type_of(op.operands[0]));
  write_assign(block_, tensor_var(op, op.operands[0]), cond);
  pb::BlockDesc* sub = new_block(block_->idx());
  const int sub_idx = sub->idx();
  const std::vector<int64_t> yielded = translate_region(op, body, sub);
  if (yielded.size() != k + 1) fail(op, fmt::format("the body yields {} values for a condition and {} loop values", yielded.size(), k));
  pb::BlockDesc* into = desc_.mutable_blocks(sub_idx);
  // A yielded block argument (a loop variable passed on, maybe to another
  // slot) is copied out first, so no assignment reads a variable an
  // earlier one of the same yield has overwritten.
  std::vector<std::string> from(k);
  for (size_t i = 0; i < k; ++i) {
    from[i] = tensor_var(op, yielded[i + 1]);
    if (bound_.count(yielded[i + 1]) && from[i] != loop_vars[i]) {
      const std::string held = fresh_var(loop_vars[i] + ".next", type_of(op.results[i]));
      write_assign(into, from[i], held);
      from[i] = held;
    }
  }
  for (size_t i = 0; i < k; ++i)
    if (from[i] != loop_vars[i]) write_assign(into, from[i], loop_vars[i]);
  write_assign(into, tensor_var(op, yielded[0]), cond);
  pb::OpDesc* w = block_->add_ops();
  w->set_type("while");
  std::vector<std::string> x = loop_vars;
  x.push_back(cond);
  add_slot(w->add_inputs(), "X", x);
  add_slot(w->add_inputs(), "Condition", {cond});
  add_slot(w->add_outputs(), "Out", loop_vars);
  pb::OpDesc::Attr* a = w->add_attrs();
  a->set_name("sub_block");
  a->set_type(pb::BLOCK);
  a->set_block_idx(sub_idx);
  set_attr(*w, "is_test", Attr{.kind = Attr::kBool, .b = true});
}

}  // namespace fluidc::pir
