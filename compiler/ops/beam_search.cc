// compiler/ops/beam_search.cc - the decoding ops' table: Fluid 1.x's beam_search (one step) and beam_search_decode, 2.x's gather_tree.
//
// Both outputs' row counts depend on the scores (-1 here) and the kernels
// (kernels/beam_search.h) write their outputs' two-level LoD themselves, so
// share_lod stays empty. Paddle has no gradient for either.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/known_type.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/beam_search.h"

namespace fluidc::ops {
namespace {

constexpr int64_t kRunTime = -1;
constexpr auto kArray = pb::VarType::LOD_TENSOR_ARRAY;

// selected_ids [n, 1] int64, selected_scores [n, 1] like scores, parent_idx [n] int32.
void infer_beam_search(ShapeCtx& c) {
  const TensorType& scores = c.input("scores");
  if (!scores.known) return;
  if (scores.dims.size() < 2) {
    c.error("beam_search: scores must be [rows, candidates], got " + scores.str());
    return;
  }
  c.set_output("selected_ids", known_type(pb::VarType::INT64, {kRunTime, 1}));
  c.set_output("selected_scores", known_type(scores.dtype, {kRunTime, 1}));
  if (c.has_output("parent_idx")) c.set_output("parent_idx", known_type(pb::VarType::INT32, {kRunTime}));
}

// SentenceIds [words] int64, SentenceScores [words] like the Scores elements.
void infer_beam_search_decode(ShapeCtx& c) {
  const TensorType& scores = c.input("Scores");
  c.set_output("SentenceIds", known_type(pb::VarType::INT64, {kRunTime}));
  if (scores.known) c.set_output("SentenceScores", known_type(scores.dtype, {kRunTime}));
}

// Out like Ids [steps, batch, beam]; Parents of the same shape.
void infer_gather_tree(ShapeCtx& c) {
  const TensorType& ids = c.input("Ids");
  const TensorType& parents = c.input("Parents");
  if (!ids.known) return;
  if (ids.dims.size() != 3) {
    c.error("gather_tree: Ids must be [steps, batch, beam], got " + ids.str());
    return;
  }
  if (parents.known && parents.dims.size() != 3) {
    c.error("gather_tree: Parents must be [steps, batch, beam] like Ids, got " + parents.str());
    return;
  }
  c.set_output("Out", ids);
}

}  // namespace

void add_beam_search_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "beam_search", .family = "beam_search",
               .inputs = {{"pre_ids"}, {"pre_scores"}, {"ids", true}, {"scores"}},
               .outputs = {{"selected_ids"}, {"selected_scores"}, {"parent_idx", true}},
               .attrs = kernel_attrs<kernels::BeamSearchAttrs>(), .attrs_struct = "BeamSearchAttrs",
               .infer_shape = infer_beam_search});
  t.push_back({.type = "beam_search_decode", .family = "beam_search",
               .inputs = {{"Ids", false, false, kArray}, {"Scores", false, false, kArray}},
               .outputs = {{"SentenceIds"}, {"SentenceScores"}},
               .attrs = kernel_attrs<kernels::BeamSearchDecodeAttrs>(), .attrs_struct = "BeamSearchDecodeAttrs",
               .infer_shape = infer_beam_search_decode});
  t.push_back({.type = "gather_tree", .family = "beam_search", .inputs = {{"Ids"}, {"Parents"}},
               .outputs = {{"Out"}}, .infer_shape = infer_gather_tree, .share_lod = kShareLodNone});
}

}  // namespace fluidc::ops
