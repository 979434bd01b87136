// compiler/ops/fill.cc - tensor creation and copies: fill_constant, *_like, assign, cast, random init.
#include <fmt/format.h>

#include "compiler/ops/emit_ctx.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/fill.h"
#include "kernels/shapes/fill.h"

namespace fluidc::ops {
namespace {

pb::VarType::Type dtype_attr(ShapeCtx& c, const char* name, pb::VarType::Type fallback) {
  int64_t code = attr_int(c.op(), name, -1);
  if (code < 0) return fallback;
  if (!pb::VarType::Type_IsValid(static_cast<int>(code))) {
    c.error(fmt::format("attribute {} = {} is not a Paddle dtype code", name, code));
    return fallback;
  }
  return static_cast<pb::VarType::Type>(code);
}

// Ops that create a tensor from a `shape` and `dtype` attribute: the
// kernels' rule (kernels/shapes/fill.h), the kernel struct's default dtype.
template <class Attrs>
void infer_from_shape_attr(ShapeCtx& c) {
  const auto a = parse_attrs<Attrs>(c.op());
  rt::Shape s;
  if (std::string e = shapes::shape_attr_shape(a.shape, s); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out;
  out.known = true;
  out.dtype = dtype_attr(c, "dtype", static_cast<pb::VarType::Type>(Attrs{}.dtype));
  out.dims = shape_rules::from_shape(s);
  c.set_output("Out", out);
}

// The creating ops' shape may come from tensors (ShapeTensor, else
// ShapeTensorList, win over the attribute): the rank is known from them, the
// dims only at run time.
template <class Attrs>
void infer_from_shape_inputs(ShapeCtx& c) {
  const bool from_tensor = c.has_input("ShapeTensor");
  if (!from_tensor && !c.has_input("ShapeTensorList")) return infer_from_shape_attr<Attrs>(c);
  int64_t rank = c.num_inputs("ShapeTensorList");
  if (from_tensor) {
    const TensorType& st = c.input("ShapeTensor");
    if (!st.known || st.dims.size() > 1 || (st.dims.size() == 1 && st.dims[0] < 0)) return;  // rank unknown
    rank = st.dims.empty() ? 1 : st.dims[0];
  }
  if (rank > rt::Shape::kMaxRank) {
    c.error(fmt::format("the shape tensor gives rank {} (> {})", rank, rt::Shape::kMaxRank));
    return;
  }
  TensorType out;
  out.known = true;
  out.dtype = dtype_attr(c, "dtype", static_cast<pb::VarType::Type>(Attrs{}.dtype));
  out.dims.assign(static_cast<size_t>(rank), -1);
  c.set_output("Out", out);
}

void infer_fill_any_like(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = dtype_attr(c, "dtype", out.dtype);
  c.set_output("Out", out);
}

// fill_zeros_like2: X's dims in the `dtype` attribute's type (float32 when absent, as in Paddle).
void infer_fill_zeros_like2(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = dtype_attr(c, "dtype", static_cast<pb::VarType::Type>(kernels::FillZerosLike2Attrs{}.dtype));
  c.set_output("Out", out);
}

void infer_cast(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = dtype_attr(c, "out_dtype", out.dtype);
  c.set_output("Out", out);
}

// assign_value keeps its data in a typed list attribute chosen by dtype.
struct ValueList {
  const char* attr;
  const char* ctype;
  const char* rt_dtype;
};

bool value_list(int64_t dtype, ValueList& out) {
  switch (dtype) {
    case pb::VarType::FP32: out = {"fp32_values", "float", "kFP32"}; return true;
    case pb::VarType::FP64: out = {"fp64_values", "double", "kFP64"}; return true;
    case pb::VarType::INT32: out = {"int32_values", "int32_t", "kInt32"}; return true;
    case pb::VarType::INT64: out = {"int64_values", "int64_t", "kInt64"}; return true;
    case pb::VarType::BOOL: out = {"bool_values", "bool", "kBool"}; return true;
    default: return false;
  }
}

std::vector<std::string> value_literals(const pb::OpDesc& op, const ValueList& list) {
  std::vector<std::string> out;
  if (std::string(list.ctype) == "float" || std::string(list.ctype) == "double") {
    for (double v : attr_floats(op, list.attr)) out.push_back(fmt::format("{}", v));
  } else {
    for (int64_t v : attr_ints(op, list.attr))
      out.push_back(std::string(list.ctype) == "bool" ? (v ? "true" : "false") : fmt::format("{}", v));
  }
  return out;
}

void infer_assign_value(ShapeCtx& c) {
  ValueList list;
  int64_t dtype = attr_int(c.op(), "dtype", pb::VarType::FP32);
  if (!value_list(dtype, list)) {
    c.error(fmt::format("dtype {} is not supported by assign_value", dtype));
    return;
  }
  TensorType out;
  out.known = true;
  out.dtype = static_cast<pb::VarType::Type>(dtype);
  out.dims = attr_ints(c.op(), "shape");
  int64_t numel = 1;
  for (int64_t d : out.dims) numel *= d;
  size_t have = value_literals(c.op(), list).size();
  if (numel < 0 || static_cast<size_t>(numel) != have) {
    c.error(fmt::format("shape {} needs {} values but {} holds {}", dims_str(out.dims), numel, list.attr, have));
    return;
  }
  c.set_output("Out", out);
}

// The values become a static array in the generated code: no kernel, no
// parsing at run time.
void emit_assign_value(EmitCtx& c) {
  ValueList list;
  value_list(attr_int(c.op(), "dtype", pb::VarType::FP32), list);
  std::vector<std::string> values = value_literals(c.op(), list);
  std::vector<int64_t> shape = attr_ints(c.op(), "shape");
  const std::string& out = c.var(op_outputs(c.op(), "Out")[0]);
  c.body() << fmt::format("  {{\n    static const {} values[] = {{{}}};\n", list.ctype, fmt::join(values, ", "));
  c.body() << fmt::format("    {}.resize(fluidc::rt::Shape{{{}}}, fluidc::rt::DType::{});\n", out,
                          fmt::join(shape, ", "), list.rt_dtype);
  c.body() << fmt::format("    std::copy(values, values + {}, {}.data<{}>());\n  }}\n", values.size(), out,
                          list.ctype);
}

// Paddle seeds d(loss)/d(loss) with a fill_constant (op_role Backward|Loss)
// of shape [1] whenever the loss is not 0-D, although the gradient variable
// is declared like the loss; its grad kernels accept any shape with the same
// element count. fluidc's kernels check shapes exactly, so when the counts
// agree the seed is emitted as ones shaped like the loss itself.
void emit_fill_constant(EmitCtx& c) {
  const int64_t role = attr_int(c.op(), "op_role", 0);
  auto outs = op_outputs(c.op(), "Out");
  // The loss by Paddle's Forward|Loss mark, not by parsing the seed's name.
  const std::string loss_name =
      (role & kOpRoleBackward) && (role & kOpRoleLoss) ? marked_loss(c.program().block(c.block())) : "";
  bool seeds_loss = !loss_name.empty() && outs.size() == 1 && c.has_var(loss_name);
  std::vector<int64_t> shape = attr_ints(c.op(), "shape");
  if (!seeds_loss || shape.empty()) {  // a 0-D seed already matches a 0-D loss
    c.kernel_call();
    return;
  }
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  const std::string& loss = c.var(loss_name);
  c.body() << fmt::format("  if ({}.numel() == {}) {{  // seed shaped like the loss\n", loss, count);
  c.body() << fmt::format("    k::fill_any_like({}, {}, k::FillAnyLikeAttrs{{{}.value, {}.dtype}});\n", loss,
                          c.var(outs[0]), c.attrs(), c.attrs());
  c.body() << "  } else {\n  ";
  c.kernel_call();
  c.body() << "  }\n";
}

// The gradient of a cast casts back.
bool cast_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
               pb::OpDesc& grad) {
  if (!unary_self_grad(fwd, grad_of, grad)) return false;
  set_attr_int(grad, "in_dtype", attr_int(fwd, "out_dtype", 5));
  set_attr_int(grad, "out_dtype", attr_int(fwd, "in_dtype", 5));
  return true;
}

}  // namespace

void add_fill_ops(std::vector<OpDef>& t) {
  // Paddle's tensor inputs for values known only at run time (kernels/fill.h).
  t.push_back({.type = "fill_constant",
               .family = "fill",
               .inputs = {{"ValueTensor", true}, {"ShapeTensor", true}, {"ShapeTensorList", true, true}},
               .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::FillConstantAttrs>(),
               .attrs_struct = "FillConstantAttrs",
               .infer_shape = infer_from_shape_inputs<kernels::FillConstantAttrs>,
               .emit_cpu = emit_fill_constant});
  t.push_back({.type = "assign_value",
               .family = "",
               .outputs = {{"Out"}},
               .attrs = {{"shape", pb::INTS, true}, {"dtype", pb::INT, true}, {"fp32_values", pb::FLOATS},
                         {"fp64_values", pb::FLOAT64S}, {"int32_values", pb::INTS}, {"int64_values", pb::LONGS},
                         {"bool_values", pb::INTS}},
               .infer_shape = infer_assign_value,
               .emit_cpu = emit_assign_value});
  t.push_back({.type = "fill_any_like", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::FillAnyLikeAttrs>(), .attrs_struct = "FillAnyLikeAttrs",
               .infer_shape = infer_fill_any_like});
  t.push_back({.type = "fill_zeros_like", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = shape_rules::same_as_x});
  t.push_back({.type = "fill_zeros_like2", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::FillZerosLike2Attrs>(), .attrs_struct = "FillZerosLike2Attrs",
               .infer_shape = infer_fill_zeros_like2});
  t.push_back({.type = "assign", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}}, .grad = "assign",
               .make_grad = unary_self_grad, .infer_shape = shape_rules::same_as_x});
  t.push_back({.type = "cast", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::CastAttrs>(), .attrs_struct = "CastAttrs",
               .grad = "cast", .make_grad = cast_grad, .infer_shape = infer_cast, .share_lod = "X"});
  t.push_back({.type = "uniform_random",
               .family = "fill",
               .inputs = {{"ShapeTensor", true}, {"ShapeTensorList", true, true}},
               .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::UniformRandomAttrs>(),
               .attrs_struct = "UniformRandomAttrs",
               .traits = kRandom,
               .infer_shape = infer_from_shape_inputs<kernels::UniformRandomAttrs>});
  t.push_back({.type = "gaussian_random",
               .family = "fill",
               .inputs = {{"ShapeTensor", true}, {"ShapeTensorList", true, true}},
               .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::GaussianRandomAttrs>(),
               .attrs_struct = "GaussianRandomAttrs",
               .traits = kRandom,
               .infer_shape = infer_from_shape_inputs<kernels::GaussianRandomAttrs>});
  // paddle.nn.initializer.TruncatedNormal in startup programs: gaussian_random's attributes, no shape inputs.
  t.push_back({.type = "truncated_gaussian_random",
               .family = "fill",
               .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::GaussianRandomAttrs>(),
               .attrs_struct = "GaussianRandomAttrs",
               .traits = kRandom,
               .infer_shape = infer_from_shape_attr<kernels::GaussianRandomAttrs>});
}

}  // namespace fluidc::ops
