// compiler/ops/distributed.cc - the ops the distribute pass writes: parameter-server RPC and collective communication.
//
// These ops talk to other processes (trainers, parameter servers, collective
// peers). They carry the kCommunication trait: the pipeline and `fluidc
// ops` ask for it, and `fluidc build`/`emit` refuse a program holding one
// until a distributed runtime exists (docs/distributed.md). Slots and
// attributes are Paddle's (its send_recv and collective ops), so the
// programs the pass writes load in Paddle and fluidc alike. The
// parameter-server ops compile to calls into runtime/dist (kernels/dist.h,
// family "dist", gRPC), the collective ops to calls into runtime/coll
// (kernels/coll.h, family "coll", MPI; on the CUDA target NCCL,
// kernels/cuda/coll.h); only binaries holding them link those libraries.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/emit_ctx.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "compiler/support/escape.h"

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

// ---- CPU code: calls into runtime/dist (names reach it as escaped literals) ----

std::vector<std::string> attr_strings(const pb::OpDesc& op, const std::string& name) {
  const pb::OpDesc::Attr* a = find_attr(op, name);
  return a ? std::vector<std::string>(a->strings().begin(), a->strings().end()) : std::vector<std::string>{};
}

std::string literal_list(const std::vector<std::string>& xs) {
  std::vector<std::string> lits;
  for (const auto& x : xs) lits.push_back(cpp_string_literal(x));
  return fmt::format("{{{}}}", fmt::join(lits, ", "));
}

// The binary's server list, the order launch lists (PADDLE_PSERVERS_IP_PORT_LIST)
// follow: a barrier's `endpoints` (every server, in --pservers order) in
// the op's program or the other one built with it (an async trainer's main
// program has no barrier; its startup's fetch_barrier has the list), else
// the servers of the ops' epmaps in order of first use.
std::vector<std::string> program_endpoints(const EmitCtx& c) {
  for (const Program* p : {&c.program(), c.companion()})
    if (p)
      for (const auto& op : p->block(0).ops())
        if (auto e = attr_strings(op, "endpoints"); !e.empty()) return e;
  std::vector<std::string> eps;
  std::set<std::string> seen;
  for (const auto& op : c.program().block(0).ops())
    for (const auto& e : attr_strings(op, "epmap"))
      if (seen.insert(e).second) eps.push_back(e);
  return eps;
}

// The trainer the program was split for: its recv and barrier ops say (send does not).
int program_trainer_id(const Program& p) {
  for (const auto& op : p.block(0).ops())
    if (find_attr(op, "trainer_id")) return static_cast<int>(attr_int(op, "trainer_id", 0));
  return 0;
}

std::string tensor_list(EmitCtx& c, const std::vector<std::string>& names) {
  std::vector<std::string> ptrs;
  for (const auto& n : names) ptrs.push_back("&" + c.var(n));
  return fmt::format("{{{}}}", fmt::join(ptrs, ", "));
}

// send / recv: X (send) or Out (recv) paired with epmap.
void emit_send_recv(EmitCtx& c, bool is_send) {
  const auto names = is_send ? op_inputs(c.op(), "X") : op_outputs(c.op(), "Out");
  const auto epmap = attr_strings(c.op(), "epmap");
  if (epmap.size() != names.size())
    user_error(fmt::format("{}: {} variables but {} endpoints in epmap", c.op().type(), names.size(), epmap.size()));
  if (names.empty()) return;
  const auto all = program_endpoints(c);
  c.body() << fmt::format(
      "  {{\n    static const char* const names[] = {};\n    static const char* const epmap[] = {};\n"
      "    static const char* const all[] = {};\n    {} const vars[] = {};\n"
      "    fluidc::dist::{}({}, names, vars, epmap, {}, all, {});\n  }}\n",
      literal_list(names), literal_list(epmap), literal_list(all), is_send ? "const Tensor*" : "Tensor*",
      tensor_list(c, names), is_send ? "send" : "recv",
      is_send ? program_trainer_id(c.program()) : attr_int(c.op(), "trainer_id", 0), names.size(), all.size());
}
void emit_send(EmitCtx& c) { emit_send_recv(c, true); }
void emit_recv(EmitCtx& c) { emit_send_recv(c, false); }

void emit_barrier(EmitCtx& c, int kind) {
  const auto eps = attr_strings(c.op(), "endpoints");
  if (eps.empty()) return;
  c.body() << fmt::format("  {{\n    static const char* const eps[] = {};\n    fluidc::dist::barrier({}, {}, eps, {});\n  }}\n",
                          literal_list(eps), attr_int(c.op(), "trainer_id", 0), kind, eps.size());
}
void emit_send_barrier(EmitCtx& c) { emit_barrier(c, 0); }
void emit_fetch_barrier(EmitCtx& c) { emit_barrier(c, 1); }

void emit_split_byref(EmitCtx& c) {
  const auto outs = op_outputs(c.op(), "Out");
  const auto sections = attr_ints(c.op(), "sections");
  if (sections.size() != outs.size())
    user_error(fmt::format("split_byref: {} outputs but {} sections", outs.size(), sections.size()));
  std::vector<std::string> secs;
  for (int64_t s : sections) secs.push_back(std::to_string(s));
  c.body() << fmt::format("  {{\n    Tensor* const outs[] = {};\n    static const int64_t sections[] = {{{}}};\n"
                          "    k::split_byref({}, outs, {}, sections);\n  }}\n",
                          tensor_list(c, outs), fmt::join(secs, ", "), c.var(op_inputs(c.op(), "X").at(0)),
                          outs.size());
}

// The optimize block of each received gradient (listen_and_serv's X), from
// grad_to_block_id ("name:block", the block one of optimize_blocks): -1
// where there is none, which async mode (distributed_mode 1: each gradient
// runs its own block on arrival) refuses; sync mode runs every block once.
// Returns the error ("" when there is none); the entries are untrusted text.
std::string gradient_blocks(const pb::OpDesc& op, std::vector<int>& out) {
  std::set<int> blocks;
  if (const pb::OpDesc::Attr* a = find_attr(op, "optimize_blocks")) blocks.insert(a->blocks_idx().begin(), a->blocks_idx().end());
  std::map<std::string, int> by_grad;
  for (const std::string& entry : attr_strings(op, "grad_to_block_id")) {
    const size_t colon = entry.rfind(':');
    const std::string digits = colon == std::string::npos ? "" : entry.substr(colon + 1);
    int b = -1;
    if (!digits.empty() && digits.size() < 9 && digits.find_first_not_of("0123456789") == std::string::npos)
      b = std::stoi(digits);
    if (!blocks.count(b))
      return fmt::format("grad_to_block_id entry '{}' does not name one of its optimize blocks", printable(entry));
    by_grad[entry.substr(0, colon)] = b;
  }
  const bool async = attr_int(op, "distributed_mode", 0) == 1;
  out.clear();
  for (const std::string& g : op_inputs(op, "X")) {
    auto it = by_grad.find(g);
    if (it == by_grad.end() && async)
      return fmt::format("the received gradient '{}' has no optimize block in grad_to_block_id (async mode runs "
                         "each gradient's own block)",
                         printable(g));
    out.push_back(it == by_grad.end() ? -1 : it->second);
  }
  return "";
}

// listen_and_serv's attributes, checked (with the op's location) before any code is made.
void infer_listen_and_serv(ShapeCtx& c) {
  std::vector<int> recv_block;
  if (std::string e = gradient_blocks(c.op(), recv_block); !e.empty()) c.error(e);
}

// listen_and_serv: block 0 of a server. Trainers' gradients land in X; every
// other tensor of block 0 may be fetched (the parameter slices); an update
// runs every optimize block once (sync mode: all trainers' gradients are in).
void emit_listen_and_serv(EmitCtx& c) {
  const auto recv = op_inputs(c.op(), "X");
  const std::set<std::string> received(recv.begin(), recv.end());
  std::vector<std::string> serve;
  for (const auto& v : c.program().block(0).vars())
    if (is_dense_tensor(v) && !received.count(v.name()) && c.has_var(v.name())) serve.push_back(v.name());
  std::vector<std::string> calls, cases;
  std::set<int> blocks;
  if (const pb::OpDesc::Attr* a = find_attr(c.op(), "optimize_blocks"))
    for (int b : a->blocks_idx()) {
      if (b <= 0 || b >= c.program().num_blocks())
        user_error(fmt::format("listen_and_serv: optimize block {} is not a sub-block of the program", b));
      calls.push_back(c.block_fn(b) + "();");
      if (blocks.insert(b).second) cases.push_back(fmt::format("case {}: {}(); break;", b, c.block_fn(b)));
    }
  const int mode = static_cast<int>(attr_int(c.op(), "distributed_mode", 0));
  std::vector<int> recv_block;
  if (std::string e = gradient_blocks(c.op(), recv_block); !e.empty())  // infer_listen_and_serv reported it first
    user_error("listen_and_serv: " + e);
  c.body() << fmt::format(
      "  {{\n    static const char* const recv_names[] = {};\n    Tensor* const recv_vars[] = {};\n"
      "    static const char* const serve_names[] = {};\n    Tensor* const serve_vars[] = {};\n"
      "    static const int recv_block[] = {{{}}};\n"
      "    fluidc::dist::ServeSpec spec{{{}, {}, {}, recv_names, recv_vars, {}, serve_names, serve_vars, {},\n"
      "                                 [this] {{ {} }}, recv_block,\n"
      "                                 [this](int b) {{ switch (b) {{ {} default: break; }} }}}};\n"
      "    fluidc::dist::listen_and_serv(spec);\n  }}\n",
      recv.empty() ? "{nullptr}" : literal_list(recv), recv.empty() ? "{nullptr}" : tensor_list(c, recv),
      serve.empty() ? "{nullptr}" : literal_list(serve), serve.empty() ? "{nullptr}" : tensor_list(c, serve),
      recv_block.empty() ? "-1" : fmt::format("{}", fmt::join(recv_block, ", ")),
      cpp_string_literal(attr_string(c.op(), "endpoint", "")), attr_int(c.op(), "Fanin", 1), mode, recv.size(),
      serve.size(), fmt::join(calls, " "), fmt::join(cases, " "));
}

// ---- CPU code of the collective ops: calls into runtime/coll (MPI) ----

// The ranks the program was split for: the distribute pass scales the loss
// gradient's seed (the op with op_role Backward|Loss) by 1/N in place right
// after it. 0 when the program does not say (then the runtime cannot check).
int program_nranks(const Program& p) {
  const auto& ops = p.block(0).ops();
  for (int i = 0; i + 1 < ops.size(); ++i) {
    const int role = static_cast<int>(attr_int(ops[i], "op_role", 0));
    if (!(role & kOpRoleBackward) || !(role & kOpRoleLoss) || ops[i + 1].type() != "scale") continue;
    const auto outs = op_outputs(ops[i + 1], "Out");
    const double scale = attr_float(ops[i + 1], "scale", 1.0);
    if (outs.size() != 1 || op_inputs(ops[i + 1], "X") != outs || !(scale > 0 && scale < 1)) continue;
    const double n = 1.0 / scale;
    if (std::abs(n - std::round(n)) < 1e-3) return static_cast<int>(std::round(n));
  }
  return 0;
}

// One X and one Out (Paddle's slots); Out is usually X (in place).
std::pair<std::string, std::string> one_in_out(EmitCtx& c) {
  const auto xs = op_inputs(c.op(), "X");
  const auto outs = op_outputs(c.op(), "Out");
  if (xs.size() != 1 || outs.size() != 1)
    user_error(fmt::format("{}: one X and one Out expected, got {} and {}", c.op().type(), xs.size(), outs.size()));
  return {xs[0], outs[0]};
}

void emit_c_allreduce_sum(EmitCtx& c) {
  const auto [x, out] = one_in_out(c);
  c.body() << fmt::format("  fluidc::coll::allreduce_sum({}, {}, {}, {});\n", c.var(x), c.var(out),
                          attr_int(c.op(), "ring_id", 0), program_nranks(c.program()));
}

void emit_c_broadcast(EmitCtx& c) {
  const auto [x, out] = one_in_out(c);
  c.body() << fmt::format("  fluidc::coll::broadcast({}, {}, {}, {});\n", c.var(x), c.var(out),
                          attr_int(c.op(), "root", 0), attr_int(c.op(), "ring_id", 0));
}

// c_sync_calc_stream / c_sync_comm_stream order GPU streams (compute before
// the all-reduce reads a gradient; the all-reduce before the optimizer
// reads it). On the CPU every op and every collective is a blocking call in
// program order, so there is nothing to wait for: no code. They are written
// in place (Out is X); anything else would need a copy they do not make.
void emit_stream_sync(EmitCtx& c) {
  const auto xs = op_inputs(c.op(), "X");
  if (xs != op_outputs(c.op(), "Out"))
    user_error(fmt::format("{}: Out must be X (the op syncs in place)", c.op().type()));
  c.body() << fmt::format("  // {}: nothing to do on the CPU (blocking collectives)\n", c.op().type());
}

// ---- CUDA code of the collective ops (main program): NCCL on the device tensors ----
// (runtime/coll/nccl_ops.h, through kernels/cuda/coll.h). The startup program
// runs on the host mirrors in the CUDA target, so its c_broadcast takes the
// CPU hook above (MPI): rank 0's initial values reach the others before the
// first step uploads them.

void emit_c_allreduce_sum_cuda(EmitCtx& c) {
  const auto [x, out] = one_in_out(c);
  c.body() << fmt::format("  fluidc::coll::nccl_allreduce_sum({}, {}, {}, {});\n", c.var(x), c.var(out),
                          attr_int(c.op(), "ring_id", 0), program_nranks(c.program()));
}

void emit_c_broadcast_cuda(EmitCtx& c) {
  const auto [x, out] = one_in_out(c);
  c.body() << fmt::format("  fluidc::coll::nccl_broadcast({}, {}, {}, {});\n", c.var(x), c.var(out),
                          attr_int(c.op(), "root", 0), attr_int(c.op(), "ring_id", 0));
}

// Every kernel and every NCCL call of a step goes on the step's one stream,
// so compute is ordered before the all-reduce that reads a gradient and the
// all-reduce before the optimizer that reads it: the syncs have nothing to
// add. (Paddle needs them because its NCCL calls run on a stream of their own.)
void emit_stream_sync_cuda(EmitCtx& c) {
  const auto xs = op_inputs(c.op(), "X");
  if (xs != op_outputs(c.op(), "Out"))
    user_error(fmt::format("{}: Out must be X (the op syncs in place)", c.op().type()));
  c.body() << fmt::format("  // {}: nothing to do (kernels and NCCL share the step's stream)\n", c.op().type());
}

constexpr pb::VarType::Type kDense = pb::VarType::LOD_TENSOR;
constexpr unsigned kComm = kCommunication | kSideEffect;

}  // namespace

void add_distributed_ops(std::vector<OpDef>& t) {
  // ---- parameter-server mode (Paddle's DistributeTranspiler) ----
  t.push_back({.type = "send",
               .family = "dist",
               .inputs = {{"X", false, true}},
               .outputs = {{"Out", true, true}},
               .attrs = {{"epmap", pb::STRINGS, true, false},
                         {"sections", pb::INTS, false, false},
                         {"send_varnames", pb::STRINGS, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared,
               .emit_cpu = emit_send});
  t.push_back({.type = "recv",
               .family = "dist",
               .inputs = {{"X", true, true}},
               .outputs = {{"Out", false, true}},
               .attrs = {{"epmap", pb::STRINGS, true, false},
                         {"trainer_id", pb::INT, false, false},
                         {"recv_varnames", pb::STRINGS, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared,
               .emit_cpu = emit_recv});
  t.push_back({.type = "send_barrier",
               .family = "dist",
               .inputs = {{"X", true, true}},
               .outputs = {{"Out", true, true}},
               .attrs = {{"endpoints", pb::STRINGS, true, false},
                         {"trainer_id", pb::INT, false, false},
                         {"half_async", pb::BOOLEAN, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared,
               .emit_cpu = emit_send_barrier});
  t.push_back({.type = "fetch_barrier",
               .family = "dist",
               .inputs = {{"X", true, true}},
               .outputs = {{"Out", true, true}},
               .attrs = {{"endpoints", pb::STRINGS, true, false}, {"trainer_id", pb::INT, false, false}},
               .traits = kComm,
               .infer_shape = keep_declared,
               .emit_cpu = emit_fetch_barrier});
  // Splits a gradient into the row blocks that go to different servers
  // (by reference in Paddle: the blocks view the gradient's memory).
  t.push_back({.type = "split_byref",
               .family = "dist",
               .inputs = {{"X", false, false, kDense}},
               .outputs = {{"Out", false, true, kDense}},
               .attrs = {{"sections", pb::INTS, true, false}},
               .traits = kComm,
               .infer_shape = infer_split_byref,
               .emit_cpu = emit_split_byref});
  // A server's block 0: receives gradients from `Fanin` trainers and runs
  // optimize_blocks[grad_to_block_id[grad]] for each; it has no outputs.
  t.push_back({.type = "listen_and_serv",
               .family = "dist",
               .inputs = {{"X", true, true}},
               .outputs = {},
               .attrs = {{"endpoint", pb::STRING, true, false},
                         {"Fanin", pb::INT, true, false},
                         {"optimize_blocks", pb::BLOCKS, true, false},
                         {"grad_to_block_id", pb::STRINGS, true, false},
                         {"distributed_mode", pb::INT, false, false},
                         {"pserver_id", pb::INT, false, false}},
               .traits = kComm | kOwnsBlock,
               .infer_shape = infer_listen_and_serv,
               .emit_cpu = emit_listen_and_serv});

  // ---- collective mode (Paddle's GradAllReduce) ----
  t.push_back({.type = "c_allreduce_sum",
               .family = "coll",
               .inputs = {{"X", false, false, kDense}, {"Cond", true}},
               .outputs = {{"Out", false, false, kDense}},
               .attrs = {{"ring_id", pb::INT, false, false}, {"use_calc_stream", pb::BOOLEAN, false, false}},
               .traits = kComm,
               .infer_shape = outs_like_xs,
               .emit_cpu = emit_c_allreduce_sum,
               .emit_cuda = emit_c_allreduce_sum_cuda});
  t.push_back({.type = "c_broadcast",
               .family = "coll",
               .inputs = {{"X", false, false, kDense}},
               .outputs = {{"Out", false, false, kDense}},
               .attrs = {{"ring_id", pb::INT, false, false},
                         {"root", pb::INT, false, false},
                         {"use_calc_stream", pb::BOOLEAN, false, false}},
               .traits = kComm,
               .infer_shape = outs_like_xs,
               .emit_cpu = emit_c_broadcast,
               .emit_cuda = emit_c_broadcast_cuda});
  t.push_back({.type = "c_sync_calc_stream",
               .family = "coll",
               .inputs = {{"X", false, true}},
               .outputs = {{"Out", false, true}},
               .traits = kComm,
               .infer_shape = outs_like_xs,
               .emit_cpu = emit_stream_sync,
               .emit_cuda = emit_stream_sync_cuda});
  t.push_back({.type = "c_sync_comm_stream",
               .family = "coll",
               .inputs = {{"X", false, true}},
               .outputs = {{"Out", false, true}},
               .attrs = {{"ring_id", pb::INT, false, false}},
               .traits = kComm,
               .infer_shape = outs_like_xs,
               .emit_cpu = emit_stream_sync,
               .emit_cuda = emit_stream_sync_cuda});
}

}  // namespace fluidc::ops
