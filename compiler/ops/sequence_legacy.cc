// compiler/ops/sequence_legacy.cc - the Fluid 1.x LoD sequence ops' table: sequence_pad/unpad, slice, reshape, lod_reset, erase, enumerate, scatter.
//
// Row counts that depend on LoD offsets or on tensor values (lengths,
// offsets, erased tokens) are known only at run time (-1 here); the kernels
// (kernels/sequence_legacy.h) set their outputs' LoD themselves.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/sequence_legacy.h"

namespace fluidc::ops {
namespace {

constexpr int64_t kRunTime = -1;

// `slot` = `t` with dims `dims`.
void set_dims(ShapeCtx& c, const char* slot, TensorType t, std::vector<int64_t> dims) {
  if (!c.has_output(slot)) return;
  t.dims = std::move(dims);
  c.set_output(slot, t);
}

// X's type with a run-time row count (slice, erase: rows picked by values or offsets).
void infer_rows_at_run_time(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known || x.dims.empty()) return;
  std::vector<int64_t> d = x.dims;
  d[0] = kRunTime;
  set_dims(c, "Out", x, d);
}

// Out [sequences, padded_length, X dims 1..], Length [sequences] int64.
void infer_sequence_pad(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  if (x.dims.size() < 2) {
    c.error("sequence_pad: X must have rank 2 or more ([rows, ...]), got " + x.str());
    return;
  }
  const auto a = parse_attrs<kernels::SequencePadAttrs>(c.op());
  if (a.padded_length < -1 || a.padded_length == 0) {
    c.error("sequence_pad: padded_length must be -1 (the longest sequence) or positive, got " +
            std::to_string(a.padded_length));
    return;
  }
  std::vector<int64_t> d{kRunTime, a.padded_length == -1 ? kRunTime : a.padded_length};
  d.insert(d.end(), x.dims.begin() + 1, x.dims.end());
  set_dims(c, "Out", x, d);
  TensorType len = x;
  len.dtype = pb::VarType::INT64;
  set_dims(c, "Length", len, {kRunTime});
}

// Out [sum of Length, X dims 2..]; a 2-D X gives [rows, 1].
void infer_sequence_unpad(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  if (x.dims.size() < 2) {
    c.error("sequence_unpad: X must be [sequences, steps, ...], got " + x.str());
    return;
  }
  std::vector<int64_t> d{kRunTime};
  if (x.dims.size() == 2) d.push_back(1);
  d.insert(d.end(), x.dims.begin() + 2, x.dims.end());
  set_dims(c, "Out", x, d);
}

// Out [rows * width / new_dim, new_dim].
void infer_sequence_reshape(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  const auto a = parse_attrs<kernels::SequenceReshapeAttrs>(c.op());
  if (x.dims.size() != 2 || a.new_dim < 1) {
    c.error("sequence_reshape: X must be 2-D and new_dim at least 1, got " + x.str() + " and new_dim " +
            std::to_string(a.new_dim));
    return;
  }
  set_dims(c, "Out", x, {kRunTime, a.new_dim});
}

// Out [X rows, win_size], X's dtype.
void infer_sequence_enumerate(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known || x.dims.empty()) return;
  const auto a = parse_attrs<kernels::SequenceEnumerateAttrs>(c.op());
  if (a.win_size < 2) {
    c.error("sequence_enumerate: win_size must be at least 2, got " + std::to_string(a.win_size));
    return;
  }
  set_dims(c, "Out", x, {x.dims[0], a.win_size});
}

// X@GRAD like Out@GRAD (the grad op has no X), Updates@GRAD like Updates.
void infer_scatter_grad(ShapeCtx& c) {
  const TensorType& dy = c.input("Out@GRAD");
  if (dy.known && c.has_output("X@GRAD")) c.set_output("X@GRAD", dy);
  const TensorType& u = c.input("Updates");
  if (u.known && c.has_output("Updates@GRAD")) c.set_output("Updates@GRAD", u);
}

}  // namespace

void add_sequence_legacy_ops(std::vector<OpDef>& t) {
  // Outputs without a LoD (pad's) or with one the kernel builds (unpad, slice, reshape, lod_reset, erase):
  // share_lod stays empty. Gradients take their forward input's LoD (the default), except scatter's:
  // Paddle's X@GRAD and Updates@GRAD carry none.
  const auto pad_attrs = kernel_attrs<kernels::SequencePadAttrs>();
  t.push_back({.type = "sequence_pad", .family = "sequence_legacy", .inputs = {{"X"}, {"PadValue"}},
               .outputs = {{"Out"}, {"Length"}}, .attrs = pad_attrs, .attrs_struct = "SequencePadAttrs",
               .grad = "sequence_pad_grad", .infer_shape = infer_sequence_pad});
  t.push_back({.type = "sequence_pad_grad", .family = "sequence_legacy", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = pad_attrs, .attrs_struct = "SequencePadAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "sequence_unpad", .family = "sequence_legacy", .inputs = {{"X"}, {"Length"}},
               .outputs = {{"Out"}}, .grad = "sequence_unpad_grad", .infer_shape = infer_sequence_unpad});
  t.push_back({.type = "sequence_unpad_grad", .family = "sequence_legacy", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "sequence_slice", .family = "sequence_legacy", .inputs = {{"X"}, {"Offset"}, {"Length"}},
               .outputs = {{"Out"}}, .grad = "sequence_slice_grad", .infer_shape = infer_rows_at_run_time});
  t.push_back({.type = "sequence_slice_grad", .family = "sequence_legacy",
               .inputs = {{"X"}, {"Offset"}, {"Length"}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .infer_shape = shape_rules::grads_like_inputs});

  const auto reshape_attrs = kernel_attrs<kernels::SequenceReshapeAttrs>();
  t.push_back({.type = "sequence_reshape", .family = "sequence_legacy", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = reshape_attrs, .attrs_struct = "SequenceReshapeAttrs", .grad = "sequence_reshape_grad",
               .infer_shape = infer_sequence_reshape});
  t.push_back({.type = "sequence_reshape_grad", .family = "sequence_legacy", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = reshape_attrs, .attrs_struct = "SequenceReshapeAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  const auto reset_attrs = kernel_attrs<kernels::LodResetAttrs>();
  t.push_back({.type = "lod_reset", .family = "sequence_legacy", .inputs = {{"X"}, {"Y", true}},
               .outputs = {{"Out"}}, .attrs = reset_attrs, .attrs_struct = "LodResetAttrs", .grad = "lod_reset_grad",
               .infer_shape = shape_rules::same_as_x});
  t.push_back({.type = "lod_reset_grad", .family = "sequence_legacy", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = reset_attrs, .attrs_struct = "LodResetAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  // Id sequences: Paddle registers no gradient for these two.
  t.push_back({.type = "sequence_erase", .family = "sequence_legacy", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::SequenceEraseAttrs>(), .attrs_struct = "SequenceEraseAttrs",
               .infer_shape = infer_rows_at_run_time});
  t.push_back({.type = "sequence_enumerate", .family = "sequence_legacy", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::SequenceEnumerateAttrs>(), .attrs_struct = "SequenceEnumerateAttrs",
               .infer_shape = infer_sequence_enumerate, .share_lod = "X"});

  t.push_back({.type = "sequence_scatter", .family = "sequence_legacy", .inputs = {{"X"}, {"Ids"}, {"Updates"}},
               .outputs = {{"Out"}}, .grad = "sequence_scatter_grad", .infer_shape = shape_rules::same_as_x});
  t.push_back({.type = "sequence_scatter_grad", .family = "sequence_legacy",
               .inputs = {{"Ids"}, {"Updates"}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}, {"Updates@GRAD", true}},
               .infer_shape = infer_scatter_grad, .share_lod = kShareLodNone});
}

}  // namespace fluidc::ops
