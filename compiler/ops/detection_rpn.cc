// compiler/ops/detection_rpn.cc - the two-stage detectors' proposal ops' table: generate_proposals_v2 and v1, distribute_fpn_proposals, collect_fpn_proposals (no gradients).
//
// Their row counts depend on the scores and boxes (-1 here); the kernels
// (kernels/detection_rpn.h) write the per-image LoD themselves.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/known_type.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/detection_rpn.h"

namespace fluidc::ops {
namespace {

using kernels::CollectFpnProposalsAttrs;
using kernels::DistributeFpnProposalsAttrs;
using kernels::GenerateProposalsAttrs;
using kernels::GenerateProposalsV1Attrs;

// RpnRois [-1, 4] and RpnRoiProbs [-1, 1] like Scores; RpnRoisNum [N] int32.
void infer_generate_proposals(ShapeCtx& c) {
  const TensorType& s = c.input("Scores");
  if (!s.known) return;
  if (s.dims.size() != 4) {
    c.error(c.op().type() + ": Scores must be [N, A, H, W], got " + s.str());
    return;
  }
  c.set_output("RpnRois", known_type(s.dtype, {-1, 4}));
  c.set_output("RpnRoiProbs", known_type(s.dtype, {-1, 1}));
  if (c.has_output("RpnRoisNum")) c.set_output("RpnRoisNum", known_type(pb::VarType::INT32, {s.dims[0]}));
}

// One MultiFpnRois [-1, 4] per level, RestoreIndex [boxes, 1] int32, MultiLevelRoIsNum [images] int32.
void infer_distribute_fpn_proposals(ShapeCtx& c) {
  const TensorType& r = c.input("FpnRois");
  if (!r.known) return;
  if (r.dims.size() != 2) {
    c.error("distribute_fpn_proposals: FpnRois must be [boxes, 4], got " + r.str());
    return;
  }
  const auto a = parse_attrs<DistributeFpnProposalsAttrs>(c.op());
  int outs = 0;
  for (const auto& v : c.op().outputs())
    if (v.parameter() == "MultiFpnRois") outs = v.arguments_size();
  const int64_t levels = int64_t{a.max_level} - a.min_level + 1;  // in 64 bits: the attributes are program data
  if (levels < 1 || outs != levels) {
    c.error(fmt::format("distribute_fpn_proposals: levels {} to {} need {} MultiFpnRois outputs, the op has {}",
                        a.min_level, a.max_level, levels, outs));
    return;
  }
  c.set_output("MultiFpnRois", known_type(r.dtype, {-1, 4}));
  c.set_output("RestoreIndex", known_type(pb::VarType::INT32, {r.dims[0], 1}));
  const int64_t images = c.has_input("RoisNum") && c.input("RoisNum").known && !c.input("RoisNum").dims.empty()
                             ? c.input("RoisNum").dims[0]
                             : -1;
  if (c.has_output("MultiLevelRoIsNum")) c.set_output("MultiLevelRoIsNum", known_type(pb::VarType::INT32, {images}));
}

// FpnRois [-1, 4] like the levels' boxes; RoisNum [images] int32.
void infer_collect_fpn_proposals(ShapeCtx& c) {
  const TensorType& r = c.input("MultiLevelRois");
  if (!r.known) return;
  if (r.dims.size() != 2) {
    c.error("collect_fpn_proposals: MultiLevelRois must be [boxes, 4], got " + r.str());
    return;
  }
  if (c.num_inputs("MultiLevelScores") != c.num_inputs("MultiLevelRois")) {
    c.error(fmt::format("collect_fpn_proposals: {} MultiLevelRois but {} MultiLevelScores",
                        c.num_inputs("MultiLevelRois"), c.num_inputs("MultiLevelScores")));
    return;
  }
  c.set_output("FpnRois", known_type(r.dtype, {-1, 4}));
  const int64_t images = c.has_input("MultiLevelRoIsNum") && c.input("MultiLevelRoIsNum").known &&
                                 !c.input("MultiLevelRoIsNum").dims.empty()
                             ? c.input("MultiLevelRoIsNum").dims[0]
                             : -1;
  if (c.has_output("RoisNum")) c.set_output("RoisNum", known_type(pb::VarType::INT32, {images}));
}

}  // namespace

void add_detection_rpn_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "generate_proposals_v2", .family = "detection_rpn",
               .inputs = {{"Scores"}, {"BboxDeltas"}, {"ImShape"}, {"Anchors"}, {"Variances"}},
               .outputs = {{"RpnRois"}, {"RpnRoiProbs"}, {"RpnRoisNum", true}},
               .attrs = kernel_attrs<GenerateProposalsAttrs>(), .attrs_struct = "GenerateProposalsAttrs",
               .infer_shape = infer_generate_proposals, .share_lod = kShareLodNone});
  // v1 (Fluid 1.x): ImInfo for ImShape, no pixel_offset attribute; the kernel writes the per-image LoD.
  t.push_back({.type = "generate_proposals", .family = "detection_rpn",
               .inputs = {{"Scores"}, {"BboxDeltas"}, {"ImInfo"}, {"Anchors"}, {"Variances"}},
               .outputs = {{"RpnRois"}, {"RpnRoiProbs"}, {"RpnRoisNum", true}},
               .attrs = kernel_attrs<GenerateProposalsV1Attrs>(), .attrs_struct = "GenerateProposalsV1Attrs",
               .infer_shape = infer_generate_proposals, .share_lod = kShareLodNone});
  t.push_back({.type = "distribute_fpn_proposals", .family = "detection_rpn",
               .inputs = {{"FpnRois"}, {"RoisNum", true}},
               .outputs = {{"MultiFpnRois", false, true}, {"RestoreIndex"}, {"MultiLevelRoIsNum", true, true}},
               .attrs = kernel_attrs<DistributeFpnProposalsAttrs>(), .attrs_struct = "DistributeFpnProposalsAttrs",
               .infer_shape = infer_distribute_fpn_proposals, .share_lod = kShareLodNone});
  t.push_back({.type = "collect_fpn_proposals", .family = "detection_rpn",
               .inputs = {{"MultiLevelRois", false, true}, {"MultiLevelScores", false, true},
                          {"MultiLevelRoIsNum", true, true}},
               .outputs = {{"FpnRois"}, {"RoisNum", true}},
               .attrs = kernel_attrs<CollectFpnProposalsAttrs>(), .attrs_struct = "CollectFpnProposalsAttrs",
               .infer_shape = infer_collect_fpn_proposals, .share_lod = kShareLodNone});
}

}  // namespace fluidc::ops
