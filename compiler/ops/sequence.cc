// compiler/ops/sequence.cc - the sequence family's op table: ops on LoD tensors (sequence_*, the fused lstm and gru) and lookup_table v1.
//
// The kernels (kernels/sequence.h) set their outputs' LoD themselves; the
// row count of an output that has one row per sequence is known only at run
// time (-1 here).
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/sequence.h"

namespace fluidc::ops {
namespace {

using shapes::kUnknown;

// Sets `slot` to `t` with dims `s`, or reports the rule's reason.
void set_or_error(ShapeCtx& c, const std::string& e, const char* slot, TensorType t, const rt::Shape& s) {
  if (!e.empty()) {
    c.error(e);
    return;
  }
  t.dims = shape_rules::from_shape(s);
  c.set_output(slot, t);
}

// One row per sequence of `in`: the count is known at run time.
void infer_rows_per_sequence(ShapeCtx& c, const char* in, const char* out) {
  const TensorType& x = c.input(in);
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  set_or_error(c, shapes::sequence_pool_shape(xs, kUnknown, os), out, x, os);
}

void infer_sequence_pool(ShapeCtx& c) {
  infer_rows_per_sequence(c, "X", "Out");
  const TensorType& x = c.input("X");
  if (x.known && c.has_output("MaxIndex")) {
    TensorType idx = x;
    idx.dtype = pb::VarType::INT32;
    if (!idx.dims.empty()) idx.dims[0] = kUnknown;
    c.set_output("MaxIndex", idx);
  }
}

// Out has rows known at run time (Y's for expand_as) and X's other dims.
void infer_sequence_expand_as(ShapeCtx& c) { infer_rows_per_sequence(c, "X", "Out"); }

// Out's rows are the sum of the inputs' rows: known at run time.
void infer_sequence_concat(ShapeCtx& c) { infer_rows_per_sequence(c, "X", "Out"); }

// Each X@GRAD like its own X (the inputs differ in rows).
void infer_sequence_concat_grad(ShapeCtx& c) {
  if (!c.has_output("X@GRAD")) return;
  const int n = c.num_inputs("X");
  for (int i = 0; i < n; ++i) c.set_output_at("X@GRAD", i, c.input("X", i));
}

void infer_sequence_conv(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& f = c.input("Filter");
  rt::Shape xs, fs, os;
  if (!x.known || !f.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, f, fs)) return;
  set_or_error(c, shapes::sequence_conv_shape(xs, fs, parse_attrs<kernels::SequenceConvAttrs>(c.op()), os), "Out",
               x, os);
}

void infer_sequence_mask(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const auto a = parse_attrs<kernels::SequenceMaskAttrs>(c.op());
  if (!rt::dtype_is_valid(a.out_dtype)) {
    c.error("unknown out_dtype " + std::to_string(a.out_dtype));
    return;
  }
  // maxlen -1 or a MaxLenTensor: the length is a run-time value.
  const int64_t maxlen = c.has_input("MaxLenTensor") || a.maxlen < 0 ? kUnknown : a.maxlen;
  TensorType y = x;
  y.dtype = static_cast<pb::VarType::Type>(a.out_dtype);
  set_or_error(c, shapes::sequence_mask_shape(xs, maxlen, os), "Y", y, os);
}

void infer_lookup_table(ShapeCtx& c) {
  const TensorType& ids = c.input("Ids");
  const TensorType& w = c.input("W");
  rt::Shape is, ws, os;
  if (!ids.known || !w.known || !shape_rules::to_shape(c, ids, is) || !shape_rules::to_shape(c, w, ws)) return;
  set_or_error(c, shapes::lookup_table_shape(is, ws, os), "Out", w, os);
}

// Paddle differentiates sequence_reverse by another sequence_reverse, from
// Y@GRAD to X@GRAD (which gets Y@GRAD's LoD, X's: see OpDef::share_lod).
bool sequence_reverse_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                           pb::OpDesc& grad) {
  const auto x = op_inputs(fwd, "X");
  const auto y = op_outputs(fwd, "Y");
  if (x.empty() || y.empty()) return false;
  const std::string gx = grad_of(x[0]), gy = grad_of(y[0]);
  if (gx.empty() || gy.empty()) return false;
  grad.set_type("sequence_reverse");
  add_input(grad, "X", {gy});
  add_output(grad, "Y", {gx});
  copy_semantic_attrs(fwd, grad);
  return true;
}

// split_lod_tensor: both outputs have X's other dims and a run-time row count.
void infer_split_lod_tensor(ShapeCtx& c) {
  infer_rows_per_sequence(c, "X", "OutTrue");
  infer_rows_per_sequence(c, "X", "OutFalse");
}

// merge_lod_tensor: X's rows, a branch's other dims and dtype.
void infer_merge_lod_tensor(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  TensorType b = c.input("InTrue");
  if (!b.known) b = c.input("InFalse");
  if (!x.known || !b.known || x.dims.empty() || b.dims.empty()) return;
  b.dims[0] = x.dims[0];
  c.set_output("Out", b);
}

// lstm: Hidden and Cell [rows, D], BatchGate [rows, 4D], BatchCellPreAct [rows, D] (D: Weight's rows).
void infer_lstm(ShapeCtx& c) {
  const TensorType& x = c.input("Input");
  const TensorType& w = c.input("Weight");
  if (!x.known || !w.known || x.dims.size() != 2 || w.dims.size() != 2) return;
  TensorType h = x;
  h.dims = {x.dims[0], w.dims[0]};
  for (const char* slot : {"Hidden", "Cell", "BatchCellPreAct"})
    if (c.has_output(slot)) c.set_output(slot, h);
  if (c.has_output("BatchGate")) {
    TensorType g = x;
    g.dims = {x.dims[0], w.dims[0] < 0 ? -1 : 4 * w.dims[0]};
    c.set_output("BatchGate", g);
  }
}

// gru: Hidden, BatchResetHiddenPrev and BatchHidden [rows, D], BatchGate [rows, 3D] (D: Weight's rows).
// Dims the program declares wrongly are reported here, before anything runs.
void infer_gru(ShapeCtx& c) {
  const TensorType& x = c.input("Input");
  const TensorType& w = c.input("Weight");
  if (!x.known || !w.known) return;
  if (x.dims.size() != 2 || w.dims.size() != 2) {
    c.error("gru: Input and Weight must be 2-D ([rows, 3D] and [D, 3D])");
    return;
  }
  const int64_t d = w.dims[0];
  if (d >= 0 && w.dims[1] >= 0 && w.dims[1] != 3 * d) {
    c.error("gru: Weight must be [D, 3D], got [" + std::to_string(d) + ", " + std::to_string(w.dims[1]) + "]");
    return;
  }
  if (d >= 0 && x.dims[1] >= 0 && x.dims[1] != 3 * d) {
    c.error("gru: Input must be [rows, 3D] = [rows, " + std::to_string(3 * d) + "], got [.., " +
            std::to_string(x.dims[1]) + "]");
    return;
  }
  TensorType h = x;
  h.dims = {x.dims[0], w.dims[0]};
  for (const char* slot : {"Hidden", "BatchResetHiddenPrev", "BatchHidden"})
    if (c.has_output(slot)) c.set_output(slot, h);
  if (c.has_output("BatchGate")) {
    TensorType g = x;
    g.dims = {x.dims[0], w.dims[0] < 0 ? -1 : 3 * w.dims[0]};
    c.set_output("BatchGate", g);
  }
}

}  // namespace

void add_sequence_ops(std::vector<OpDef>& t) {
  const auto pool_attrs = kernel_attrs<kernels::SequencePoolAttrs>();
  t.push_back({.type = "sequence_pool", .family = "sequence", .inputs = {{"X"}},
               .outputs = {{"Out"}, {"MaxIndex", true}}, .attrs = pool_attrs, .attrs_struct = "SequencePoolAttrs",
               .grad = "sequence_pool_grad", .infer_shape = infer_sequence_pool});
  t.push_back({.type = "sequence_pool_grad", .family = "sequence", .inputs = {{"X"}, {"MaxIndex", true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = pool_attrs, .attrs_struct = "SequencePoolAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "sequence_softmax", .family = "sequence", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .grad = "sequence_softmax_grad", .infer_shape = shape_rules::same_as_x, .share_lod = "X"});
  t.push_back({.type = "sequence_softmax_grad", .family = "sequence", .inputs = {{"Out"}, {"Out@GRAD"}, {"X"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "sequence_reverse", .family = "sequence", .inputs = {{"X"}}, .outputs = {{"Y"}},
               .grad = "sequence_reverse", .make_grad = sequence_reverse_grad, .infer_shape = shape_rules::same_as_x,
               .share_lod = "X"});

  t.push_back({.type = "sequence_expand_as", .family = "sequence", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .grad = "sequence_expand_as_grad", .infer_shape = infer_sequence_expand_as, .share_lod = "Y"});
  t.push_back({.type = "sequence_expand_as_grad", .family = "sequence", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});

  // Out's rows depend on Y's LoD; its LoD is set by the kernel (only when X has one).
  const auto expand_attrs = kernel_attrs<kernels::SequenceExpandAttrs>();
  t.push_back({.type = "sequence_expand", .family = "sequence", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .attrs = expand_attrs, .attrs_struct = "SequenceExpandAttrs", .grad = "sequence_expand_grad",
               .infer_shape = infer_sequence_expand_as});
  t.push_back({.type = "sequence_expand_grad", .family = "sequence", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = expand_attrs, .attrs_struct = "SequenceExpandAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "sequence_concat", .family = "sequence", .inputs = {{.name = "X", .duplicable = true}},
               .outputs = {{"Out"}}, .grad = "sequence_concat_grad", .infer_shape = infer_sequence_concat});
  t.push_back({.type = "sequence_concat_grad", .family = "sequence",
               .inputs = {{.name = "X", .duplicable = true}, {"Out@GRAD"}},
               .outputs = {{.name = "X@GRAD", .optional = true, .duplicable = true}},
               .infer_shape = infer_sequence_concat_grad});

  const auto conv_attrs = kernel_attrs<kernels::SequenceConvAttrs>();
  t.push_back({.type = "sequence_conv", .family = "sequence", .inputs = {{"X"}, {"PaddingData", true}, {"Filter"}},
               .outputs = {{"Out"}}, .attrs = conv_attrs, .attrs_struct = "SequenceConvAttrs",
               .grad = "sequence_conv_grad", .infer_shape = infer_sequence_conv, .share_lod = "X"});
  t.push_back({.type = "sequence_conv_grad", .family = "sequence",
               .inputs = {{"X"}, {"PaddingData", true}, {"Filter"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"PaddingData@GRAD", true}, {"Filter@GRAD", true}}, .attrs = conv_attrs,
               .attrs_struct = "SequenceConvAttrs", .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "sequence_mask", .family = "sequence", .inputs = {{"X"}, {"MaxLenTensor", true}},
               .outputs = {{"Y"}}, .attrs = kernel_attrs<kernels::SequenceMaskAttrs>(),
               .attrs_struct = "SequenceMaskAttrs", .infer_shape = infer_sequence_mask});

  // Fluid's IfElse: split the batch by a row mask, run each branch's block on its part, merge.
  // Paddle's backward differentiates each by the other (split's gradient is a merge of the
  // branch gradients, merge's a split of Out@GRAD), so programs Paddle differentiated run;
  // fluidc's own autodiff has no rule for them yet (it says so) rather than a half one.
  const auto split_attrs = kernel_attrs<kernels::LodSplitAttrs>();
  t.push_back({.type = "split_lod_tensor", .family = "sequence", .inputs = {{"X"}, {"Mask"}},
               .outputs = {{"OutTrue"}, {"OutFalse"}}, .attrs = split_attrs, .attrs_struct = "LodSplitAttrs",
               .infer_shape = infer_split_lod_tensor});
  t.push_back({.type = "merge_lod_tensor", .family = "sequence", .inputs = {{"X"}, {"Mask"}, {"InTrue"}, {"InFalse"}},
               .outputs = {{"Out"}}, .attrs = split_attrs, .attrs_struct = "LodSplitAttrs",
               .infer_shape = infer_merge_lod_tensor});

  // Fluid's dynamic_lstm. Paddle differentiates it through Hidden only, and its Input@GRAD
  // carries no LoD (hence share_lod: none).
  const auto lstm_attrs = kernel_attrs<kernels::LstmAttrs>();
  t.push_back({.type = "lstm", .family = "sequence",
               .inputs = {{"Input"}, {"H0", true}, {"C0", true}, {"Weight"}, {"Bias"}},
               .outputs = {{"Hidden"}, {"Cell"}, {"BatchGate", true}, {"BatchCellPreAct", true}},
               .attrs = lstm_attrs, .attrs_struct = "LstmAttrs", .grad = "lstm_grad", .infer_shape = infer_lstm});
  t.push_back({.type = "lstm_grad", .family = "sequence",
               .inputs = {{"Input"}, {"H0", true}, {"C0", true}, {"Weight"}, {"Bias"}, {"Hidden", true},
                          {"Cell", true}, {"BatchGate", true}, {"BatchCellPreAct", true}, {"Hidden@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"H0@GRAD", true}, {"C0@GRAD", true}, {"Weight@GRAD", true},
                           {"Bias@GRAD", true}},
               .attrs = lstm_attrs, .attrs_struct = "LstmAttrs", .infer_shape = shape_rules::grads_like_inputs,
               .share_lod = kShareLodNone});

  // Fluid's dynamic_gru. Paddle differentiates it through Hidden; its Input@GRAD carries no LoD.
  const auto gru_attrs = kernel_attrs<kernels::GruAttrs>();
  t.push_back({.type = "gru", .family = "sequence", .inputs = {{"Input"}, {"H0", true}, {"Weight"}, {"Bias", true}},
               .outputs = {{"Hidden"}, {"BatchGate", true}, {"BatchResetHiddenPrev", true}, {"BatchHidden", true}},
               .attrs = gru_attrs, .attrs_struct = "GruAttrs", .grad = "gru_grad", .infer_shape = infer_gru});
  t.push_back({.type = "gru_grad", .family = "sequence",
               .inputs = {{"Input"}, {"H0", true}, {"Weight"}, {"Bias", true}, {"Hidden", true}, {"BatchGate", true},
                          {"BatchResetHiddenPrev", true}, {"BatchHidden", true}, {"Hidden@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"H0@GRAD", true}, {"Weight@GRAD", true}, {"Bias@GRAD", true}},
               .attrs = gru_attrs, .attrs_struct = "GruAttrs", .infer_shape = shape_rules::grads_like_inputs,
               .share_lod = kShareLodNone});

  const auto lookup_attrs = kernel_attrs<kernels::LookupTableAttrs>();
  t.push_back({.type = "lookup_table", .family = "sequence", .inputs = {{"Ids"}, {"W"}}, .outputs = {{"Out"}},
               .attrs = lookup_attrs, .attrs_struct = "LookupTableAttrs", .grad = "lookup_table_grad",
               .infer_shape = infer_lookup_table, .share_lod = "Ids"});
  t.push_back({.type = "lookup_table_grad", .family = "sequence", .inputs = {{"Ids"}, {"W"}, {"Out@GRAD"}},
               .outputs = {{.name = "W@GRAD", .optional = true, .rows_as_dense = true}}, .attrs = lookup_attrs,
               .attrs_struct = "LookupTableAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
