// compiler/ops/distributed.cc - the ops the distribute pass writes: parameter-server RPC and collective communication.
//
// These ops talk to other processes (trainers, parameter servers, collective
// peers). They carry the kCommunication trait: the pipeline and `fluidc
// ops` ask for it, and `fluidc build`/`emit` refuse a program holding one
// until a distributed runtime exists (docs/distributed.md). Slots and
// attributes are Paddle's (its send_recv and collective ops), so the
// programs the pass writes load in Paddle and fluidc alike.
#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc::ops {
namespace {

// send, recv and the barriers: the outputs of recv are the parameters (or
// their row blocks) a server sends back, with the shapes their VarDescs
// declare; the other outputs are control variables that order the ops and
// carry no data. Nothing to infer: the declared types stand.
void keep_declared(ShapeCtx&) {}

// split_byref: Out[i] is rows [offset, offset + sections[i]) of X.
void infer_split_byref(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  const std::vector<int64_t> sections = attr_ints(c.op(), "sections");
  const int n = static_cast<int>(op_outputs(c.op(), "Out").size());
  if (static_cast<int>(sections.size()) != n) {
    c.error("split_byref needs one section per output (" + std::to_string(sections.size()) + " sections, " +
            std::to_string(n) + " outputs)");
    return;
  }
  if (x.dims.empty()) {
    c.error("split_byref splits rows: X has no dims");
    return;
  }
  int64_t rows = 0;
  for (int64_t s : sections) rows += s;
  if (x.dims[0] >= 0 && rows != x.dims[0]) {
    c.error("split_byref sections add up to " + std::to_string(rows) + " rows, X has " + std::to_string(x.dims[0]));
    return;
  }
  for (int i = 0; i < n; ++i) {
    TensorType t = x;
    t.dims[0] = sections[i];
    c.set_output_at("Out", i, t);
  }
}

// The collective ops and the stream syncs write each input back in place: Out[i] is X[i].
void outs_like_xs(ShapeCtx& c) {
  const int n = c.num_inputs("X");
  for (int i = 0; i < n && i < static_cast<int>(op_outputs(c.op(), "Out").size()); ++i)
    c.set_output_at("Out", i, c.input("X", i));
}

constexpr pb::VarType::Type kDense = pb::VarType::LOD_TENSOR;
constexpr unsigned kComm = kCommunication | kSideEffect;

}  // namespace

void add_distributed_ops(std::vector<OpDef>& t) {
  // ---- parameter-server mode (Paddle's DistributeTranspiler) ----
  t.push_back({.type = "send",
               .family = "",
               .inputs = {{"X", false, true}},
               .outputs = {{"Out", true, true}},
               .attrs = {{"epmap", pb::STRINGS, true, false},
                         {"sections", pb::INTS, false, false},
                         {"send_varnames", pb::STRINGS, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared});
  t.push_back({.type = "recv",
               .family = "",
               .inputs = {{"X", true, true}},
               .outputs = {{"Out", false, true}},
               .attrs = {{"epmap", pb::STRINGS, true, false},
                         {"trainer_id", pb::INT, false, false},
                         {"recv_varnames", pb::STRINGS, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared});
  t.push_back({.type = "send_barrier",
               .family = "",
               .inputs = {{"X", true, true}},
               .outputs = {{"Out", true, true}},
               .attrs = {{"endpoints", pb::STRINGS, true, false},
                         {"trainer_id", pb::INT, false, false},
                         {"half_async", pb::BOOLEAN, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared});
  t.push_back({.type = "fetch_barrier",
               .family = "",
               .inputs = {{"X", true, true}},
               .outputs = {{"Out", true, true}},
               .attrs = {{"endpoints", pb::STRINGS, true, false}, {"trainer_id", pb::INT, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared});
  // Splits a gradient into the row blocks that go to different servers
  // (by reference in Paddle: the blocks view the gradient's memory).
  t.push_back({.type = "split_byref",
               .family = "",
               .inputs = {{"X", false, false, kDense}},
               .outputs = {{"Out", false, true, kDense}},
               .attrs = {{"sections", pb::INTS, true, false}},
               .traits = kComm,
               .infer_shape = infer_split_byref});
  // A server's block 0: receives gradients from `Fanin` trainers and runs
  // optimize_blocks[grad_to_block_id[grad]] for each; it has no outputs.
  t.push_back({.type = "listen_and_serv",
               .family = "",
               .inputs = {{"X", true, true}},
               .outputs = {},
               .attrs = {{"endpoint", pb::STRING, true, false},
                         {"Fanin", pb::INT, true, false},
                         {"optimize_blocks", pb::BLOCKS, true, false},
                         {"grad_to_block_id", pb::STRINGS, true, false},
                         {"distributed_mode", pb::INT, false, false},
                         {"pserver_id", pb::INT, false, false}},
               .traits = kComm | kOwnsBlock});

  // ---- collective mode (Paddle's GradAllReduce) ----
  t.push_back({.type = "c_allreduce_sum",
               .family = "",
               .inputs = {{"X", false, false, kDense}, {"Cond", true}},
               .outputs = {{"Out", false, false, kDense}},
               .attrs = {{"ring_id", pb::INT, false, false}, {"use_calc_stream", pb::BOOLEAN, false, false}},
               .traits = kComm,
               .infer_shape = outs_like_xs});
  t.push_back({.type = "c_broadcast",
               .family = "",
               .inputs = {{"X", false, false, kDense}},
               .outputs = {{"Out", false, false, kDense}},
               .attrs = {{"ring_id", pb::INT, false, false},
                         {"root", pb::INT, false, false},
                         {"use_calc_stream", pb::BOOLEAN, false, false}},
               .traits = kComm,
               .infer_shape = outs_like_xs});
  t.push_back({.type = "c_sync_calc_stream",
               .family = "",
               .inputs = {{"X", false, true}},
               .outputs = {{"Out", false, true}},
               .traits = kComm,
               .infer_shape = outs_like_xs});
  t.push_back({.type = "c_sync_comm_stream",
               .family = "",
               .inputs = {{"X", false, true}},
               .outputs = {{"Out", false, true}},
               .attrs = {{"ring_id", pb::INT, false, false}},
               .traits = kComm,
               .infer_shape = outs_like_xs});
}

}  // namespace fluidc::ops
