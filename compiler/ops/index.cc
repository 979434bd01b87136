// compiler/ops/index.cc - the index family's op table: embedding, gather/scatter, one_hot, arg/top-k (top_k_v2, Fluid 1.x top_k), accuracy, where, range, cumsum.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/index.h"

namespace fluidc::ops {
namespace {

using shapes::kUnknown;

// The dims of two inputs as the shared rules take them; false while either is unknown.
bool shapes_of(ShapeCtx& c, const char* a, rt::Shape& as, const char* b, rt::Shape& bs) {
  const TensorType& ta = c.input(a);
  const TensorType& tb = c.input(b);
  return ta.known && tb.known && shape_rules::to_shape(c, ta, as) && shape_rules::to_shape(c, tb, bs);
}

// Sets `slot` to dtype `dt` with dims `s`, or reports the rule's reason.
void set_or_error(ShapeCtx& c, const std::string& e, const char* slot, pb::VarType::Type dt, const rt::Shape& s) {
  if (!e.empty()) {
    c.error(e);
    return;
  }
  TensorType t;
  t.known = true;
  t.dtype = dt;
  t.dims = shape_rules::from_shape(s);
  c.set_output(slot, t);
}

void infer_lookup_table_v2(ShapeCtx& c) {
  rt::Shape ids, w, out;
  if (!shapes_of(c, "Ids", ids, "W", w)) return;
  set_or_error(c, shapes::lookup_table_v2_shape(ids, w, out), "Out", c.input("W").dtype, out);
}

void infer_gather(ShapeCtx& c) {
  rt::Shape x, index, out;
  if (!shapes_of(c, "X", x, "Index", index)) return;
  std::string e = shapes::gather_shape(x, index, parse_attrs<kernels::GatherAttrs>(c.op()).axis, out);
  // An Axis tensor picks the axis at run time: only the rank is known.
  if (c.has_input("Axis") && e.empty())
    for (int i = 0; i < out.rank; ++i) out.d[i] = kUnknown;
  set_or_error(c, e, "Out", c.input("X").dtype, out);
}

void infer_index_select(ShapeCtx& c) {
  rt::Shape x, index, out;
  if (!shapes_of(c, "X", x, "Index", index)) return;
  std::string e = index.rank == 0 ? "Index must be 1-D"
                                  : shapes::gather_shape(x, index, parse_attrs<kernels::IndexSelectAttrs>(c.op()).dim,
                                                         out, "dim");
  set_or_error(c, e, "Out", c.input("X").dtype, out);
}

void infer_gather_nd(ShapeCtx& c) {
  rt::Shape x, index, out;
  if (!shapes_of(c, "X", x, "Index", index)) return;
  set_or_error(c, shapes::gather_nd_shape(x, index, out), "Out", c.input("X").dtype, out);
}

void infer_scatter(ShapeCtx& c) {
  rt::Shape x, ids, updates, out;
  if (!shapes_of(c, "X", x, "Ids", ids) || !c.input("Updates").known ||
      !shape_rules::to_shape(c, c.input("Updates"), updates))
    return;
  set_or_error(c, shapes::scatter_shape(x, ids, updates, out), "Out", c.input("X").dtype, out);
}

// scatter_grad has no X input: X@GRAD is shaped like Out@GRAD.
void infer_scatter_grad(ShapeCtx& c) {
  if (c.has_output("X@GRAD")) c.set_output("X@GRAD", c.input("Out@GRAD"));
  if (c.has_output("Updates@GRAD")) c.set_output("Updates@GRAD", c.input("Updates"));
}

void infer_one_hot_v2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, out;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const auto a = parse_attrs<kernels::OneHotV2Attrs>(c.op());
  if (!rt::dtype_is_valid(a.dtype)) {
    c.error(fmt::format("dtype {} is not a tensor dtype", a.dtype));
    return;
  }
  const int64_t depth = c.has_input("depth_tensor") ? kUnknown : a.depth;
  if (depth != kUnknown && depth < 1) {
    c.error(fmt::format("depth must be positive, got {}", depth));
    return;
  }
  set_or_error(c, shapes::one_hot_v2_shape(xs, depth, out), "Out", static_cast<pb::VarType::Type>(a.dtype), out);
}

void infer_arg_min_max(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, out;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const auto a = parse_attrs<kernels::ArgMinMaxAttrs>(c.op());
  set_or_error(c, shapes::arg_min_max_shape(xs, a, out), "Out", a.dtype == 2 ? pb::VarType::INT32 : pb::VarType::INT64,
               out);
}

void infer_top_k_v2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, out;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const auto a = parse_attrs<kernels::TopKV2Attrs>(c.op());
  const std::string e = shapes::top_k_v2_shape(xs, c.has_input("K") ? kUnknown : a.k, a.axis, out);
  set_or_error(c, e, "Out", x.dtype, out);
  if (e.empty()) set_or_error(c, e, "Indices", pb::VarType::INT64, out);
}

void infer_argsort(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  int axis = 0;
  const std::string e =
      shapes::index_axis("axis", parse_attrs<kernels::ArgsortAttrs>(c.op()).axis, xs.rank ? xs.rank : 1, axis);
  set_or_error(c, e, "Out", x.dtype, xs);
  if (e.empty()) set_or_error(c, e, "Indices", pb::VarType::INT64, xs);
}

void infer_take_along_axis(ShapeCtx& c) {
  rt::Shape in, idx, out;
  if (!shapes_of(c, "Input", in, "Index", idx)) return;
  const std::string e =
      shapes::take_along_axis_shape(in, idx, parse_attrs<kernels::TakeAlongAxisAttrs>(c.op()).Axis, out);
  set_or_error(c, e, "Result", c.input("Input").dtype, out);
}

void infer_accuracy(ShapeCtx& c) {
  set_or_error(c, "", "Accuracy", pb::VarType::FP32, rt::Shape{});
  set_or_error(c, "", "Correct", pb::VarType::INT32, rt::Shape{});
  set_or_error(c, "", "Total", pb::VarType::INT32, rt::Shape{});
}

void infer_where(ShapeCtx& c) {
  rt::Shape x, y;
  if (!shapes_of(c, "X", x, "Y", y)) return;
  bool ok = x.rank == y.rank;
  for (int i = 0; ok && i < x.rank; ++i) ok = shape_rules::dims_agree(x.d[i], y.d[i]);
  set_or_error(c, ok ? "" : fmt::format("X {} and Y {} differ in shape", x.str(), y.str()), "Out", c.input("X").dtype,
               x);
}

// The length depends on the values of Start, End and Step: known at run time.
void infer_range(ShapeCtx& c) {
  const TensorType& s = c.input("Start");
  if (s.known) set_or_error(c, "", "Out", s.dtype, rt::Shape{kUnknown});
}

void infer_cumsum(ShapeCtx& c) { infer_out_by_rule<kernels::CumsumAttrs>(c, shapes::cumsum_shape); }

}  // namespace

// compiler/ops/index_misc.cc: linspace, cumprod, kthvalue, scatter_nd_add.
void add_index_misc_ops(std::vector<OpDef>& t);

void add_index_ops(std::vector<OpDef>& t) {
  const auto lookup_attrs = kernel_attrs<kernels::LookupTableV2Attrs>();
  t.push_back({.type = "lookup_table_v2", .family = "index", .inputs = {{"Ids"}, {"W"}}, .outputs = {{"Out"}},
               .attrs = lookup_attrs, .attrs_struct = "LookupTableV2Attrs", .grad = "lookup_table_v2_grad",
               .infer_shape = infer_lookup_table_v2, .share_lod = "Ids"});
  t.push_back({.type = "lookup_table_v2_grad", .family = "index", .inputs = {{"Ids"}, {"W"}, {"Out@GRAD"}},
               .outputs = {{.name = "W@GRAD", .optional = true, .rows_as_dense = true}}, .attrs = lookup_attrs,
               .attrs_struct = "LookupTableV2Attrs",
               .infer_shape = shape_rules::grads_like_inputs});

  const auto gather_attrs = kernel_attrs<kernels::GatherAttrs>();
  t.push_back({.type = "gather", .family = "index", .inputs = {{"X"}, {"Index"}, {"Axis", true}},
               .outputs = {{"Out"}}, .attrs = gather_attrs, .attrs_struct = "GatherAttrs", .grad = "gather_grad",
               .infer_shape = infer_gather});
  t.push_back({.type = "gather_grad", .family = "index",
               .inputs = {{"X"}, {"Index"}, {"Axis", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = gather_attrs, .attrs_struct = "GatherAttrs", .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "gather_nd", .family = "index", .inputs = {{"X"}, {"Index"}}, .outputs = {{"Out"}},
               .grad = "gather_nd_grad", .infer_shape = infer_gather_nd});
  t.push_back({.type = "gather_nd_grad", .family = "index", .inputs = {{"X"}, {"Index"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});

  const auto scatter_attrs = kernel_attrs<kernels::ScatterAttrs>();
  t.push_back({.type = "scatter", .family = "index", .inputs = {{"X"}, {"Ids"}, {"Updates"}}, .outputs = {{"Out"}},
               .attrs = scatter_attrs, .attrs_struct = "ScatterAttrs", .grad = "scatter_grad",
               .infer_shape = infer_scatter});
  t.push_back({.type = "scatter_grad", .family = "index", .inputs = {{"Ids"}, {"Updates"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Updates@GRAD", true}}, .attrs = scatter_attrs,
               .attrs_struct = "ScatterAttrs", .infer_shape = infer_scatter_grad});

  const auto select_attrs = kernel_attrs<kernels::IndexSelectAttrs>();
  t.push_back({.type = "index_select", .family = "index", .inputs = {{"X"}, {"Index"}}, .outputs = {{"Out"}},
               .attrs = select_attrs, .attrs_struct = "IndexSelectAttrs", .grad = "index_select_grad",
               .infer_shape = infer_index_select});
  t.push_back({.type = "index_select_grad", .family = "index", .inputs = {{"X"}, {"Index"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = select_attrs, .attrs_struct = "IndexSelectAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "one_hot_v2", .family = "index", .inputs = {{"X"}, {"depth_tensor", true}},
               .outputs = {{"Out"}}, .attrs = kernel_attrs<kernels::OneHotV2Attrs>(), .attrs_struct = "OneHotV2Attrs",
               .infer_shape = infer_one_hot_v2});

  for (const char* type : {"arg_max", "arg_min"})
    t.push_back({.type = type, .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}},
                 .attrs = kernel_attrs<kernels::ArgMinMaxAttrs>(), .attrs_struct = "ArgMinMaxAttrs",
                 .infer_shape = infer_arg_min_max});

  // Both top_k forms give Out and Indices X's LoD (a beam-search decoder's candidates stay grouped by source).
  const auto topk_attrs = kernel_attrs<kernels::TopKV2Attrs>();
  t.push_back({.type = "top_k_v2", .family = "index", .inputs = {{"X"}, {"K", true}},
               .outputs = {{"Out"}, {"Indices"}}, .attrs = topk_attrs, .attrs_struct = "TopKV2Attrs",
               .grad = "top_k_v2_grad", .infer_shape = infer_top_k_v2, .share_lod = "X"});
  t.push_back({.type = "top_k_v2_grad", .family = "index",
               .inputs = {{"X"}, {"Indices"}, {"K", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = topk_attrs, .attrs_struct = "TopKV2Attrs", .infer_shape = shape_rules::grads_like_inputs});
  // Fluid 1.x's top_k: only k (or K); top_k_v2's other attributes keep their defaults.
  const std::vector<AttrDef> topk_v1_attrs = {*std::find_if(topk_attrs.begin(), topk_attrs.end(),
                                                            [](const AttrDef& a) { return a.name == "k"; })};
  t.push_back({.type = "top_k", .family = "index", .inputs = {{"X"}, {"K", true}}, .outputs = {{"Out"}, {"Indices"}},
               .attrs = topk_v1_attrs, .attrs_struct = "TopKV2Attrs", .grad = "top_k_grad",
               .infer_shape = infer_top_k_v2, .share_lod = "X"});
  t.push_back({.type = "top_k_grad", .family = "index", .inputs = {{"X"}, {"Indices"}, {"K", true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = topk_v1_attrs, .attrs_struct = "TopKV2Attrs",
               .infer_shape = shape_rules::grads_like_inputs});

  const auto argsort_attrs = kernel_attrs<kernels::ArgsortAttrs>();
  t.push_back({.type = "argsort", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}, {"Indices"}},
               .attrs = argsort_attrs, .attrs_struct = "ArgsortAttrs", .grad = "argsort_grad",
               .infer_shape = infer_argsort});
  t.push_back({.type = "argsort_grad", .family = "index", .inputs = {{"Indices"}, {"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = argsort_attrs, .attrs_struct = "ArgsortAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  const auto along_attrs = kernel_attrs<kernels::TakeAlongAxisAttrs>();
  t.push_back({.type = "take_along_axis", .family = "index", .inputs = {{"Input"}, {"Index"}},
               .outputs = {{"Result"}}, .attrs = along_attrs, .attrs_struct = "TakeAlongAxisAttrs",
               .grad = "take_along_axis_grad", .infer_shape = infer_take_along_axis});
  t.push_back({.type = "take_along_axis_grad", .family = "index",
               .inputs = {{"Input"}, {"Index"}, {"Result@GRAD"}}, .outputs = {{"Input@GRAD", true}},
               .attrs = along_attrs, .attrs_struct = "TakeAlongAxisAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "accuracy", .family = "index", .inputs = {{"Out"}, {"Indices"}, {"Label"}},
               .outputs = {{"Accuracy"}, {"Correct"}, {"Total"}}, .infer_shape = infer_accuracy});

  t.push_back({.type = "where", .family = "index", .inputs = {{"Condition"}, {"X"}, {"Y"}}, .outputs = {{"Out"}},
               .grad = "where_grad", .infer_shape = infer_where});
  t.push_back({.type = "where_grad", .family = "index", .inputs = {{"Condition"}, {"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "range", .family = "index", .inputs = {{"Start"}, {"End"}, {"Step"}}, .outputs = {{"Out"}},
               .infer_shape = infer_range});

  const auto cumsum_attrs = kernel_attrs<kernels::CumsumAttrs>();
  t.push_back({.type = "cumsum", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = cumsum_attrs,
               .attrs_struct = "CumsumAttrs", .grad = "cumsum_grad", .infer_shape = infer_cumsum});
  t.push_back({.type = "cumsum_grad", .family = "index", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = cumsum_attrs, .attrs_struct = "CumsumAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  add_index_misc_ops(t);
}

}  // namespace fluidc::ops
