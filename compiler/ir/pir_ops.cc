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
// Results: output slots in PIR's result order, "-" for none. Renames: "pir=legacy". The operand orders are
// facts of Paddle 3's op definitions (checked on programs Paddle 3.3.1 writes, tools/fixtures_pir.py).
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
    {"conv2d_transpose", "conv2d_transpose", "Input Filter @output_size", "Output"},
    {"depthwise_conv2d_transpose", "depthwise_conv2d_transpose", "Input Filter @output_size", "Output"},
    {"pool2d", "pool2d", "X @ksize", "Out"},
    {"pool3d", "pool3d", "X", "Out", "kernel_size=ksize"},
    {"batch_norm", "batch_norm", "X Mean Variance Scale Bias",
     "Y MeanOut VarianceOut SavedMean SavedVariance ReserveSpace", "data_format=data_layout"},
    {"layer_norm", "layer_norm", "X Scale Bias", "Y Mean Variance"},
    {"instance_norm", "instance_norm", "X Scale Bias", "Y SavedMean SavedVariance"},
    {"group_norm", "group_norm", "X Scale Bias", "Y Mean Variance", "data_format=data_layout"},
    // activations
    {"relu", "relu", "X", "Out"},
    {"relu6", "relu6", "X", "Out"},
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
    {"floor", "floor", "X", "Out"},
    {"square", "square", "X", "Out"},
    {"reciprocal", "reciprocal", "X", "Out"},
    {"pow", "pow", "X", "Out", "y=factor"},
    {"clip", "clip", "X Min@min Max@max", "Out"},
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
    // GEMM and reductions
    {"matmul", "matmul_v2", "X Y", "Out", "transpose_x=trans_x transpose_y=trans_y"},
    {"bmm", "bmm", "X Y", "Out"},
    {"mean", "reduce_mean", "X @dim", "Out", "keepdim=keep_dim"},
    {"sum", "reduce_sum", "X @dim", "Out", "keepdim=keep_dim dtype=out_dtype"},
    {"max", "reduce_max", "X @dim", "Out", "keepdim=keep_dim"},
    {"min", "reduce_min", "X @dim", "Out", "keepdim=keep_dim"},
    {"argmax", "arg_max", "X @axis", "Out"},
    {"argmin", "arg_min", "X @axis", "Out"},
    {"topk", "top_k_v2", "X K@k", "Out Indices"},
    {"cumsum", "cumsum", "X @axis", "Out"},
    // shapes and data movement
    {"reshape", "reshape2", "X Shape@shape[ShapeTensor]", "Out XShape"},
    {"flatten", "flatten_contiguous_range", "X", "Out XShape"},
    {"transpose", "transpose2", "X", "Out XShape", "perm=axis"},
    {"squeeze", "squeeze2", "X @axes", "Out XShape"},
    {"unsqueeze", "unsqueeze2", "X AxesTensor@axes[AxesTensorList]", "Out XShape"},
    {"concat", "concat", "X AxisTensor@axis", "Out"},
    {"stack", "stack", "X", "Y"},
    {"split", "split", "X SectionsTensorList@sections AxisTensor@axis", "Out"},
    {"split_with_num", "split", "X AxisTensor@axis", "Out"},
    {"slice", "slice", "Input StartsTensor@starts[StartsTensorList] EndsTensor@ends[EndsTensorList]", "Out"},
    {"strided_slice", "strided_slice", "Input @starts @ends @strides", "Out"},
    {"expand", "expand_v2", "X Shape@shape[expand_shapes_tensor]", "Out"},
    {"tile", "tile", "X RepeatTimes@repeat_times[repeat_times_tensor]", "Out"},
    {"gather", "gather", "X Index Axis@axis", "Out"},
    {"gather_nd", "gather_nd", "X Index", "Out"},
    {"index_select", "index_select", "X Index", "Out", "axis=dim"},
    {"embedding", "lookup_table_v2", "Ids W", "Out", "sparse=is_sparse"},
    {"one_hot", "one_hot_v2", "X depth_tensor@depth", "Out"},
    {"cast", "cast", "X", "Out", "dtype=out_dtype"},
    {"assign", "assign", "X", "Out"},
    {"pad3d", "pad3d", "X Paddings@paddings", "Out", "pad_value=value"},
    {"nearest_interp", "nearest_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"bilinear_interp", "bilinear_interp_v2", "X OutSize SizeTensor Scale", "Out", "data_format=data_layout"},
    {"pixel_shuffle", "pixel_shuffle", "X", "Out"},
    {"grid_sample", "grid_sampler", "X Grid", "Output"},
    {"fill_any_like", "fill_any_like", "X", "Out"},
    {"full_like", "fill_any_like", "X @value", "Out"},
    {"arange", "range", "Start End Step", "Out"},
    // recurrent
    {"rnn", "rnn", "Input PreState WeightList SequenceLength ~", "Out DropoutState State Reserve"},
    // detection
    {"yolo_box", "yolo_box", "X ImgSize", "Boxes Scores"},
    {"prior_box", "prior_box", "Input Image", "Boxes Variances"},
    {"box_coder", "box_coder", "PriorBox PriorBoxVar TargetBox", "OutputBox"},
    {"multiclass_nms3", "multiclass_nms3", "BBoxes Scores RoisNum", "Out Index NmsRoisNum"},
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
