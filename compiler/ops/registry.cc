// compiler/ops/registry.cc - builds the op table once from every family, in one explicit list.
#include "compiler/ops/registry.h"

#include <algorithm>

#include "compiler/support/diagnostics.h"

namespace fluidc::ops {

const SlotDef* OpDef::input(const std::string& slot) const {
  for (const auto& s : inputs)
    if (s.name == slot) return &s;
  return nullptr;
}

const SlotDef* OpDef::output(const std::string& slot) const {
  for (const auto& s : outputs)
    if (s.name == slot) return &s;
  return nullptr;
}

const AttrDef* OpDef::attr(const std::string& name) const {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

std::vector<OpDef> build_table() {
  std::vector<OpDef> table;
  add_io_ops(table);
  add_elementwise_ops(table);
  add_activation_ops(table);
  add_matmul_ops(table);
  add_loss_ops(table);
  add_reduce_ops(table);
  add_fill_ops(table);
  add_optimizer_ops(table);
  add_control_flow_ops(table);
  add_tensor_manip_ops(table);
  add_reshape_ops(table);
  add_transpose_ops(table);
  add_conv_ops(table);
  add_pool_ops(table);
  add_norm_ops(table);
  add_index_ops(table);
  add_rnn_ops(table);
  add_interp_ops(table);
  add_detection_ops(table);
  add_distributed_ops(table);
  add_sequence_ops(table);
  add_set_value_ops(table);
  add_einsum_ops(table);
  add_sampling_ops(table);
  add_index_put_ops(table);
  add_crf_ops(table);
  add_detection_rpn_ops(table);
  add_pad_ops(table);
  add_prelu_ops(table);
  add_strided_slice_ops(table);
  add_shuffle_ops(table);
  add_bilinear_ops(table);
  add_rrelu_ops(table);
  add_quant_ops(table);
  add_roi_align_ops(table);
  add_roi_pool_ops(table);
  add_unpool_ops(table);
  add_spp_ops(table);
  add_multiplex_ops(table);
  add_vision_legacy_ops(table);
  add_detection_boxes_ops(table);
  add_masked_ops(table);
  add_linalg_misc_ops(table);
  add_linalg_lu_ops(table);
  add_nll_loss_ops(table);
  add_histogram_ops(table);
  add_loss_more_ops(table);
  add_repeat_put_ops(table);
  add_sequence_legacy_ops(table);
  add_vision_legacy2_ops(table);
  add_beam_search_ops(table);
  add_rnn_unit_ops(table);
  // An elementwise op keeps X's rows, so it keeps their sequences too; a
  // gradient op gives each input's gradient that input's LoD (Paddle's
  // ShareLoD(X, X@GRAD)).
  for (OpDef& d : table) {
    if (!d.share_lod.empty()) continue;
    if (!d.pointwise.empty() && d.input("X")) d.share_lod = "X";
    bool all_grads = !d.outputs.empty();
    for (const SlotDef& s : d.outputs) all_grads &= s.name.size() > 5 && s.name.ends_with("@GRAD");
    if (all_grads) d.share_lod = kShareLodFromForward;
  }
  std::sort(table.begin(), table.end(), [](const OpDef& a, const OpDef& b) { return a.type < b.type; });
  for (size_t i = 1; i < table.size(); ++i)
    if (table[i].type == table[i - 1].type) internal_error("op defined twice: " + table[i].type);
  return table;
}

}  // namespace

const std::vector<OpDef>& all_ops() {
  static const std::vector<OpDef> table = build_table();
  return table;
}

const OpDef* find_op(std::string_view type) {
  const auto& table = all_ops();
  auto it = std::lower_bound(table.begin(), table.end(), type,
                             [](const OpDef& d, std::string_view t) { return d.type < t; });
  return it != table.end() && it->type == type ? &*it : nullptr;
}

}  // namespace fluidc::ops
