// compiler/ops/control_flow.cc - conditional_block, while, comparisons, logic, is_empty, select and tensor arrays.
//
// conditional_block and while own a sub-block; the generator turns them into
// a C++ `if` / `while` around a call of that block's function, so the
// condition is tested natively and no scope is created at run time.
#include <fmt/format.h>

#include <algorithm>

#include "compiler/support/escape.h"
#include "compiler/ops/emit_ctx.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/compare.h"
#include "kernels/control.h"
#include "kernels/shapes/control.h"
#include "kernels/shapes/isclose.h"

namespace fluidc::ops {
namespace {

constexpr auto kArray = pb::VarType::LOD_TENSOR_ARRAY;
constexpr auto kScopes = pb::VarType::STEP_SCOPES;
constexpr auto kAny = pb::VarType::RAW;

void infer_compare(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  if (!x.known || !y.known) return;
  if (x.dtype != y.dtype) {
    c.error(fmt::format("X is {} but Y is {}: compared operands must have one dtype", x.str(), y.str()));
    return;
  }
  TensorType out = x;
  out.dtype = pb::VarType::BOOL;
  const auto a = parse_attrs<kernels::CompareAttrs>(c.op());
  if (std::string e = shape_rules::broadcast(x.dims, y.dims, a.axis, out.dims); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", out);
}

// isclose: bool of Input's shape; allclose (`reduced`): a 0-D bool. Both refuse tolerance strings that are
// not numbers.
void infer_close(ShapeCtx& c, bool reduced) {
  const auto a = parse_attrs<kernels::IscloseAttrs>(c.op());
  double v = 0;
  for (auto [name, text] : {std::pair{"rtol", &a.rtol}, {"atol", &a.atol}})
    if (std::string e = shapes::parse_tolerance(name, *text, v); !e.empty()) {
      c.error(e);
      return;
    }
  const TensorType& x = c.input("Input");
  const TensorType& y = c.input("Other");
  if (!x.known || !y.known) return;
  if (x.dtype != y.dtype) {
    c.error(fmt::format("Input is {} but Other is {}: they must have one dtype", x.str(), y.str()));
    return;
  }
  rt::Shape xs, ys;
  if (shape_rules::to_shape(c, x, xs) && shape_rules::to_shape(c, y, ys))
    if (std::string e = shapes::isclose_check(xs, ys); !e.empty()) {
      c.error(e);
      return;
    }
  TensorType out = x;
  out.dtype = pb::VarType::BOOL;
  if (reduced) out.dims = {};
  c.set_output("Out", out);
}
void infer_isclose(ShapeCtx& c) { infer_close(c, false); }
void infer_allclose(ShapeCtx& c) { infer_close(c, true); }

// The kernel's rule (kernels/shapes/control.h): a one-element counter.
void infer_increment(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = shapes::increment_shape(xs, os); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", x);
}

void infer_logical_not(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = pb::VarType::BOOL;
  c.set_output("Out", out);
}

// is_empty: a 0-D bool, whatever X is.
void infer_is_empty(ShapeCtx& c) {
  TensorType out;
  out.known = true;
  out.dtype = pb::VarType::BOOL;
  c.set_output("Out", out);
}

void infer_select_input(ShapeCtx& c) { c.set_output("Out", c.input("X", 0)); }

void infer_select_output(ShapeCtx& c) { c.set_output("Out", c.input("X")); }

// An array's type is its elements' type, so reading and writing keep it.
void infer_like_x(ShapeCtx& c) { c.set_output("Out", c.input("X")); }

// The elements' type with the joined axis unknown (the array's length is
// known only at run time); OutIndex is int32 [length].
void infer_tensor_array_to_tensor(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const auto a = parse_attrs<kernels::TensorArrayToTensorAttrs>(c.op());
  TensorType index;
  index.known = true;
  index.dtype = pb::VarType::INT32;
  index.dims = {-1};
  c.set_output("OutIndex", index);
  if (!x.known) return;
  TensorType out = x;
  const int rank = static_cast<int>(x.dims.size()) + (a.use_stack ? 1 : 0);
  const int axis = a.axis < 0 ? a.axis + rank : a.axis;
  if (axis < 0 || axis >= rank || (!a.use_stack && x.dims.empty())) {
    c.error(fmt::format("axis {} is out of range for elements {}", a.axis, x.str()));
    return;
  }
  if (a.use_stack) out.dims.insert(out.dims.begin() + axis, -1);
  else out.dims[static_cast<size_t>(axis)] = -1;
  c.set_output("Out", out);
}

void infer_array_length(ShapeCtx& c) {
  TensorType out;
  out.known = true;
  out.dtype = pb::VarType::INT64;
  out.dims = {1};
  c.set_output("Out", out);
}

std::string condition_expr(EmitCtx& c);

// A scalar condition is tested as a bool; Paddle runs a non-scalar
// conditional_block when every Cond tensor is non-empty.
void emit_conditional_block(EmitCtx& c) {
  c.body() << fmt::format("  if ({}) {}();\n", condition_expr(c),
                          c.block_fn(static_cast<int>(attr_int(c.op(), "sub_block", -1))));
}

// X_W carries nothing the kernel needs.
void emit_read_from_array(EmitCtx& c) {
  c.body() << fmt::format("  k::read_from_array({}, {}, {});\n", c.var(op_inputs(c.op(), "X").at(0)),
                          c.var(op_inputs(c.op(), "I").at(0)), c.var(op_outputs(c.op(), "Out").at(0)));
}

// Both spellings call the one kernel.
void emit_array_length(EmitCtx& c) {
  c.body() << fmt::format("  k::array_length({}, {});\n", c.var(op_inputs(c.op(), "X").at(0)),
                          c.var(op_outputs(c.op(), "Out").at(0)));
}

// ---- backward through control flow -------------------------------------

const std::string& kGrad = kGradSuffix;

// The condition test shared by conditional_block and its gradient.
std::string condition_expr(EmitCtx& c) {
  auto conds = op_inputs(c.op(), "Cond");
  if (attr_bool(c.op(), "is_scalar_condition", false))
    return fmt::format("k::condition_holds({}, \"{}\")", c.var(conds.at(0)), c.op().type());
  std::vector<std::string> ptrs;
  for (const auto& n : conds) ptrs.push_back("&" + c.var(n));
  return fmt::format("k::all_nonempty(std::array<const Tensor*, {}>{{{}}}.data(), {})", conds.size(),
                     fmt::join(ptrs, ", "), conds.size());
}

// Pairs (forward input, its gradient outside) of a grad op, positions kept;
// entries whose gradient nobody needs are dropped.
std::vector<std::pair<std::string, std::string>> input_grads(const pb::OpDesc& op, const std::string& in_slot) {
  std::vector<std::string> ins, grads;
  for (const auto& v : op.inputs())
    if (v.parameter() == in_slot) ins.assign(v.arguments().begin(), v.arguments().end());
  for (const auto& v : op.outputs())
    if (v.parameter() == in_slot + kGrad) grads.assign(v.arguments().begin(), v.arguments().end());
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < ins.size() && i < grads.size(); ++i)
    if (!is_empty_var_name(grads[i])) out.emplace_back(ins[i], grads[i]);
  return out;
}

// conditional_block_grad: when the branch ran, run its gradient block and
// hand each input's gradient out (Paddle copies it to the parent scope);
// when it did not, those gradients are zero.
void emit_conditional_block_grad(EmitCtx& c) {
  const int grad_block = static_cast<int>(attr_int(c.op(), "sub_block", -1));
  auto pairs = input_grads(c.op(), "Input");
  c.use_kernels("fill");  // fill_zeros_like
  c.body() << fmt::format("  if ({}) {{\n    {}();\n", condition_expr(c), c.block_fn(grad_block));
  for (const auto& [in, grad] : pairs) {
    const std::string* inner = c.find_in(grad_block, in + kGrad);
    const std::string& outer = c.var(grad);
    if (!inner)
      c.body() << fmt::format("    k::fill_zeros_like({}, {});\n", c.var(in), outer);
    else if (*inner != outer)
      c.body() << fmt::format("    if ({0}.initialized()) {1}.copy_from({0}); else k::fill_zeros_like({2}, {1});\n",
                              *inner, outer, c.var(in));
  }
  c.body() << "  } else {\n";
  for (const auto& [in, grad] : pairs) c.body() << fmt::format("    k::fill_zeros_like({}, {});\n", c.var(in), c.var(grad));
  c.body() << "  }\n";
}

// What one iteration of a while loop must keep for while_grad, in record
// order: the loop variables (read and written by the body) as the iteration
// found them, then the tensors the body and the blocks nested in it own.
struct StepRecord {
  std::vector<std::string> loop_vars;  // resolved from the while's block
  std::vector<std::pair<int, std::string>> locals;  // (declaring block, name)
};

StepRecord step_record(const Program& prog, const std::vector<std::string>& xs, const std::vector<std::string>& outs,
                       int while_block, int body) {
  StepRecord r;
  for (const auto& x : xs) {
    const pb::VarDesc* v = prog.find_var(while_block, x);
    if (v && is_dense_tensor(*v) && std::find(outs.begin(), outs.end(), x) != outs.end())
      r.loop_vars.push_back(x);
  }
  for (int b = body; b < prog.num_blocks(); ++b) {
    int up = b;
    for (int hops = 0; up > body && hops < prog.num_blocks(); ++hops) up = prog.parent_of(up);
    if (up != body || prog.block(b).forward_block_idx() >= 0) continue;
    for (const auto& v : prog.block(b).vars())
      if (is_dense_tensor(v)) r.locals.emplace_back(b, v.name());
  }
  return r;
}

std::string steps_ident(const pb::OpDesc& op) {
  return "steps_" + cpp_identifier(op_outputs(op, "StepScopes").empty() ? op_inputs(op, "StepScopes").at(0)
                                                                          : op_outputs(op, "StepScopes").at(0))
                        .substr(2);
}

// A while whose StepScopes some while_grad reads records every iteration.
bool has_backward(const Program& prog, const std::string& scopes) {
  for (int b = 0; b < prog.num_blocks(); ++b)
    for (const auto& op : prog.block(b).ops())
      if (op.type() == "while_grad" && op_inputs(op, "StepScopes") == std::vector<std::string>{scopes}) return true;
  return false;
}

void emit_while(EmitCtx& c) {
  const int body = static_cast<int>(attr_int(c.op(), "sub_block", -1));
  const std::string fn = c.block_fn(body);
  const std::string cond = c.var(op_inputs(c.op(), "Condition").at(0));
  auto scopes = op_outputs(c.op(), "StepScopes");
  if (attr_bool(c.op(), "is_test", false) || scopes.empty() || !has_backward(c.program(), scopes[0])) {
    c.body() << fmt::format("  while (k::condition_holds({}, \"while\")) {}();\n", cond, fn);
    return;
  }
  StepRecord r = step_record(c.program(), op_inputs(c.op(), "X"), op_outputs(c.op(), "Out"), c.block(), body);
  const std::string steps = steps_ident(c.op());
  c.members() << fmt::format("  fluidc::rt::StepStack {};  // iterations of the while in block {}\n", steps, c.block());
  c.body() << fmt::format("  {}.clear();\n  while (k::condition_holds({}, \"while\")) {{\n", steps, cond);
  c.body() << fmt::format("    std::vector<Tensor>& rec = {}.push({});\n", steps, r.loop_vars.size() + r.locals.size());
  size_t slot = 0;
  for (const auto& v : r.loop_vars)
    c.body() << fmt::format("    fluidc::rt::StepStack::save(rec[{}], {});\n", slot++, c.var(v));
  c.body() << fmt::format("    {}();\n", fn);
  for (const auto& [b, v] : r.locals)
    c.body() << fmt::format("    fluidc::rt::StepStack::save(rec[{}], {});\n", slot++, c.var_in(b, v));
  c.body() << "  }\n";
}

// while_grad: the gradient block once per recorded iteration, last first,
// with that iteration's values restored. A loop variable's gradient is
// carried from step to step (it is the next step's output gradient); every
// other input's gradient is summed over the steps, as Paddle's while_grad does.
void emit_while_grad(EmitCtx& c) {
  const int grad_block = static_cast<int>(attr_int(c.op(), "sub_block", -1));
  const int body = c.program().block(grad_block).forward_block_idx();
  const auto xs = op_inputs(c.op(), "X");
  const auto outs = op_inputs(c.op(), "Out");
  StepRecord r = step_record(c.program(), xs, outs, c.block(), body);
  const std::string steps = steps_ident(c.op());
  c.use_kernels("fill");         // fill_zeros_like
  c.use_kernels("elementwise");  // summing gradients over steps
  const std::string stash = "stash_" + steps.substr(6);
  c.members() << fmt::format("  Tensor {}[{}];  // loop variables' final values while {} is replayed\n", stash,
                             std::max<size_t>(1, r.loop_vars.size()), steps);
  auto& o = c.body();
  o << "  {\n";
  for (size_t i = 0; i < r.loop_vars.size(); ++i)
    o << fmt::format("    fluidc::rt::StepStack::save({}[{}], {});\n", stash, i, c.var(r.loop_vars[i]));
  o << fmt::format("    for (size_t i = {}.size(); i-- > 0;) {{\n      std::vector<Tensor>& rec = {}.at(i);\n", steps, steps);
  size_t slot = 0;
  for (const auto& v : r.loop_vars)
    o << fmt::format("      if (rec[{0}].initialized()) {1}.copy_from(rec[{0}]);\n", slot++, c.var(v));
  for (const auto& [b, v] : r.locals)
    o << fmt::format("      if (rec[{0}].initialized()) {1}.copy_from(rec[{0}]);\n", slot++, c.var_in(b, v));
  // The first step replayed starts from the gradients flowing in from outside.
  o << fmt::format("      if (i + 1 == {}.size()) {{\n", steps);
  for (const auto& og : op_inputs(c.op(), "Out" + kGrad)) {
    const std::string* inner = c.find_in(grad_block, og);
    if (inner && *inner != c.var(og)) o << fmt::format("        {}.copy_from({});\n", *inner, c.var(og));
  }
  o << fmt::format("      }}\n      {}();\n", c.block_fn(grad_block));
  for (const auto& [x, grad] : input_grads(c.op(), "X")) {
    const std::string* inner = c.find_in(grad_block, x + kGrad);
    const std::string& outer = c.var(grad);
    if (!inner || *inner == outer) continue;
    if (std::find(outs.begin(), outs.end(), x) != outs.end())
      o << fmt::format("      if ({0}.initialized()) {1}.copy_from({0});\n", *inner, outer);
    else
      o << fmt::format("      if (i + 1 == {0}.size()) k::fill_zeros_like({1}, {2});\n"
                       "      if ({3}.initialized()) k::elementwise_add({2}, {3}, {2}, k::ElementwiseAttrs{{}});\n",
                       steps, c.var(x), outer, *inner);
  }
  o << "    }\n";
  // A loop that never ran passes no gradient to the inputs it did not carry.
  o << fmt::format("    if ({}.size() == 0) {{\n", steps);
  for (const auto& [x, grad] : input_grads(c.op(), "X"))
    if (std::find(outs.begin(), outs.end(), x) == outs.end())
      o << fmt::format("      k::fill_zeros_like({}, {});\n", c.var(x), c.var(grad));
  o << "    }\n";
  for (size_t i = 0; i < r.loop_vars.size(); ++i)
    o << fmt::format("    if ({0}[{1}].initialized()) {2}.copy_from({0}[{1}]);\n", stash, i, c.var(r.loop_vars[i]));
  // The records are spent; their storage is reused by the next forward pass.
  o << fmt::format("    {}.clear();\n  }}\n", steps);
}

}  // namespace

void add_control_flow_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> cmp_attrs = kernel_attrs<kernels::CompareAttrs>();
  for (const char* name : {"less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"})
    t.push_back({.type = name, .family = "compare", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .attrs = cmp_attrs, .attrs_struct = "CompareAttrs", .infer_shape = infer_compare});
  for (const char* name : {"logical_and", "logical_or", "logical_xor"})
    t.push_back({.type = name, .family = "compare", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .infer_shape = infer_compare});
  // paddle.isclose / allclose: no gradient; Rtol and Atol tensors, when present, replace the attributes.
  for (auto [name, infer] : {std::pair{"isclose", &infer_isclose}, {"allclose", &infer_allclose}})
    t.push_back({.type = name, .family = "compare", .inputs = {{"Input"}, {"Other"}, {"Rtol", true}, {"Atol", true}},
                 .outputs = {{"Out"}}, .attrs = kernel_attrs<kernels::IscloseAttrs>(), .attrs_struct = "IscloseAttrs",
                 .infer_shape = infer});
  t.push_back({.type = "logical_not", .family = "compare", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = infer_logical_not});
  // A loop's stop test (Fluid's beam-search decoder stops when a step selects nothing).
  t.push_back({.type = "is_empty", .family = "control", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = infer_is_empty});
  t.push_back({.type = "increment", .family = "control", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::IncrementAttrs>(), .attrs_struct = "IncrementAttrs",
               .infer_shape = infer_increment});
  t.push_back({.type = "select_input", .family = "control", .inputs = {{"X", false, true}, {"Mask"}},
               .outputs = {{"Out"}}, .infer_shape = infer_select_input});
  t.push_back({.type = "select_output", .family = "control", .inputs = {{"X"}, {"Mask"}},
               .outputs = {{"Out", false, true}}, .infer_shape = infer_select_output});
  t.push_back({.type = "write_to_array", .family = "control", .inputs = {{"X"}, {"I"}},
               .outputs = {{"Out", false, false, kArray}}, .infer_shape = infer_like_x});
  // X_W is an unused slot Paddle declares (always empty in 2.6 programs).
  t.push_back({.type = "read_from_array", .family = "control",
               .inputs = {{"X", false, false, kArray}, {"I"}, {"X_W", true, false, kAny}},
               .outputs = {{"Out"}}, .infer_shape = infer_like_x, .emit_cpu = emit_read_from_array});
  t.push_back({.type = "tensor_array_to_tensor", .family = "control", .inputs = {{"X", false, false, kArray}},
               .outputs = {{"Out"}, {"OutIndex"}}, .attrs = kernel_attrs<kernels::TensorArrayToTensorAttrs>(),
               .attrs_struct = "TensorArrayToTensorAttrs", .infer_shape = infer_tensor_array_to_tensor});
  // Paddle 2.6 writes lod_array_length; array_length is the newer name.
  for (const char* name : {"array_length", "lod_array_length"})
    t.push_back({.type = name, .family = "control", .inputs = {{"X", false, false, kArray}},
                 .outputs = {{"Out"}}, .infer_shape = infer_array_length, .emit_cpu = emit_array_length});
  t.push_back({.type = "conditional_block",
               .family = "control",
               .inputs = {{"Cond", false, true}, {"Input", true, true, kAny}},
               .outputs = {{"Out", true, true, kAny}, {"Scope", true, false, kScopes}},
               .attrs = {{"sub_block", pb::BLOCK, true, false}, {"is_scalar_condition", pb::BOOLEAN, false, false}},
               .traits = kOwnsBlock | kSideEffect,
               .emit_cpu = emit_conditional_block});
  t.push_back({.type = "conditional_block_grad",
               .family = "control",
               .inputs = {{"Cond", false, true}, {"Input", true, true, kAny}, {"Out", true, true, kAny},
                          {"Out@GRAD", true, true, kAny}, {"Scope", true, false, kScopes}},
               .outputs = {{"Input@GRAD", true, true, kAny}},
               .attrs = {{"sub_block", pb::BLOCK, true, false}, {"is_scalar_condition", pb::BOOLEAN, false, false}},
               .traits = kOwnsBlock | kSideEffect,
               .emit_cpu = emit_conditional_block_grad});
  t.push_back({.type = "while_grad",
               .family = "control",
               .inputs = {{"X", true, true, kAny}, {"Out", true, true, kAny}, {"Out@GRAD", true, true, kAny},
                          {"StepScopes", false, false, kScopes}},
               .outputs = {{"X@GRAD", true, true, kAny}},
               .attrs = {{"sub_block", pb::BLOCK, true, false}},
               .traits = kOwnsBlock | kSideEffect,
               .emit_cpu = emit_while_grad});
  t.push_back({.type = "while",
               .family = "control",
               .inputs = {{"X", true, true, kAny}, {"Condition"}},
               .outputs = {{"Out", true, true, kAny}, {"StepScopes", true, false, kScopes}},
               .attrs = {{"sub_block", pb::BLOCK, true, false}, {"is_test", pb::BOOLEAN, false, false}},
               .traits = kOwnsBlock | kSideEffect,
               .emit_cpu = emit_while});
}

}  // namespace fluidc::ops
