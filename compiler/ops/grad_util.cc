// compiler/ops/grad_util.cc - builders for gradient OpDescs.
#include "compiler/ops/grad_util.h"

#include <functional>

#include "compiler/ir/attrs.h"

namespace fluidc::ops {
namespace {

void add_slot(google::protobuf::RepeatedPtrField<pb::OpDesc::Var>* vars, const std::string& slot,
              const std::vector<std::string>& args) {
  auto* v = vars->Add();
  v->set_parameter(slot);
  for (const auto& a : args) v->add_arguments(a);
}

pb::OpDesc::Attr& attr_slot(pb::OpDesc& op, const std::string& name, pb::AttrType type) {
  for (auto& a : *op.mutable_attrs())
    if (a.name() == name) {
      a.Clear();
      a.set_name(name);
      a.set_type(type);
      return a;
    }
  auto* a = op.add_attrs();
  a->set_name(name);
  a->set_type(type);
  return *a;
}

}  // namespace

void add_input(pb::OpDesc& op, const std::string& slot, const std::vector<std::string>& args) {
  add_slot(op.mutable_inputs(), slot, args);
}

void add_output(pb::OpDesc& op, const std::string& slot, const std::vector<std::string>& args) {
  add_slot(op.mutable_outputs(), slot, args);
}

void copy_semantic_attrs(const pb::OpDesc& from, pb::OpDesc& to) {
  for (const auto& a : from.attrs()) {
    const std::string& n = a.name();
    if (n == "op_role" || n == "op_role_var" || n == "op_callstack" || n == "op_namescope" || n == "op_device")
      continue;
    *to.add_attrs() = a;
  }
}

void set_attr_int(pb::OpDesc& op, const std::string& name, int64_t v) {
  attr_slot(op, name, pb::INT).set_i(static_cast<int32_t>(v));
}
void set_attr_float(pb::OpDesc& op, const std::string& name, float v) { attr_slot(op, name, pb::FLOAT).set_f(v); }
void set_attr_bool(pb::OpDesc& op, const std::string& name, bool v) { attr_slot(op, name, pb::BOOLEAN).set_b(v); }
void set_attr_string(pb::OpDesc& op, const std::string& name, const std::string& v) {
  attr_slot(op, name, pb::STRING).set_s(v);
}
void set_attr_strings(pb::OpDesc& op, const std::string& name, const std::vector<std::string>& v) {
  auto& a = attr_slot(op, name, pb::STRINGS);
  for (const auto& s : v) a.add_strings(s);
}
void set_attr_longs(pb::OpDesc& op, const std::string& name, const std::vector<int64_t>& v) {
  auto& a = attr_slot(op, name, pb::LONGS);
  for (int64_t x : v) a.add_longs(x);
}

bool unary_self_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                     pb::OpDesc& grad) {
  auto xs = op_inputs(fwd, "X");
  auto outs = op_outputs(fwd, "Out");
  if (xs.empty() || outs.empty()) return false;
  // Ask for Out's gradient first: asking for X's hands out a name for a
  // contribution this op then has to write.
  std::string dout = grad_of(outs[0]);
  if (dout.empty()) return false;
  std::string dx = grad_of(xs[0]);
  if (dx.empty()) return false;
  grad.set_type(fwd.type());
  add_input(grad, "X", {dout});
  add_output(grad, "Out", {dx});
  copy_semantic_attrs(fwd, grad);
  return true;
}

bool join_output_grads(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                       const std::string& join, const std::string& out_slot, int64_t axis, pb::OpDesc& grad) {
  const std::string dx = grad_of(op_inputs(fwd, "X").at(0));
  if (dx.empty()) return false;
  std::vector<std::string> douts;
  for (const auto& o : op_outputs(fwd, "Out")) douts.push_back(grad_of(o));
  grad.set_type(join);
  add_input(grad, "X", douts);
  add_output(grad, out_slot, {dx});
  set_attr_int(grad, "axis", axis);
  return true;
}

}  // namespace fluidc::ops
