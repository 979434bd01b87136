// compiler/ops/op_def.h - one definition per op type: slots, attributes, traits, shapes, gradient, emitters.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

class ShapeCtx;
class EmitCtx;

namespace ops {

/// An input or output slot. The order of an op's slots is the order of
/// the kernel's parameters (see kernels/*.h).
struct SlotDef {
  std::string name;
  bool optional = false;    ///< may be absent; the kernel takes a pointer
  bool duplicable = false;  ///< takes a list of variables (e.g. sum's X)
  /// What the variables hold: a dense tensor (LOD_TENSOR), a tensor array,
  /// Paddle's step scopes, or the feed/fetch holders; RAW accepts any kind
  /// (the variable lists of conditional_block and while).
  pb::VarType::Type holds = pb::VarType::LOD_TENSOR;
  /// A SELECTED_ROWS variable here (Paddle's sparse gradient of an
  /// embedding) may be held as the dense tensor it stands for, absent rows
  /// zero: the op's result is the same either way (compiler/analysis/dense_rows.h).
  bool rows_as_dense = false;
  /// A weight read here may be stored as integers while the program declares
  /// it float: PaddleSlim saves quantized weights as int8 records under
  /// float32 VarDescs (Paddle's loader takes the record's dtype). A
  /// persistable that only such slots read loads either way.
  bool integer_storage = false;
};

/// An attribute the op understands. Attributes not listed are kept in the
/// program but ignored (Paddle adds op_role, op_callstack, use_mkldnn, ...).
struct AttrDef {
  std::string name;
  pb::AttrType type;
  bool required = false;   ///< absent is an error; otherwise the kernel default applies
  bool to_kernel = true;   ///< copied into the kernel's attribute struct
};

/// Facts that passes ask about instead of naming op types.
enum Trait : unsigned {
  kNoTraits = 0,
  kSideEffect = 1u << 0,  ///< must not be removed even when its outputs are unused
  kOptimizer = 1u << 1,   ///< updates parameters; a program with one is a trainer
  kFeed = 1u << 2,        ///< reads a fed tensor into its output
  kFetch = 1u << 3,       ///< exposes its input as a program result
  kRandom = 1u << 4,      ///< draws random numbers
  kOwnsBlock = 1u << 5,   ///< runs a sub-block
  /// Talks to other processes (parameter servers, collective peers): the
  /// distribute pass writes these ops; no CPU path until a distributed
  /// runtime exists, so build/emit refuse programs holding them.
  kCommunication = 1u << 6,
  /// Flat almost everywhere (floor, ceil, round, trunc, sign): its gradient
  /// is zero, which Paddle writes as an <op>_grad of zeros. Autodiff passes
  /// no gradient through it (its outputs need none), which is the same sum.
  kZeroGradient = 1u << 7,
};

using InferShapeFn = void (*)(ShapeCtx&);
/// For ops that at inference are a plain scaling Out = X * factor (dropout
/// with is_test): the factor for this op's attributes, or nullopt when the
/// op is not in that mode.
using InferenceScaleFn = std::optional<float> (*)(const pb::OpDesc&);

/// Ops whose output channel c depends linearly on slice c of a weight input
/// (convolutions, GEMMs): what fold-batch-norm needs to scale that weight
/// per channel. Slot names, not variables.
struct ChannelLinear {
  std::string weight;   ///< the weight input slot ("Filter", "Y")
  int weight_axis = 0;  ///< the weight's output-channel axis
  std::string out;      ///< the output slot
  int out_axis = 1;     ///< the output's channel axis; -1 = the last
  std::string bias;     ///< a per-channel bias input the op adds itself, or ""
  /// Attribute names through which the op applies an activation to its
  /// output after the bias (Paddle's fuse_activation, fuse_alpha,
  /// fuse_beta); `activation` empty: the op has no such epilogue.
  struct Epilogue {
    std::string activation, alpha, beta;
  } epilogue;
};
/// Fills `cl` for this op; false when its attributes or bound slots put it
/// outside that form (a transposed or batched weight, a residual input).
/// A bound bias slot or a set epilogue do not: callers look at those.
using ChannelLinearFn = bool (*)(const pb::OpDesc&, ChannelLinear& cl);

/// Ops that are Out = X + Y with Y broadcast into X by Paddle's axis rule
/// (elementwise_add): what conv-epilogue needs to move a per-channel Y into
/// a convolution's bias. Slot names, and the op's axis.
struct BiasAdd {
  std::string x = "X", y = "Y", out = "Out";
  int axis = -1;
};
/// Fills `ba`; false when the op is not in that form.
using BiasAddFn = bool (*)(const pb::OpDesc&, BiasAdd& ba);

/// Unary activations (X -> Out) a convolution can apply to each output as
/// it writes it (ChannelLinear::epilogue): the values of its fuse_alpha and
/// fuse_beta for this op's attributes; false when its attributes have no
/// such form. The CPU kernels map the op type back to the same scalar
/// function (kernels/cpu/conv_epilogue.h), so the numbers do not change.
using ConvEpilogueFn = bool (*)(const pb::OpDesc&, float& alpha, float& beta);

/// Ops that at inference are a per-channel affine map (batch_norm with
/// is_test or use_global_stats): Y = (X - Mean) / sqrt(Variance + epsilon)
/// * Scale + Bias along channel axis `axis` (-1 = the last). Slot names.
struct ChannelAffine {
  std::string x = "X", y = "Y", scale = "Scale", bias = "Bias", mean = "Mean", variance = "Variance";
  float epsilon = 1e-5f;
  int axis = 1;
};
/// Fills `ca`; false when the op is not in that mode (training statistics).
using InferenceAffineFn = bool (*)(const pb::OpDesc&, ChannelAffine& ca);
/// Convolutions a Winograd convolution may compute instead (the winograd
/// pass, transpilers/winograd.h): the op that does, and the load-time op
/// that transforms its filter (Filter -> Out). Slot names are the
/// convolution's; the replacement takes the same slots and attributes, with
/// Filter bound to the transformed filter.
struct WinogradForm {
  std::string op;                ///< "conv2d_winograd"
  std::string filter_transform;  ///< "winograd_filter"
  std::string filter = "Filter";
  int64_t out_channels = 0, in_channels = 0;  ///< from the filter: the pass's cost rule reads them
};
/// Fills `wf` when this op, with these attributes and bound slots, and a
/// filter of dims `filter` (all known), is one the Winograd op computes.
using WinogradFn = bool (*)(const pb::OpDesc&, const std::vector<int64_t>& filter, WinogradForm& wf);
using EmitFn = void (*)(EmitCtx&);
/// Builds the gradient op of `fwd` for an op whose gradient is not the
/// generic `<grad>` op (slots mapped by name). `grad_of(name)` gives the
/// gradient variable of a forward variable ("" when it has none); the maker
/// fills `grad` (type, slots, attributes) and returns false when nothing
/// needs a gradient.
using GradMakerFn = bool (*)(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                             pb::OpDesc& grad);

// ---- optimizer ops: what the optimizer pass needs (transpilers/optimizer.h) ----

/// One piece of optimizer state: an input slot the op reads and the output
/// slot it writes back, bound to the same persistable variable
/// `<param><suffix>`, which the startup program initialises.
struct OptimizerStateDef {
  std::string input;           ///< "Moment1"
  std::string output;          ///< "Moment1Out"
  std::string suffix;          ///< "_moment1_0", Paddle's accumulator name
  bool scalar = false;         ///< shape [1]; otherwise the parameter's shape
  /// Initial value: the value the op's attribute `init_attr` gets (e.g. a
  /// beta power starts at beta), or `init` when `init_attr` is empty.
  std::string init_attr;
  double init = 0;
};

/// An attribute the optimizer pass writes, with the value used when the
/// command line gives none (OptimizerOptions::attrs, keyed by `name`).
struct OptimizerAttrDef {
  std::string name;
  pb::AttrType type = pb::FLOAT;  ///< FLOAT or BOOLEAN
  double default_value = 0;
};

/// Present on ops with the kOptimizer trait. State and learning rate take
/// the parameter's dtype.
struct OptimizerDef {
  std::string param = "Param", grad = "Grad", learning_rate = "LearningRate", param_out = "ParamOut";
  std::vector<OptimizerStateDef> state;
  std::vector<OptimizerAttrDef> attrs;
  /// Attributes through which the op applies L2 decay itself ("l2_decay",
  /// coefficient); empty: the pass adds Paddle's scale + sum on the gradient.
  std::string l2_method_attr, l2_coeff_attr;
};

// ---- end of optimizer block ----

/// OpDef::share_lod of gradient ops: each "S@GRAD" output gets input S's LoD.
inline constexpr const char* kShareLodFromForward = "@GRAD";
/// OpDef::share_lod of an op whose outputs never take a LoD (a gradient op
/// that, in Paddle, does not share its input's).
inline constexpr const char* kShareLodNone = "@NONE";

struct OpDef {
  std::string type;
  /// Kernel family: the generated code includes kernels/<family>.h.
  std::string family;
  std::vector<SlotDef> inputs;
  std::vector<SlotDef> outputs;
  /// Kernel attributes come from the kernel struct's field list
  /// (kernel_attrs<S>() in compiler/ops/attr_struct.h) rather than by hand.
  std::vector<AttrDef> attrs;
  /// Name of the kernel's attribute struct ("MulAttrs"); empty when the
  /// kernel takes none.
  std::string attrs_struct;
  unsigned traits = kNoTraits;
  /// The op Paddle's backward emits for this one ("mul_grad"); empty when
  /// the op is not differentiable or is itself a gradient.
  std::string grad;
  /// Set when the gradient is not the generic `grad` op (e.g. scale's
  /// gradient is another scale with bias 0).
  GradMakerFn make_grad = nullptr;
  /// Output dtypes and dims from input ones; nullptr: outputs keep their
  /// declared VarDesc types.
  InferShapeFn infer_shape = nullptr;
  /// CPU code for one op; nullptr: the generic kernel call
  /// `k::<type>(inputs..., outputs..., attrs)`.
  EmitFn emit_cpu = nullptr;
  /// CUDA code for one op of the main program (the collective ops: NCCL);
  /// nullptr: the op's CUDA kernel (kernels/cuda/op_list.h), else its CPU
  /// code on the host mirrors.
  EmitFn emit_cuda = nullptr;
  /// Elementwise ops: the name of the op's scalar function in
  /// kernels/pointwise.h ("Relu" for k::pw::Relu), which lets the code
  /// generator fuse it into a loop with its neighbours (compiler/codegen/
  /// fusion.h). The function takes (x) or, with a Y input, (x, y), plus the
  /// op's attribute struct when it has one that is not ElementwiseAttrs.
  std::string pointwise;
  /// Optimizer ops: state slots, initial values, attributes (see above).
  const OptimizerDef* optimizer = nullptr;
  /// Set for ops that are a scaling of X into Out at inference (see
  /// InferenceScaleFn); the remove-dropout pass replaces them.
  InferenceScaleFn inference_scale = nullptr;
  /// Convolutions and GEMMs: see ChannelLinear (fold-batch-norm).
  ChannelLinearFn channel_linear = nullptr;
  /// batch_norm at inference: see ChannelAffine (fold-batch-norm).
  InferenceAffineFn inference_affine = nullptr;
  /// elementwise_add: see BiasAdd (conv-epilogue).
  BiasAddFn bias_add = nullptr;
  /// Activations a convolution can fuse: see ConvEpilogueFn (conv-epilogue).
  ConvEpilogueFn conv_epilogue = nullptr;
  /// Convolutions Winograd's algorithm computes: see WinogradFn (winograd).
  WinogradFn winograd = nullptr;
  /// The input slot whose LoD (sequence offsets) every output takes over,
  /// Paddle's ShareLoD: "X" for an op that keeps its rows' sequences. Empty:
  /// the kernel sets its outputs' LoD itself (sequence ops) or they have
  /// none. Elementwise ops (`pointwise`) default to "X" (registry.cc). The
  /// emitter copies offsets only in programs with LoD variables.
  /// kShareLodFromForward: each output "S@GRAD" takes input S's LoD (the
  /// default of gradient ops).
  std::string share_lod;

  /// Output slots that may take the bytes of an input slot's variable when
  /// that variable dies at this op (the memory plan's in-place reuse): the
  /// kernel reads element i of the input only to write element i of the
  /// output (kernels/cpu/unary_impl.h; the binary elementwise loops when X
  /// has Out's type), so Out == X gives the same result.
  struct InPlace {
    std::string input, output;
  };
  std::vector<InPlace> in_place;

  bool has(Trait t) const { return (traits & t) != 0; }
  const SlotDef* input(const std::string& slot) const;
  const SlotDef* output(const std::string& slot) const;
  const AttrDef* attr(const std::string& name) const;
};

/// The in-place pairs of the unary kernels and of their gradients
/// (kernels/cpu/unary_impl.h: same-index loops).
inline const std::vector<OpDef::InPlace> kUnaryInPlace{{"X", "Out"}};
inline const std::vector<OpDef::InPlace> kUnaryGradInPlace{{"Out@GRAD", "X@GRAD"}};
/// The binary elementwise kernels (kernels/cpu/elementwise.cc, binary())
/// read X[i] before writing Out[i] when X is not broadcast; the memory plan
/// pairs only an X of Out's very type.
inline const std::vector<OpDef::InPlace> kBinaryInPlace{{"X", "Out"}};
/// elementwise_add_grad: with X of Out's type (all the plan pairs), X@GRAD
/// is Out@GRAD itself, and Y@GRAD reads the same values after it.
inline const std::vector<OpDef::InPlace> kAddGradInPlace{{"Out@GRAD", "X@GRAD"}};

}  // namespace ops
}  // namespace fluidc
