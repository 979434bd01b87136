// test/unit/transpilers/program_describe.cc - describe_program: the C++ twin of describe() in tools/fixtures_distribute.py.
#include "test/unit/transpilers/program_describe.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace fluidc::test {
namespace {

const std::map<std::string, std::vector<std::string>>& key_attrs() {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"send", {"epmap", "sections", "op_role"}},
      {"recv", {"epmap", "trainer_id", "op_role"}},
      {"send_barrier", {"endpoints", "trainer_id", "half_async", "op_role"}},
      {"fetch_barrier", {"endpoints", "trainer_id", "op_role"}},
      {"split_byref", {"sections", "op_role"}},
      {"concat", {"axis"}},
      {"listen_and_serv",
       {"endpoint", "pserver_id", "Fanin", "distributed_mode", "grad_to_block_id", "optimize_blocks",
        "lr_decay_block_id"}},
      {"scale", {"scale"}},
      {"c_allreduce_sum", {"ring_id", "op_role"}},
      {"c_broadcast", {"ring_id", "root", "op_role"}},
      {"c_sync_calc_stream", {"op_role"}},
      {"c_sync_comm_stream", {"ring_id", "op_role"}},
      {"uniform_random", {"shape"}},
      {"gaussian_random", {"shape"}},
      {"truncated_gaussian_random", {"shape"}},
      {"fill_constant", {"shape"}},
  };
  return k;
}

const std::string kControl = "__control_var@";

template <class Seq>
std::string list(const Seq& s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

std::string attr_str(const pb::OpDesc::Attr& a) {
  switch (a.type()) {
    case pb::INT: return std::to_string(a.i());
    case pb::LONG: return std::to_string(a.l());
    case pb::FLOAT: return fmt::format("{:.6g}", a.f());
    case pb::FLOAT64: return fmt::format("{:.6g}", a.float64());
    case pb::BOOLEAN: return a.b() ? "true" : "false";
    case pb::STRING: return a.s();
    case pb::INTS: return list(a.ints());
    case pb::LONGS: return list(a.longs());
    case pb::STRINGS: {
      std::vector<std::string> v(a.strings().begin(), a.strings().end());
      if (a.name() == "grad_to_block_id") std::sort(v.begin(), v.end());  // Paddle builds it from a set
      return list(v);
    }
    case pb::BLOCK: return std::to_string(a.block_idx());
    case pb::BLOCKS: return list(a.blocks_idx());
    default: return "?";
  }
}

}  // namespace

std::string describe_program(const pb::ProgramDesc& prog) {
  std::map<std::string, std::string> control;
  auto name = [&](const std::string& n) {
    if (n.rfind(kControl, 0) != 0) return n;
    auto it = control.find(n);
    if (it == control.end()) it = control.emplace(n, fmt::format("@C{}", control.size())).first;
    return it->second;
  };
  std::string out;
  for (const auto& b : prog.blocks()) {
    out += fmt::format("block {} parent {}\n", b.idx(), b.parent_idx());
    for (const auto& op : b.ops()) {
      auto slots = [&](const google::protobuf::RepeatedPtrField<pb::OpDesc::Var>& vs) {
        std::vector<const pb::OpDesc::Var*> sorted;
        for (const auto& v : vs)
          if (v.arguments_size() > 0) sorted.push_back(&v);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto* x, const auto* y) { return x->parameter() < y->parameter(); });
        std::vector<std::string> parts;
        for (const auto* v : sorted) {
          std::vector<std::string> args;
          for (const auto& a : v->arguments()) args.push_back(name(a));
          parts.push_back(fmt::format("{}=[{}]", v->parameter(), fmt::join(args, ",")));
        }
        return fmt::format("{}", fmt::join(parts, ";"));
      };
      const std::string ins = slots(op.inputs());
      const std::string outs = slots(op.outputs());
      std::vector<std::string> attrs;
      auto keys = key_attrs().find(op.type());
      if (keys != key_attrs().end())
        for (const auto& k : keys->second)
          for (const auto& a : op.attrs())
            if (a.name() == k) {
              attrs.push_back(k + "=" + attr_str(a));
              break;
            }
      out += fmt::format("  op {} in{{{}}} out{{{}}} attrs{{{}}}\n", op.type(), ins, outs, fmt::join(attrs, ";"));
    }
    std::vector<const pb::VarDesc*> vars;
    for (const auto& v : b.vars())
      if (v.name().rfind(kControl, 0) != 0) vars.push_back(&v);
    std::sort(vars.begin(), vars.end(), [](const auto* x, const auto* y) { return x->name() < y->name(); });
    for (const auto* v : vars) {
      std::string desc;
      if (v->type().type() == pb::VarType::LOD_TENSOR) {
        const auto& td = v->type().lod_tensor().tensor();
        desc = fmt::format("dtype={} dims={}", static_cast<int>(td.data_type()), list(td.dims()));
      } else {
        desc = fmt::format("type={}", static_cast<int>(v->type().type()));
      }
      out += fmt::format("  var {} {} persistable={}\n", v->name(), desc, v->persistable() ? 1 : 0);
    }
  }
  return out;
}

}  // namespace fluidc::test
