// compiler/ops/control_flow.cc - conditional_block, while, comparisons, logic, select and tensor arrays.
//
// conditional_block and while own a sub-block; the generator turns them into
// a C++ `if` / `while` around a call of that block's function, so the
// condition is tested natively and no scope is created at run time.
#include <fmt/format.h>

#include "compiler/codegen/emit_ctx.h"
#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"

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
  int axis = static_cast<int>(attr_int(c.op(), "axis", -1));
  if (!shape_rules::broadcast(x.dims, y.dims, axis, out.dims)) {
    c.error(fmt::format("X {} and Y {} do not broadcast", dims_str(x.dims), dims_str(y.dims)));
    return;
  }
  c.set_output("Out", out);
}

void infer_logical_not(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = pb::VarType::BOOL;
  c.set_output("Out", out);
}

void infer_select_input(ShapeCtx& c) { c.set_output("Out", c.input("X", 0)); }

void infer_select_output(ShapeCtx& c) { c.set_output("Out", c.input("X")); }

// An array's type is its elements' type, so reading and writing keep it.
void infer_like_x(ShapeCtx& c) { c.set_output("Out", c.input("X")); }

void infer_array_length(ShapeCtx& c) {
  TensorType out;
  out.known = true;
  out.dtype = pb::VarType::INT64;
  out.dims = {1};
  c.set_output("Out", out);
}

void emit_conditional_block(EmitCtx& c) {
  const std::string fn = c.block_fn(static_cast<int>(attr_int(c.op(), "sub_block", -1)));
  auto conds = op_inputs(c.op(), "Cond");
  if (attr_bool(c.op(), "is_scalar_condition", false)) {
    c.body() << fmt::format("  if (k::condition_holds({}, \"conditional_block\")) {}();\n", c.var(conds.at(0)), fn);
    return;
  }
  // Paddle runs a non-scalar conditional_block when every Cond is non-empty.
  std::vector<std::string> ptrs;
  for (const auto& n : conds) ptrs.push_back("&" + c.var(n));
  c.body() << fmt::format("  {{\n    const Tensor* const conds[] = {{{}}};\n    if (k::all_nonempty(conds, {})) {}();\n  }}\n",
                          fmt::join(ptrs, ", "), conds.size(), fn);
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

void emit_while(EmitCtx& c) {
  const std::string fn = c.block_fn(static_cast<int>(attr_int(c.op(), "sub_block", -1)));
  c.body() << fmt::format("  while (k::condition_holds({}, \"while\")) {}();\n",
                          c.var(op_inputs(c.op(), "Condition").at(0)), fn);
}

}  // namespace

void add_control_flow_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> cmp_attrs = {{"axis", pb::INT}, {"force_cpu", pb::BOOLEAN}};
  for (const char* name : {"less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"})
    t.push_back({.type = name, .family = "compare", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .attrs = cmp_attrs, .attrs_struct = "CompareAttrs", .infer_shape = infer_compare});
  for (const char* name : {"logical_and", "logical_or", "logical_xor"})
    t.push_back({.type = name, .family = "compare", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .infer_shape = infer_compare});
  t.push_back({.type = "logical_not", .family = "compare", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = infer_logical_not});
  t.push_back({.type = "increment", .family = "control", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = {{"step", pb::FLOAT}}, .attrs_struct = "IncrementAttrs",
               .infer_shape = shape_rules::same_as_x});
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
  t.push_back({.type = "while",
               .family = "control",
               .inputs = {{"X", true, true, kAny}, {"Condition"}},
               .outputs = {{"Out", true, true, kAny}, {"StepScopes", true, false, kScopes}},
               .attrs = {{"sub_block", pb::BLOCK, true, false}, {"is_test", pb::BOOLEAN, false, false}},
               .traits = kOwnsBlock | kSideEffect,
               .emit_cpu = emit_while});
}

}  // namespace fluidc::ops
