// compiler/ops/set_value.cc - set_value (static-mode `x[index] = value`) and set_value_grad.
#include <cmath>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/emit_ctx.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/set_value.h"

namespace fluidc::ops {
namespace {

// The attributes that may hold the constant value: Paddle 2.6 writes
// `values` (a list of Scalars); earlier releases one list per dtype.
const char* const kValueAttrs[] = {"values",       "fp32_values", "fp64_values", "int32_values",
                                   "int64_values", "bool_values", "fp16_values"};

// The constant value's elements as doubles (the kernel casts them to
// Input's dtype): the first non-empty value attribute. "" or the reason.
std::string constant_values(const pb::OpDesc& op, std::vector<double>& out) {
  out.clear();
  for (const char* name : kValueAttrs) {
    const pb::OpDesc::Attr* a = find_attr(op, name);
    if (!a) continue;
    if (a->type() == pb::SCALARS) {
      for (const auto& s : a->scalars()) {
        if (s.type() == pb::Scalar::BOOLEAN) out.push_back(s.b() ? 1 : 0);
        else if (s.type() == pb::Scalar::LONG) out.push_back(static_cast<double>(s.i()));
        else if (s.type() == pb::Scalar::FLOAT64) out.push_back(s.r());
        else return fmt::format("{} holds a complex value; only real values are supported", name);
        if (s.type() == pb::Scalar::LONG && std::abs(s.i()) > (int64_t{1} << 53))
          return fmt::format("{} holds {}, beyond the integers a double holds exactly", name, s.i());
      }
    } else if (a->type() == pb::BOOLEANS) {
      for (bool b : a->bools()) out.push_back(b ? 1 : 0);
    } else if (a->type() == pb::LONGS) {
      for (int64_t v : a->longs()) {
        if (std::abs(v) > (int64_t{1} << 53))
          return fmt::format("{} holds {}, beyond the integers a double holds exactly", name, v);
        out.push_back(static_cast<double>(v));
      }
    } else if (a->type() == pb::INTS) {
      for (int v : a->ints()) out.push_back(v);
    } else {
      out = attr_floats(op, name);
    }
    if (!out.empty()) return {};
  }
  return {};
}

// Out is Input's type. Where the bounds and dims are known the region and
// the value's broadcast are checked here, with the kernel's rule.
void infer_set_value(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  rt::Shape xs;
  if (!in.known || !shape_rules::to_shape(c, in, xs)) return;
  c.set_output("Out", in);
  const auto a = parse_attrs<kernels::SetValueAttrs>(c.op());
  for (const char* list : {"StartsTensorList", "EndsTensorList", "StepsTensorList"})
    if (c.has_input(list) && c.num_inputs(list) != static_cast<int>(a.axes.size())) {
      c.error(fmt::format("{} has {} tensors for {} axes", list, c.num_inputs(list), a.axes.size()));
      return;
    }
  using Bounds = std::optional<std::span<const int64_t>>;
  auto bounds = [&](const char* list, const std::vector<int64_t>& v) {
    return c.has_input(list) ? Bounds{} : Bounds{std::span<const int64_t>(v)};
  };
  shapes::SetValueRegion r;
  std::string e = shapes::set_value_region(xs, a, bounds("StartsTensorList", a.starts),
                                           bounds("EndsTensorList", a.ends), bounds("StepsTensorList", a.steps), r);
  rt::Shape vs;
  if (e.empty() && c.has_input("ValueTensor")) {
    const TensorType& v = c.input("ValueTensor");
    if (v.known && shape_rules::to_shape(c, v, vs)) {
      if (v.dtype != in.dtype)
        e = fmt::format("ValueTensor is {} but Input is {}", v.str(), in.str());
      else
        e = shapes::set_value_broadcast(vs, r.assign);
    }
  } else if (e.empty()) {
    std::vector<double> values;
    e = constant_values(c.op(), values);
    int64_t n = 1;
    for (int64_t d : a.shape) n = d < 0 ? -1 : n * d;
    if (e.empty() && (a.shape.size() > static_cast<size_t>(rt::Shape::kMaxRank) || n < 0 ||
                      n != static_cast<int64_t>(values.size())))
      e = fmt::format("the constant value has {} elements but its shape [{}] needs {}", values.size(),
                      fmt::join(a.shape, ", "), n);
    for (int64_t d : a.shape) vs.d[vs.rank++] = d;
    if (e.empty()) e = shapes::set_value_broadcast(vs, r.assign);
  }
  if (!e.empty()) c.error(e);
}

void infer_set_value_grad(ShapeCtx& c) {
  if (c.has_output("Input@GRAD")) c.set_output("Input@GRAD", c.input("Out@GRAD"));
  if (c.has_output("ValueTensor@GRAD")) c.set_output("ValueTensor@GRAD", c.input("ValueTensor"));
}

// The generic call plus the constant value, which the kernel takes as a
// static array of doubles (numbers formatted here: nothing of the program's
// text reaches the source).
void emit_set_value(EmitCtx& c) {
  const pb::OpDesc& op = c.op();
  std::string pre;
  std::vector<std::string> args;
  auto first = [&](const char* slot) {
    auto n = op_inputs(op, slot);
    return n.empty() ? std::string("nullptr") : "&" + c.var(n[0]);
  };
  args.push_back(c.var(op_inputs(op, "Input").at(0)));
  args.push_back(first("ValueTensor"));
  for (const char* slot : {"StartsTensorList", "EndsTensorList", "StepsTensorList"}) {
    auto names = op_inputs(op, slot);
    if (names.empty()) {
      args.insert(args.end(), {"nullptr", "0"});
      continue;
    }
    std::vector<std::string> ptrs;
    for (const auto& n : names) ptrs.push_back("&" + c.var(n));
    const std::string arr = fmt::format("in_{}", slot);
    pre += fmt::format("    const Tensor* const {}[] = {{{}}};\n", arr, fmt::join(ptrs, ", "));
    args.insert(args.end(), {arr, std::to_string(names.size())});
  }
  args.push_back(c.var(op_outputs(op, "Out").at(0)));
  args.push_back(c.attrs());
  std::vector<double> values;
  if (op_inputs(op, "ValueTensor").empty()) {
    if (std::string e = constant_values(op, values); !e.empty()) internal_error("set_value passed checks: " + e);
  }
  if (values.empty()) {
    args.insert(args.end(), {"nullptr", "0"});
  } else {
    std::vector<std::string> lits;
    for (double v : values) {
      if (std::isnan(v)) lits.push_back("__builtin_nan(\"\")");
      else if (std::isinf(v)) lits.push_back(v > 0 ? "__builtin_inf()" : "-__builtin_inf()");
      else lits.push_back(fmt::format("{:.17g}", v));
    }
    pre += fmt::format("    static const double set_values[] = {{{}}};\n", fmt::join(lits, ", "));
    args.insert(args.end(), {"set_values", std::to_string(values.size())});
  }
  c.body() << "  {\n" << pre << fmt::format("    k::set_value({});\n", fmt::join(args, ", ")) << "  }\n";
}

}  // namespace

void add_set_value_ops(std::vector<OpDef>& t) {
  const std::vector<SlotDef> bounds = {{"StartsTensorList", true, true},
                                       {"EndsTensorList", true, true},
                                       {"StepsTensorList", true, true}};
  std::vector<SlotDef> in = {{"Input"}, {"ValueTensor", true}};
  in.insert(in.end(), bounds.begin(), bounds.end());
  std::vector<SlotDef> grad_in = {{"Out@GRAD"}, {"ValueTensor", true}};
  grad_in.insert(grad_in.end(), bounds.begin(), bounds.end());
  std::vector<AttrDef> attrs = kernel_attrs<kernels::SetValueAttrs>();
  // Read by the emit hook (the constant value) or not at all (dtype: Input's).
  attrs.push_back({"values", pb::SCALARS, false, false});
  attrs.push_back({"fp32_values", pb::FLOATS, false, false});
  attrs.push_back({"fp64_values", pb::FLOAT64S, false, false});
  attrs.push_back({"int32_values", pb::INTS, false, false});
  attrs.push_back({"int64_values", pb::LONGS, false, false});
  attrs.push_back({"bool_values", pb::BOOLEANS, false, false});
  attrs.push_back({"fp16_values", pb::FLOATS, false, false});
  attrs.push_back({"dtype", pb::INT, false, false});
  t.push_back({.type = "set_value", .family = "set_value", .inputs = in, .outputs = {{"Out"}}, .attrs = attrs,
               .attrs_struct = "SetValueAttrs", .grad = "set_value_grad", .infer_shape = infer_set_value,
               .emit_cpu = emit_set_value});
  t.push_back({.type = "set_value_grad", .family = "set_value", .inputs = grad_in,
               .outputs = {{"Input@GRAD", true}, {"ValueTensor@GRAD", true}}, .attrs = attrs,
               .attrs_struct = "SetValueAttrs", .infer_shape = infer_set_value_grad});
}

}  // namespace fluidc::ops
