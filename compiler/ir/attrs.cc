// compiler/ir/attrs.cc - typed attribute access for OpDescs.
#include "compiler/ir/attrs.h"

#include <fmt/format.h>

namespace fluidc {
namespace {

enum class Kind { kInt, kFloat, kIntList, kFloatList, kOther };

Kind kind_of(pb::AttrType t) {
  switch (t) {
    case pb::INT: case pb::LONG: return Kind::kInt;
    case pb::FLOAT: case pb::FLOAT64: return Kind::kFloat;
    case pb::INTS: case pb::LONGS: return Kind::kIntList;
    case pb::FLOATS: case pb::FLOAT64S: return Kind::kFloatList;
    default: return Kind::kOther;
  }
}

}  // namespace

const pb::OpDesc::Attr* find_attr(const pb::OpDesc& op, const std::string& name) {
  for (const auto& a : op.attrs())
    if (a.name() == name) return &a;
  return nullptr;
}

bool attr_type_compatible(pb::AttrType have, pb::AttrType want) {
  if (have == want) return true;
  // Old Fluid programs write some flags (batch_norm's is_test) as INT;
  // attr_bool reads them as nonzero.
  if (want == pb::BOOLEAN && kind_of(have) == Kind::kInt) return true;
  Kind k = kind_of(want);
  if (k == Kind::kOther) return false;
  if (kind_of(have) == k) return true;
  // An empty list is written with whatever list type the writer chose.
  return (k == Kind::kIntList || k == Kind::kFloatList) &&
         (kind_of(have) == Kind::kIntList || kind_of(have) == Kind::kFloatList);
}

int64_t attr_int(const pb::OpDesc& op, const std::string& name, int64_t fallback) {
  const auto* a = find_attr(op, name);
  if (!a) return fallback;
  switch (a->type()) {
    case pb::LONG: return a->l();
    case pb::BOOLEAN: return a->b();
    case pb::BLOCK: return a->block_idx();
    case pb::FLOAT: return static_cast<int64_t>(a->f());
    default: return a->i();
  }
}

double attr_float(const pb::OpDesc& op, const std::string& name, double fallback) {
  const auto* a = find_attr(op, name);
  if (!a) return fallback;
  switch (a->type()) {
    case pb::FLOAT64: return a->float64();
    case pb::INT: return a->i();
    case pb::LONG: return static_cast<double>(a->l());
    case pb::SCALAR: return a->scalar().has_r() ? a->scalar().r() : static_cast<double>(a->scalar().i());
    default: return a->f();
  }
}

bool attr_bool(const pb::OpDesc& op, const std::string& name, bool fallback) {
  const auto* a = find_attr(op, name);
  if (!a) return fallback;
  return a->type() == pb::BOOLEAN ? a->b() : a->i() != 0;
}

std::string attr_string(const pb::OpDesc& op, const std::string& name, const std::string& fallback) {
  const auto* a = find_attr(op, name);
  return a ? a->s() : fallback;
}

std::vector<int64_t> attr_ints(const pb::OpDesc& op, const std::string& name) {
  const auto* a = find_attr(op, name);
  if (!a) return {};
  if (a->type() == pb::LONGS) return {a->longs().begin(), a->longs().end()};
  return {a->ints().begin(), a->ints().end()};
}

std::vector<double> attr_floats(const pb::OpDesc& op, const std::string& name) {
  const auto* a = find_attr(op, name);
  if (!a) return {};
  if (a->type() == pb::FLOAT64S) return {a->float64s().begin(), a->float64s().end()};
  return {a->floats().begin(), a->floats().end()};
}

std::vector<std::string> slot_args(const google::protobuf::RepeatedPtrField<pb::OpDesc::Var>& vars,
                                   const std::string& slot) {
  std::vector<std::string> out;
  for (const auto& v : vars) {
    if (v.parameter() != slot) continue;
    for (const auto& a : v.arguments())
      if (!is_empty_var_name(a)) out.push_back(a);
  }
  return out;
}

std::vector<std::string> op_inputs(const pb::OpDesc& op, const std::string& slot) {
  return slot_args(op.inputs(), slot);
}

std::vector<std::string> op_outputs(const pb::OpDesc& op, const std::string& slot) {
  return slot_args(op.outputs(), slot);
}

std::string attr_value_str(const pb::OpDesc::Attr& a) {
  auto list = [](const auto& xs) { return fmt::format("[{}]", fmt::join(xs, ", ")); };
  switch (a.type()) {
    case pb::INT: return std::to_string(a.i());
    case pb::LONG: return std::to_string(a.l());
    case pb::FLOAT: return fmt::format("{}", a.f());
    case pb::FLOAT64: return fmt::format("{}", a.float64());
    case pb::STRING: return fmt::format("\"{}\"", a.s());
    case pb::BOOLEAN: return a.b() ? "true" : "false";
    case pb::INTS: return list(a.ints());
    case pb::LONGS: return list(a.longs());
    case pb::FLOATS: return list(a.floats());
    case pb::FLOAT64S: return list(a.float64s());
    case pb::BOOLEANS: return list(a.bools());
    case pb::STRINGS: return fmt::format("[{} strings]", a.strings_size());
    case pb::BLOCK: return fmt::format("block {}", a.block_idx());
    case pb::BLOCKS: return fmt::format("blocks {}", list(a.blocks_idx()));
    case pb::VAR: return a.var_name();
    case pb::VARS: return list(a.vars_name());
    case pb::SCALAR: return fmt::format("scalar({})", a.scalar().ShortDebugString());
    case pb::SCALARS: return fmt::format("[{} scalars]", a.scalars_size());
  }
  return "?";
}

}  // namespace fluidc
