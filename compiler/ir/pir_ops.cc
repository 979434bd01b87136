// compiler/ir/pir_ops.cc - the PIR op rules: Paddle 3's operand order for each op, written as a short spec.
//
// Each rule is {PIR name, ProgramDesc type, operands, results, renamed attributes}. Operands, in PIR order,
// separated by spaces:
//   Slot              a tensor into input slot Slot
//   @attr             a constant (full / full_int_array) into attribute attr; anything else is an error
//   Slot@attr         a constant into attr, else a tensor into Slot
//   Slot@attr[List]   ... or a builtin.combine of scalar tensors into slot List
//   -                 no counterpart (must be left out)
//   ~                 dropped whatever it is (rnn's dropout random state, unused in inference)
//   Slot@attr!        as Slot@attr, and the attribute written as 0 when the tensor form is used
//   @attr#            an integer attribute given as a float constant (an integral value; eye's num_rows)
// Renames "pir=legacy"; "name:=value" sets an attribute PIR folds into the op's name (tril: lower:=true).
// Results: output slots in PIR's result order, "-" for none. The operand orders are facts of Paddle 3's op
// definitions, each row checked on programs Paddle 3.3.1 writes (tools/fixtures_pir_ops.py).
#include "compiler/ir/pir_ops.h"

#include <map>
#include <sstream>

namespace fluidc::pir {
namespace {

struct Spec {
  const char* pir;
  const char* legacy;
  const char* operands;
  const char* results;
  const char* renames = "";
};

// clang-format off
const Spec kSpecs[] = {
    // convolution, pooling, normalization
    {"conv2d", "conv2d", "Input Filter", "Output"},
    {"depthwise_conv2d", "depthwise_conv2d", "Input Filter", "Output"},
    {"conv3d", "conv3d", "Input Filter", "Output"},
    {"conv3d_transpose", "conv3d_transpose", "Input Filter", "Output"},
    {"deformable_conv", "deformable_conv", "Input Offset Filter Mask", "Output"},
    {"conv2d_transpose", "conv2d_transpose", "Input Filter @output_size", "Output"},
    {"depthwise_conv2d_transpose", "depthwise_conv2d_transpose", "Input Filter @output_size", "Output"},
    {"pool2d", "pool2d", "X @ksize", "Out"},
    {"pool3d", "pool3d", "X", "Out", "kernel_size=ksize"},
    {"max_pool3d_with_index", "max_pool3d_with_index", "X", "Out Mask", "kernel_size=ksize"},
    {"max_pool2d_with_index", "max_pool2d_with_index", "X", "Out Mask", "kernel_size=ksize"},
    {"unpool", "unpool", "X Indices @output_size", "Out", "padding=paddings"},
    {"maxout", "maxout", "X", "Out"},
    {"batch_norm", "batch_norm", "X Mean Variance Scale Bias",
     "Y MeanOut VarianceOut SavedMean SavedVariance ReserveSpace", "data_format=data_layout"},
    {"layer_norm", "layer_norm", "X Scale Bias", "Y Mean Variance"},
    {"instance_norm", "instance_norm", "X Scale Bias", "Y SavedMean SavedVariance"},
    {"group_norm", "group_norm", "X Scale Bias", "Y Mean Variance", "data_format=data_layout"},
    // activations
    {"relu", "relu", "X", "Out"},
    {"relu6", "relu6", "X", "Out"},
    {"hardtanh", "brelu", "X", "Out"},
    {"sigmoid", "sigmoid", "X", "Out"},
    {"tanh", "tanh", "X", "Out"},
    {"gelu", "gelu", "X", "Out"},
    {"silu", "silu", "X", "Out"},
    {"swish", "swish", "X", "Out"},
    {"hardswish", "hard_swish", "X", "Out"},
    {"hardsigmoid", "hard_sigmoid", "X", "Out"},
    {"leaky_relu", "leaky_relu", "X", "Out", "negative_slope=alpha"},
    {"elu", "elu", "X", "Out"},
    {"softplus", "softplus", "X", "Out"},
    {"mish", "mish", "X", "Out", "lambda=threshold"},
    {"prelu", "prelu", "X Alpha", "Out"},
    {"exp", "exp", "X", "Out"},
    {"log", "log", "X", "Out"},
    {"sqrt", "sqrt", "X", "Out"},
    {"rsqrt", "rsqrt", "X", "Out"},
    {"abs", "abs", "X", "Out"},
    {"erf", "erf", "X", "Out"},
    {"sin", "sin", "X", "Out"},
    {"cos", "cos", "X", "Out"},
    {"tan", "tan", "X", "Out"},
    {"asin", "asin", "X", "Out"},
    {"acos", "acos", "X", "Out"},
    {"atan", "atan", "X", "Out"},
    {"sinh", "sinh", "X", "Out"},
    {"cosh", "cosh", "X", "Out"},
    {"asinh", "asinh", "X", "Out"},
    {"acosh", "acosh", "X", "Out"},
    {"atanh", "atanh", "X", "Out"},
    {"ceil", "ceil", "X", "Out"},
    {"round", "round", "X", "Out"},
    {"trunc", "trunc", "X", "Out"},
    {"sign", "sign", "X", "Out"},
    {"expm1", "expm1", "X", "Out"},
    {"log1p", "log1p", "X", "Out"},
    {"log2", "log2", "X", "Out"},
    {"log10", "log10", "X", "Out"},
    {"selu", "selu", "X", "Out"},
    {"celu", "celu", "X", "Out"},
    {"softsign", "softsign", "X", "Out"},
    {"logsigmoid", "logsigmoid", "X", "Out"},
    {"tanh_shrink", "tanh_shrink", "X", "Out"},
    {"hardshrink", "hard_shrink", "X", "Out"},
    {"softshrink", "softshrink", "X", "Out", "threshold=lambda"},
    {"thresholded_relu", "thresholded_relu", "X", "Out"},
    {"isnan", "isnan_v2", "X", "Out"},
    {"isinf", "isinf_v2", "X", "Out"},
    {"isfinite", "isfinite_v2", "X", "Out"},
    {"floor", "floor", "X", "Out"},
    {"square", "square", "X", "Out"},
    {"reciprocal", "reciprocal", "X", "Out"},
    {"pow", "pow", "X", "Out", "y=factor"},
    {"clip", "clip", "X Min@min! Max@max!", "Out"},
    {"softmax", "softmax", "X", "Out"},
    {"log_softmax", "log_softmax", "X", "Out"},
    {"scale", "scale", "X ScaleTensor@scale", "Out"},
    {"dropout", "dropout", "X Seed @dropout_prob", "Out Mask", "mode=dropout_implementation"},
    // elementwise
    {"add", "elementwise_add", "X Y", "Out"},
    {"subtract", "elementwise_sub", "X Y", "Out"},
    {"multiply", "elementwise_mul", "X Y", "Out"},
    {"divide", "elementwise_div", "X Y", "Out"},
    {"maximum", "elementwise_max", "X Y", "Out"},
    {"minimum", "elementwise_min", "X Y", "Out"},
    {"elementwise_pow", "elementwise_pow", "X Y", "Out"},
    {"remainder", "elementwise_mod", "X Y", "Out"},
    {"floor_divide", "elementwise_floordiv", "X Y", "Out"},
    {"greater_than", "greater_than", "X Y", "Out"},
    {"less_than", "less_than", "X Y", "Out"},
    {"equal", "equal", "X Y", "Out"},
    {"not_equal", "not_equal", "X Y", "Out"},
    {"where", "where", "Condition X Y", "Out"},
    {"greater_equal", "greater_equal", "X Y", "Out"},
    {"less_equal", "less_equal", "X Y", "Out"},
    {"fmax", "elementwise_fmax", "X Y", "Out"},
    {"heaviside", "elementwise_heaviside", "X Y", "Out"},
    {"fmin", "elementwise_fmin", "X Y", "Out"},
    {"logical_and", "logical_and", "X Y", "Out"},
    {"logical_or", "logical_or", "X Y", "Out"},
    {"logical_xor", "logical_xor", "X Y", "Out"},
    {"logical_not", "logical_not", "X", "Out"},
    {"bitwise_and", "bitwise_and", "X Y", "Out"},
    {"bitwise_or", "bitwise_or", "X Y", "Out"},
    {"bitwise_xor", "bitwise_xor", "X Y", "Out"},
    {"bitwise_not", "bitwise_not", "X", "Out"},
    {"lerp", "lerp", "X Y Weight", "Out"},
    // GEMM and reductions
    {"matmul", "matmul_v2", "X Y", "Out", "transpose_x=trans_x transpose_y=trans_y"},
    {"bmm", "bmm", "X Y", "Out"},
    {"mean", "reduce_mean", "X @dim", "Out", "keepdim=keep_dim"},
    {"mean_all", "mean", "X", "Out"},
    {"sum", "reduce_sum", "X @dim", "Out", "keepdim=keep_dim dtype=out_dtype"},
    {"max", "reduce_max", "X @dim", "Out", "keepdim=keep_dim"},
    {"min", "reduce_min", "X @dim", "Out", "keepdim=keep_dim"},
    {"argmax", "arg_max", "X @axis", "Out"},
    {"argmin", "arg_min", "X @axis", "Out"},
    {"topk", "top_k_v2", "X K@k", "Out Indices"},
    {"cumsum", "cumsum", "X @axis", "Out"},
    {"prod", "reduce_prod", "X @dim", "Out", "keepdim=keep_dim"},
    {"frobenius_norm", "frobenius_norm", "X @dim", "Out"},
    {"nll_loss", "nll_loss", "X Label Weight", "Out Total_weight"},
    {"amax", "reduce_amax", "X", "Out", "axis=dim keepdim=keep_dim"},
    {"amin", "reduce_amin", "X", "Out", "axis=dim keepdim=keep_dim"},
    {"all", "reduce_all", "X", "Out", "axis=dim keepdim=keep_dim"},
    {"any", "reduce_any", "X", "Out", "axis=dim keepdim=keep_dim"},
    {"logsumexp", "logsumexp", "X", "Out"},
    {"p_norm", "p_norm", "X", "Out"},
    {"dot", "dot", "X Y", "Out"},
    {"argsort", "argsort", "X", "Out Indices"},
    {"kthvalue", "kthvalue", "X", "Out Indices"},
    {"mode", "mode", "X", "Out Indices"},
    {"bincount", "bincount", "X Weights @minlength", "Out"},
    {"cumprod", "cumprod", "X", "Out"},
    {"inverse", "inverse", "Input", "Output"},
    {"det", "determinant", "Input", "Out"},
    {"slogdet", "slogdeterminant", "Input", "Out"},
    {"matrix_power", "matrix_power", "X", "Out"},
    {"mv", "mv", "X Vec", "Out"},
    {"einsum", "einsum", "Operands", "Out InnerCache XShape"},
    // shapes and data movement
    {"reshape", "reshape2", "X Shape@shape[ShapeTensor]", "Out XShape"},
    {"flatten", "flatten_contiguous_range", "X", "Out XShape"},
    {"transpose", "transpose2", "X", "Out XShape", "perm=axis"},
    {"squeeze", "squeeze2", "X @axes", "Out XShape"},
    {"unsqueeze", "unsqueeze2", "X AxesTensor@axes[AxesTensorList]", "Out XShape"},
    {"concat", "concat", "X AxisTensor@axis", "Out"},
    {"stack", "stack", "X", "Y"},
    {"add_n", "sum", "X", "Out"},
    {"stanh", "stanh", "X", "Out"},
    {"multiplex", "multiplex", "X Ids", "Out"},
    {"index_add", "index_add", "X Index AddValue", "Out"},
    {"nms", "nms", "Boxes", "KeepBoxesIdxs", "threshold=iou_threshold"},
    {"broadcast_tensors", "broadcast_tensors", "X", "Out"},
    {"split", "split", "X SectionsTensorList@sections AxisTensor@axis", "Out"},
    {"split_with_num", "split", "X AxisTensor@axis", "Out"},
    {"slice", "slice", "Input StartsTensor@starts[StartsTensorList] EndsTensor@ends[EndsTensorList]", "Out"},
    {"strided_slice", "strided_slice", "Input @starts @ends @strides", "Out"},
    {"set_value_with_tensor", "set_value", "Input ValueTensor @starts[StartsTensorList] @ends[EndsTensorList] @steps[StepsTensorList]",
     "Out"},
    {"expand", "expand_v2", "X Shape@shape[expand_shapes_tensor]", "Out"},
    {"tile", "tile", "X RepeatTimes@repeat_times[repeat_times_tensor]", "Out"},
    {"gather", "gather", "X Index Axis@axis", "Out"},
    {"gather_nd", "gather_nd", "X Index", "Out"},
    {"take_along_axis", "take_along_axis", "Input Index", "Result", "axis=Axis"},
    {"scatter", "scatter", "X Ids Updates", "Out"},
    {"scatter_nd_add", "scatter_nd_add", "X Index Updates", "Out"},
    {"index_put", "index_put", "x indices value", "out"},
    {"sequence_mask", "sequence_mask", "X MaxLenTensor@maxlen", "Y"},
    {"flip", "flip", "X", "Out"},
    {"roll", "roll", "X ShiftsTensor@shifts", "Out"},
    {"unbind", "unbind", "X", "Out"},
    {"unstack", "unstack", "X", "Y"},
    {"meshgrid", "meshgrid", "X", "Out"},
    {"expand_as", "expand_as_v2", "X Y", "Out"},
    {"numel", "size", "Input", "Out"},
    {"index_select", "index_select", "X Index", "Out", "axis=dim"},
    {"embedding", "lookup_table_v2", "Ids W", "Out", "sparse=is_sparse"},
    {"one_hot", "one_hot_v2", "X depth_tensor@depth", "Out"},
    {"cast", "cast", "X", "Out", "dtype=out_dtype"},
    {"assign", "assign", "X", "Out"},
    {"roi_align", "roi_align", "X ROIs RoisNum", "Out"},
    {"roi_pool", "roi_pool", "X ROIs RoisNum", "Out Argmax"},
    {"psroi_pool", "psroi_pool", "X ROIs RoisNum", "Out"},
    {"rrelu", "rrelu", "X", "Out Noise"},
    {"bilinear", "bilinear_tensor_product", "X Y Weight Bias", "Out"},
    {"assign_value", "assign_value", "~", "Out", "values=*_values"},
    {"tril", "tril_triu", "X", "Out", "lower:=true"},
    {"triu", "tril_triu", "X", "Out", "lower:=false"},
    {"pad3d", "pad3d", "X Paddings@paddings", "Out", "pad_value=value"},
    {"pad", "pad", "X @pad_value", "Out"},
    {"nearest_interp", "nearest_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"bilinear_interp", "bilinear_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"bicubic_interp", "bicubic_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"linear_interp", "linear_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"trilinear_interp", "trilinear_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"pixel_shuffle", "pixel_shuffle", "X", "Out"},
    {"pixel_unshuffle", "pixel_unshuffle", "X", "Out"},
    {"channel_shuffle", "channel_shuffle", "X", "Out"},
    {"affine_grid", "affine_grid", "Theta OutputShape@output_shape", "Output"},
    {"unfold", "unfold", "X", "Y"},
    {"fold", "fold", "X", "Y"},
    {"label_smooth", "label_smooth", "X PriorDist", "Out"},
    {"grid_sample", "grid_sampler", "X Grid", "Output"},
    {"fill_any_like", "fill_any_like", "X", "Out"},
    {"full_like", "fill_any_like", "X @value", "Out"},
    {"arange", "range", "Start End Step", "Out"},
    {"linspace", "linspace", "Start Stop Num", "Out"},
    // recurrent
    {"rnn", "rnn", "Input PreState WeightList SequenceLength ~", "Out DropoutState State Reserve"},
    // math ops (h-ops-a): each row checked on a tools/fixtures_pir_ops.py case from Paddle 3.3.1
    {"atan2", "atan2", "X1 X2", "Out"},
    {"logit", "logit", "X", "Out"},
    {"erfinv", "erfinv", "X", "Out"},
    // PIR passes the tolerances as operands (full constants); they go in as the Rtol/Atol tensors, which the
    // kernel prefers to the legacy string attributes.
    {"isclose", "isclose", "Input Other Rtol Atol", "Out"},
    {"allclose", "allclose", "Input Other Rtol Atol", "Out"},
    {"cummax", "cummax", "x", "out indices"},
    {"cummin", "cummin", "x", "out indices"},
    {"logcumsumexp", "logcumsumexp", "X", "Out"},
    {"searchsorted", "searchsorted", "SortedSequence Values", "Out"},
    {"addmm", "addmm", "Input X Y", "Out", "alpha=Alpha beta=Beta"},
    {"reverse", "reverse", "X @axis", "Out"},
    {"diagonal", "diagonal", "Input", "Out"},
    {"diag_embed", "diag_embed", "Input", "Out"},
    // detection
    {"yolo_box", "yolo_box", "X ImgSize", "Boxes Scores"},
    {"prior_box", "prior_box", "Input Image", "Boxes Variances"},
    {"box_coder", "box_coder", "PriorBox PriorBoxVar TargetBox", "OutputBox"},
    {"multiclass_nms3", "multiclass_nms3", "BBoxes Scores RoisNum", "Out Index NmsRoisNum"},
    {"matrix_nms", "matrix_nms", "BBoxes Scores", "Out Index RoisNum"},
    // quantization (task quant: compiler/ops/quant.cc). Paddle 3's quantize_linear also carries qmin/qmax;
    // fluidc's kernels take the level range from bit_length, which gives the same range at the defaults.
    {"quantize_linear", "quantize_linear", "X Scale ZeroPoint InAccum InState", "Y OutState OutAccum OutScale"},
    {"dequantize_linear", "dequantize_linear", "X Scale ZeroPoint InAccum InState", "Y OutState OutAccum OutScale"},
    {"fake_quantize_dequantize_moving_average_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
     "X InScale InAccum InState", "Out OutScale OutState OutAccum"},
    {"fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_abs_max", "X", "Out OutScale"},
    {"fake_channel_wise_quantize_dequantize_abs_max", "fake_channel_wise_quantize_dequantize_abs_max", "X",
     "Out OutScale"},
    {"fake_dequantize_max_abs", "fake_dequantize_max_abs", "X Scale", "Out"},
    {"fake_channel_wise_dequantize_max_abs", "fake_channel_wise_dequantize_max_abs", "X Scales", "Out"},
    {"fake_quantize_abs_max", "fake_quantize_abs_max", "X", "Out OutScale"},
    {"fake_quantize_moving_average_abs_max", "fake_quantize_moving_average_abs_max", "X InScale InAccum InState",
     "Out OutScale OutState OutAccum"},
    {"fake_quantize_range_abs_max", "fake_quantize_range_abs_max", "X InScale Iter", "Out OutScale OutScales"},
    // vision_legacy: Fluid 1.x vision and box ops (Paddle 3 has no PIR lrn or iou_similarity)
    {"affine_channel", "affine_channel", "X Scale Bias", "Out"},
    {"shuffle_channel", "shuffle_channel", "X", "Out"},
    {"norm", "norm", "X", "Out Norm"},
    {"temporal_shift", "temporal_shift", "X", "Out"},
    {"index_sample", "index_sample", "X Index", "Out"},
    {"box_clip", "box_clip", "Input ImInfo", "Output"},
    {"anchor_generator", "anchor_generator", "Input", "Anchors Variances"},
    // dyn_math task: data-dependent shapes, small matrix ops, repeat/put, elementwise losses (operand orders
    // read off programs Paddle 3.3.1 writes; not yet in a tools/fixtures_pir_ops.py case)
    {"nonzero", "where_index", "Condition", "Out"},
    {"masked_select", "masked_select", "X Mask", "Y"},
    {"diag", "diag_v2", "X", "Out"},
    {"eye", "eye", "@num_rows# @num_columns#", "Out"},
    {"trace", "trace", "Input", "Out"},
    {"kron", "kron", "X Y", "Out"},
    {"cross", "cross", "X Y", "Out", "axis=dim"},
    {"repeat_interleave", "repeat_interleave", "X", "Out", "repeats=Repeats axis=dim"},
    {"repeat_interleave_with_tensor_index", "repeat_interleave", "X RepeatsTensor", "Out", "axis=dim"},
    {"put_along_axis", "put_along_axis", "Input Index Value", "Result",
     "axis=Axis reduce=Reduce include_self=Include_self"},
    {"sigmoid_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", "X Label pos_weight", "Out"},
    {"bce_loss", "bce_loss", "X Label", "Out"},
    {"huber_loss", "huber_loss", "X Y", "Out Residual"},
    {"kldiv_loss", "kldiv_loss", "X Target", "Loss"},
    {"log_loss", "log_loss", "Predicted Labels", "Loss"},
    // vision_legacy2 task (issue 16): the Fluid 1.x OCR / detection ops Paddle 3 still defines (operand orders
    // read off programs Paddle 3.3.1 writes; not yet in a tools/fixtures_pir_ops.py case). PIR's crop is the
    // legacy crop_tensor; Paddle 3 has no density_prior_box or row_conv op, and its *_interp are the v2 ops.
    {"ctc_align", "ctc_align", "Input InputLength", "Output OutputLength"},
    {"im2sequence", "im2sequence", "X Y", "Out"},
    {"crop", "crop_tensor", "X Shape@shape[ShapeTensor] Offsets@offsets[OffsetsTensor]", "Out"},
    {"unique", "unique", "X", "Out Indices Index Counts"},
    // beam task (issue 16): Fluid 1.x decoding (operand orders read off programs Paddle 3.3.1 writes; not yet in
    // a tools/fixtures_pir_ops.py case). PIR declares parent_idx int64; the kernel writes Paddle 2.6.2's int32.
    // Paddle 3.3.1 cannot build beam_search_decode in a PIR program (it refuses tensor-array operands): no row.
    {"viterbi_decode", "viterbi_decode", "Input Transition Length", "Scores Path"},
    {"gather_tree", "gather_tree", "Ids Parents", "Out"},
    {"generate_proposals", "generate_proposals_v2", "Scores BboxDeltas ImShape Anchors Variances",
     "RpnRois RpnRoiProbs RpnRoisNum", "pre_nms_top_n=pre_nms_topN post_nms_top_n=post_nms_topN"},
    {"distribute_fpn_proposals", "distribute_fpn_proposals", "FpnRois RoisNum",
     "MultiFpnRois MultiLevelRoIsNum RestoreIndex"},
    {"collect_fpn_proposals", "collect_fpn_proposals", "MultiLevelRois MultiLevelScores MultiLevelRoIsNum",
     "FpnRois RoisNum", "post_nms_topn=post_nms_topN"},
    {"beam_search", "beam_search", "pre_ids pre_scores ids scores", "selected_ids selected_scores parent_idx"},
    {"is_empty", "is_empty", "X", "Out"},
};
// clang-format on

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

OperandRule parse_operand(const std::string& w) {
  OperandRule r;
  if (w == "-") return r;
  if (w == "~") {
    r.ignored = true;
    return r;
  }
  std::string rest = w;
  if (auto open = rest.find('['); open != std::string::npos) {
    r.list_slot = rest.substr(open + 1, rest.size() - open - 2);
    rest = rest.substr(0, open);
  }
  if (!rest.empty() && rest.back() == '!') {
    r.attr_placeholder = true;
    rest.pop_back();
  }
  if (!rest.empty() && rest.back() == '#') {
    r.integer = true;
    rest.pop_back();
  }
  if (auto at = rest.find('@'); at != std::string::npos) {
    r.attr = rest.substr(at + 1);
    rest = rest.substr(0, at);
  }
  r.slot = rest;
  return r;
}

std::vector<OpRule> build_rules() {
  std::vector<OpRule> rules;
  for (const Spec& s : kSpecs) {
    OpRule r{s.pir, s.legacy, {}, {}, {}};
    for (const auto& w : words(s.operands)) r.operands.push_back(parse_operand(w));
    for (const auto& w : words(s.results)) r.results.push_back(w == "-" ? "" : w);
    for (const auto& w : words(s.renames)) {
      if (auto set = w.find(":="); set != std::string::npos) {
        r.fixed_attrs.emplace_back(w.substr(0, set), w.substr(set + 2));
        continue;
      }
      auto eq = w.find('=');
      r.renamed_attrs.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

}  // namespace

const std::vector<OpRule>& all_rules() {
  static const std::vector<OpRule> rules = build_rules();
  return rules;
}

const OpRule* find_rule(const std::string& name) {
  static const std::map<std::string, const OpRule*> by_name = [] {
    std::map<std::string, const OpRule*> m;
    for (const auto& r : all_rules()) m.emplace(r.pir, &r);
    return m;
  }();
  if (auto it = by_name.find(name); it != by_name.end()) return it->second;
  // In-place forms (batch_norm_, relu_) take the plain op's operands; the
  // translation gives each result a variable of its own.
  if (name.size() > 1 && name.back() == '_')
    if (auto it = by_name.find(name.substr(0, name.size() - 1)); it != by_name.end()) return it->second;
  return nullptr;
}

}  // namespace fluidc::pir
