// compiler/ops/registry.h - the table of every op fluidc supports.
#pragma once

#include <string_view>
#include <vector>

#include "compiler/ops/op_def.h"

namespace fluidc::ops {

/// Every supported op, sorted by type name.
const std::vector<OpDef>& all_ops();
/// The definition of `type`, or nullptr when fluidc does not support it.
const OpDef* find_op(std::string_view type);

// One function per op family, each in compiler/ops/<family>.cc.
void add_io_ops(std::vector<OpDef>& table);
void add_elementwise_ops(std::vector<OpDef>& table);
void add_activation_ops(std::vector<OpDef>& table);
void add_matmul_ops(std::vector<OpDef>& table);
void add_loss_ops(std::vector<OpDef>& table);
void add_reduce_ops(std::vector<OpDef>& table);
void add_fill_ops(std::vector<OpDef>& table);
void add_optimizer_ops(std::vector<OpDef>& table);
void add_control_flow_ops(std::vector<OpDef>& table);
void add_tensor_manip_ops(std::vector<OpDef>& table);
void add_reshape_ops(std::vector<OpDef>& table);
void add_transpose_ops(std::vector<OpDef>& table);
void add_conv_ops(std::vector<OpDef>& table);
void add_pool_ops(std::vector<OpDef>& table);
void add_norm_ops(std::vector<OpDef>& table);
void add_index_ops(std::vector<OpDef>& table);
void add_rnn_ops(std::vector<OpDef>& table);
void add_interp_ops(std::vector<OpDef>& table);
void add_detection_ops(std::vector<OpDef>& table);
void add_distributed_ops(std::vector<OpDef>& table);
void add_sequence_ops(std::vector<OpDef>& table);
void add_set_value_ops(std::vector<OpDef>& table);
void add_einsum_ops(std::vector<OpDef>& table);
void add_sampling_ops(std::vector<OpDef>& table);
void add_index_put_ops(std::vector<OpDef>& table);
void add_crf_ops(std::vector<OpDef>& table);
void add_detection_rpn_ops(std::vector<OpDef>& table);
void add_pad_ops(std::vector<OpDef>& table);
void add_prelu_ops(std::vector<OpDef>& table);
void add_strided_slice_ops(std::vector<OpDef>& table);
void add_shuffle_ops(std::vector<OpDef>& table);
void add_bilinear_ops(std::vector<OpDef>& table);
void add_rrelu_ops(std::vector<OpDef>& table);
void add_quant_ops(std::vector<OpDef>& table);
void add_roi_align_ops(std::vector<OpDef>& table);
void add_roi_pool_ops(std::vector<OpDef>& table);
void add_unpool_ops(std::vector<OpDef>& table);
void add_spp_ops(std::vector<OpDef>& table);
void add_multiplex_ops(std::vector<OpDef>& table);
void add_vision_legacy_ops(std::vector<OpDef>& table);
void add_detection_boxes_ops(std::vector<OpDef>& table);
void add_masked_ops(std::vector<OpDef>& table);
void add_linalg_misc_ops(std::vector<OpDef>& table);
void add_linalg_lu_ops(std::vector<OpDef>& table);
void add_nll_loss_ops(std::vector<OpDef>& table);
void add_histogram_ops(std::vector<OpDef>& table);
void add_loss_more_ops(std::vector<OpDef>& table);
void add_repeat_put_ops(std::vector<OpDef>& table);
void add_sequence_legacy_ops(std::vector<OpDef>& table);
void add_vision_legacy2_ops(std::vector<OpDef>& table);
void add_beam_search_ops(std::vector<OpDef>& table);
void add_rnn_unit_ops(std::vector<OpDef>& table);

}  // namespace fluidc::ops
