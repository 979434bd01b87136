// compiler/ops/crf.cc - the linear-chain CRF family's op table: linear_chain_crf, its gradient, crf_decoding, viterbi_decode, chunk_eval.
//
// Both ops take Emission as a LoD tensor [N, D] or, with Length, padded
// [B, S, D] (kernels/crf.h). Paddle gives none of linear_chain_crf's outputs
// a LoD; crf_decoding's ViterbiPath takes Emission's (set by the kernel).
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/crf.h"

namespace fluidc::ops {
namespace {

// Emission's and Transition's shapes when both are known and agree; reports a
// disagreement.
bool crf_inputs(ShapeCtx& c, rt::Shape& es, rt::Shape& ts) {
  const TensorType& e = c.input("Emission");
  const TensorType& t = c.input("Transition");
  if (!e.known || !t.known || !shape_rules::to_shape(c, e, es) || !shape_rules::to_shape(c, t, ts)) return false;
  if (std::string err = shapes::crf_inputs_check(es, ts, c.has_input("Length")); !err.empty()) {
    c.error(err);
    return false;
  }
  return true;
}

// Alpha and EmissionExps like Emission, TransitionExps like Transition,
// LogLikelihood [sequences, 1] (run-time count in the LoD form).
void infer_linear_chain_crf(ShapeCtx& c) {
  rt::Shape es, ts, ls;
  if (!crf_inputs(c, es, ts)) return;
  const TensorType& e = c.input("Emission");
  for (const char* slot : {"Alpha", "EmissionExps"})
    if (c.has_output(slot)) c.set_output(slot, e);
  if (c.has_output("TransitionExps")) c.set_output("TransitionExps", c.input("Transition"));
  shapes::crf_log_likelihood_shape(es, c.has_input("Length"), shapes::kUnknown, ls);
  TensorType ll = e;
  ll.dims = shape_rules::from_shape(ls);
  c.set_output("LogLikelihood", ll);
}

void infer_crf_decoding(ShapeCtx& c) {
  rt::Shape es, ts, ps;
  if (!crf_inputs(c, es, ts)) return;
  shapes::crf_decoding_shape(es, c.has_input("Length"), ps);
  TensorType path = c.input("Emission");
  path.dtype = pb::VarType::INT64;
  path.dims = shape_rules::from_shape(ps);
  c.set_output("ViterbiPath", path);
}

// Scores [B] in Input's dtype; Path [B, longest Length] int64, its width known at run time.
void infer_viterbi_decode(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  if (!in.known) return;
  rt::Shape is, ts, ls;
  const TensorType& t = c.input("Transition");
  const TensorType& l = c.input("Length");
  if (t.known && l.known && shape_rules::to_shape(c, in, is) && shape_rules::to_shape(c, t, ts) &&
      shape_rules::to_shape(c, l, ls))
    if (std::string err = shapes::viterbi_decode_check(
            is, ts, ls, parse_attrs<kernels::ViterbiDecodeAttrs>(c.op()).include_bos_eos_tag);
        !err.empty()) {
      c.error(err);
      return;
    }
  TensorType scores = in;
  scores.dims = {in.dims.empty() ? -1 : in.dims[0]};
  c.set_output("Scores", scores);
  TensorType path = scores;
  path.dtype = pb::VarType::INT64;
  path.dims.push_back(-1);
  c.set_output("Path", path);
}

// Precision, Recall, F1-Score float32 [1]; the three counts int64 [1].
void infer_chunk_eval(ShapeCtx& c) {
  TensorType t;
  t.known = true;
  t.dims = {1};
  t.dtype = pb::VarType::FP32;
  for (const char* slot : {"Precision", "Recall", "F1-Score"}) c.set_output(slot, t);
  t.dtype = pb::VarType::INT64;
  for (const char* slot : {"NumInferChunks", "NumLabelChunks", "NumCorrectChunks"}) c.set_output(slot, t);
}

}  // namespace

void add_crf_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "linear_chain_crf", .family = "crf",
               .inputs = {{"Emission"}, {"Transition"}, {"Label"}, {"Length", true}},
               .outputs = {{"Alpha"}, {"EmissionExps"}, {"TransitionExps"}, {"LogLikelihood"}},
               .grad = "linear_chain_crf_grad", .infer_shape = infer_linear_chain_crf, .share_lod = kShareLodNone});
  // Paddle's grad op reads the forward's Alpha and exps; the kernel recomputes them (kernels/crf.h).
  t.push_back({.type = "linear_chain_crf_grad", .family = "crf",
               .inputs = {{"Emission"}, {"Transition"}, {"Label"}, {"Length", true}, {"Alpha", true},
                          {"EmissionExps", true}, {"TransitionExps", true}, {"LogLikelihood@GRAD"}},
               .outputs = {{"Emission@GRAD", true}, {"Transition@GRAD", true}},
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "crf_decoding", .family = "crf",
               .inputs = {{"Emission"}, {"Transition"}, {"Label", true}, {"Length", true}},
               .outputs = {{"ViterbiPath"}}, .infer_shape = infer_crf_decoding});
  // Paddle 2.x's decoder (paddle.text.viterbi_decode): padded potentials, a square Transition.
  t.push_back({.type = "viterbi_decode", .family = "crf", .inputs = {{"Input"}, {"Transition"}, {"Length"}},
               .outputs = {{"Scores"}, {"Path"}}, .attrs = kernel_attrs<kernels::ViterbiDecodeAttrs>(),
               .attrs_struct = "ViterbiDecodeAttrs", .infer_shape = infer_viterbi_decode, .share_lod = kShareLodNone});
  // The taggers' evaluation metric beside crf_decoding (Fluid's layers.chunk_eval).
  t.push_back({.type = "chunk_eval", .family = "crf", .inputs = {{"Inference"}, {"Label"}, {"SeqLength", true}},
               .outputs = {{"Precision"}, {"Recall"}, {"F1-Score"}, {"NumInferChunks"}, {"NumLabelChunks"},
                           {"NumCorrectChunks"}},
               .attrs = kernel_attrs<kernels::ChunkEvalAttrs>(), .attrs_struct = "ChunkEvalAttrs",
               .infer_shape = infer_chunk_eval, .share_lod = kShareLodNone});
}

}  // namespace fluidc::ops
