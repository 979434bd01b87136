// compiler/ir/pir_translate.cc - PIR ops to ProgramDesc ops: values to variables, constants to attributes.
#include "compiler/ir/pir_translate.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "compiler/ir/pir_lowering.h"

namespace fluidc::pir {
namespace {

// Attributes that say where or how Paddle built the op, not what it computes.
bool is_bookkeeping(const std::string& name) {
  return name == "struct_name" || name == "place" || name == "stop_gradient" || name == "persistable" ||
         name == "op_callstack" || name == "op_role" || name == "op_namescope";
}

// A number from the file as int64: clamped, NaN as 0 (a float-to-int cast
// out of range is undefined behaviour).
int64_t to_int64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Which group of scalars an attribute kind writes as in a ProgramDesc list:
// integer widths together, float widths together.
int scalar_group(Attr::Kind k) {
  switch (k) {
    case Attr::kInt32: case Attr::kInt64: case Attr::kDType: return 1;
    case Attr::kFloat32: case Attr::kFloat64: return 2;
    case Attr::kBool: return 3;
    case Attr::kString: return 4;
    default: return 0;
  }
}

// The dtype attribute of an op, when it has one of that kind.
std::optional<pb::VarType::Type> dtype_attr(const Op& op) {
  const Attr* dt = op.attr("dtype");
  if (!dt || dt->kind != Attr::kDType) return std::nullopt;
  return static_cast<pb::VarType::Type>(dt->i);
}

}  // namespace

std::optional<Attr::Kind> Translator::list_kind(const Attr& a) {
  if (a.items.empty()) return Attr::kInt64;
  const int group = scalar_group(a.items[0].kind);
  for (const Attr& e : a.items)
    if (group == 0 || scalar_group(e.kind) != group) return std::nullopt;
  return a.items[0].kind;
}

void Translator::check_lists(const std::vector<Op>& ops) const {
  for (const Op& op : ops) {
    for (const auto& [name, a] : op.attrs)
      if (a.kind == Attr::kArray && !is_bookkeeping(name) && !list_kind(a))
        fail(op, fmt::format("attribute '{}' mixes kinds of elements or nests lists; a ProgramDesc list holds one kind "
                             "of scalar", printable(name)));
    for (const Block& b : op.regions) check_lists(b.ops);
  }
}

pb::ProgramDesc Translator::run() {
  std::map<std::string, int> missing;
  check_supported(pir_.ops, missing);
  if (!missing.empty()) report_unsupported(missing);
  check_lists(pir_.ops);
  block_ = new_block(-1);
  declare_holder("feed", pb::VarType::FEED_MINIBATCH);
  declare_holder("fetch", pb::VarType::FETCH_LIST);
  index_values(pir_.ops);
  name_values(pir_.ops);
  translate_block(pir_.ops);
  return std::move(desc_);
}

void Translator::check_supported(const std::vector<Op>& ops, std::map<std::string, int>& missing) {
  for (const Op& op : ops) {
    const bool control = (op.name == "pd_op.if" && op.regions.size() == 2) ||
                         (op.name == "pd_op.while" && op.regions.size() == 1);
    if (control) {
      for (const Block& b : op.regions) check_supported(b.ops, missing);
    } else if (!is_structural(op.name) &&
               (!op.regions.empty() || op.name.rfind("pd_op.", 0) != 0 || !find_rule(op.name.substr(6)))) {
      ++missing[op.name];
    }
  }
}

void Translator::report_unsupported(const std::map<std::string, int>& missing) const {
  std::string list;
  for (const auto& [name, count] : missing) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", printable(name), count);
  Location l;
  l.file = origin_;
  user_error(l, fmt::format("{} PIR op type{} not supported: {}", missing.size(), missing.size() == 1 ? "" : "s", list));
}

pb::BlockDesc* Translator::top() { return desc_.mutable_blocks(0); }

pb::BlockDesc* Translator::new_block(int parent) {
  pb::BlockDesc* b = desc_.add_blocks();
  b->set_idx(desc_.blocks_size() - 1);
  b->set_parent_idx(parent);
  return b;
}

void Translator::translate_block(const std::vector<Op>& ops) {
  for (const Op& op : ops) translate(op);
}

bool Translator::is_structural(const std::string& name) {
  static const std::set<std::string> names = {"builtin.parameter", "builtin.combine", "builtin.split",
                                              "pd_op.data",        "pd_op.fetch",     "pd_op.full",
                                              "pd_op.full_int_array", "pd_op.shape64", "pd_op.shape",
                                              "pd_op.full_with_tensor", "pd_op.set_value",
                                              "pd_op.set_value_",       "cf.yield"};
  return names.count(name) > 0;
}

void Translator::index_values(const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    for (size_t i = 0; i < op.results.size(); ++i)
      if (op.results[i] != 0) producer_[op.results[i]] = {&op, static_cast<int>(i)};  // 0: a result left out
    if (op.name == "pd_op.fetch" && !op.operands.empty()) ++fetch_count_[op.operands[0]];
    if (op.name == "builtin.split" && !op.operands.empty()) unpacked_[op.operands[0]] = op.results;
    read_.insert(op.operands.begin(), op.operands.end());
    for (const Block& b : op.regions) {
      for (size_t i = 0; i < b.args.size(); ++i) arg_types_[b.args[i]] = b.arg_types[i];
      index_values(b.ops);
    }
  }
}

void Translator::name_values(const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.name == "builtin.parameter") {
      name_value(op, op.results.at(0), string_attr(op, "parameter_name"));
    } else if (op.name == "pd_op.data") {
      if (op.results.size() != 1 || op.results[0] == 0) fail(op, "a data op gives one result");
      name_value(op, op.results[0], string_attr(op, "name"));
    } else if (op.name == "pd_op.fetch" && !op.operands.empty() && fetch_count_[op.operands[0]] == 1) {
      const Op* from = producer_op(op.operands[0]);
      if (from && from->name != "builtin.parameter" && from->name != "pd_op.data" && !names_.count(op.operands[0]))
        name_value(op, op.operands[0], string_attr(op, "name"));
    }
    for (const Block& b : op.regions) name_values(b.ops);
  }
}

void Translator::name_value(const Op& op, int64_t id, const std::string& name) {
  if (name.empty()) fail(op, "an empty variable name");
  if (!used_.insert(name).second) fail(op, fmt::format("variable name '{}' is used twice", printable(name)));
  names_[id] = name;
}

const std::string& Translator::name_of(int64_t id) {
  auto it = names_.find(id);
  if (it != names_.end()) return it->second;
  const Op* op = producer_op(id);
  if (!op) internal_error(fmt::format("PIR value {} has neither a producer nor a name", id));
  return names_[id] = unique_name(fmt::format("{}.tmp_{}", op->name.substr(op->name.find('.') + 1), id));
}

const Type& Translator::type_of(int64_t id) const {
  if (auto it = arg_types_.find(id); it != arg_types_.end()) return it->second;
  auto it = producer_.find(id);
  if (it == producer_.end()) {
    Location l;
    l.file = origin_;
    user_error(l, fmt::format("value {} is used but no op gives it a type (a result numbered 0?)", id));
  }
  return it->second.op->result_types.at(static_cast<size_t>(it->second.index));
}

void Translator::declare_holder(const std::string& name, pb::VarType::Type type) {
  pb::VarDesc* v = top()->add_vars();
  v->set_name(name);
  v->set_persistable(true);
  v->mutable_type()->set_type(type);
  used_.insert(name);
}

void Translator::declare(const Op& op, int64_t id, bool persistable) {
  if (!declared_.insert(id).second) return;
  const Type& t = type_of(id);
  if (t.kind != Type::kTensor) fail(op, fmt::format("value {} is not a dense tensor, which fluidc needs here", id));
  add_tensor_var(name_of(id), t, persistable);
}

void Translator::add_tensor_var(const std::string& name, const Type& t, bool persistable) {
  pb::VarDesc* v = top()->add_vars();
  v->set_name(name);
  v->set_persistable(persistable);
  v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
  auto* td = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
  td->set_data_type(t.dtype);
  for (int64_t d : t.dims) td->add_dims(d);
}

std::string Translator::unique_name(const std::string& base) {
  std::string name = base;
  for (int n = 1; used_.count(name); ++n) name = fmt::format("{}_{}", base, n);
  used_.insert(name);
  return name;
}

std::string Translator::fresh_var(const std::string& base, const Type& t) {
  std::string name = unique_name(base);
  add_tensor_var(name, t, false);
  return name;
}

void Translator::fail(const Op& op, const std::string& message) const {
  user_error(op_location(origin_, op), message);
}

std::string Translator::string_attr(const Op& op, const std::string& name) {
  const Attr* a = op.attr(name);
  return a && a->kind == Attr::kString ? a->s : std::string();
}

const Op* Translator::producer_op(int64_t id) const {
  auto it = producer_.find(id);
  return it == producer_.end() ? nullptr : it->second.op;
}

std::optional<Attr> Translator::constant(int64_t id) const {
  const Op* p = producer_op(id);
  if (!p) return std::nullopt;
  if (p->name == "pd_op.full_int_array") {
    const Attr* v = p->attr("value");
    if (!v) return std::nullopt;
    Attr list{.kind = Attr::kIntArray};
    if (v->kind == Attr::kIntArray) return *v;
    for (const Attr& e : v->items) list.ints.push_back(e.kind == Attr::kFloat32 || e.kind == Attr::kFloat64 ? to_int64(e.f) : e.i);
    return list;
  }
  if (p->name == "pd_op.full") {
    const Attr* v = p->attr("value");
    if (!v) return std::nullopt;
    const double x = v->kind == Attr::kFloat32 || v->kind == Attr::kFloat64 ? v->f : static_cast<double>(v->i);
    const auto dt = dtype_attr(*p);
    const bool is_float = !dt || *dt == pb::VarType::FP32 || *dt == pb::VarType::FP64 || *dt == pb::VarType::FP16 ||
                          *dt == pb::VarType::BF16;
    if (is_float) return Attr{.kind = Attr::kFloat64, .f = x};
    return Attr{.kind = Attr::kInt64, .i = to_int64(x)};
  }
  if (p->name == "builtin.combine") {  // a list of scalar constants
    Attr list{.kind = Attr::kIntArray};
    for (int64_t e : p->operands) {
      auto c = constant(e);
      if (!c || c->kind != Attr::kInt64) return std::nullopt;
      list.ints.push_back(c->i);
    }
    return list;
  }
  return std::nullopt;
}

std::vector<std::string> Translator::args_of(const Op& op, int64_t id) {
  const Op* p = producer_op(id);
  if (p && p->name == "builtin.combine") {
    std::vector<std::string> args;
    for (int64_t e : p->operands) args.push_back(tensor_var(op, e));
    return args;
  }
  return {tensor_var(op, id)};
}

std::string Translator::tensor_var(const Op& op, int64_t id) {
  const Op* p = producer_op(id);
  if (!p && bound_.count(id)) return name_of(id);  // a block argument: its loop variable
  if (!p) fail(op, fmt::format("value {} has no producer", id));
  if (p->name == "builtin.combine") fail(op, fmt::format("value {} is a list where one tensor is expected", id));
  if ((p->name == "pd_op.full" || p->name == "pd_op.full_int_array") && !declared_.count(id)) write_constant(*p, id);
  if (!declared_.count(id) && bound_.count(id)) return name_of(id);  // a loop variable
  if (!declared_.count(id)) fail(op, fmt::format("value {} is read before it is written", id));
  return name_of(id);
}

void Translator::write_constant(const Op& p, int64_t id) {
  declare(p, id);
  auto block = constant_block_.find(id);
  if (block == constant_block_.end()) fail(p, "a constant read before it is defined");
  pb::OpDesc* o = desc_.mutable_blocks(block->second)->add_ops();
  const int dtype = dtype_attr(p).value_or(pb::VarType::FP32);
  const std::optional<Attr> constant_value = constant(id);
  if (!constant_value) fail(p, "a constant without a value");
  const Attr& c = *constant_value;
  if (p.name == "pd_op.full") {
    o->set_type("fill_constant");
    const Attr* shape = p.attr("shape");
    set_attr(*o, "shape", shape ? *shape : Attr{.kind = Attr::kIntArray, .ints = {1}});
    set_attr(*o, "value", Attr{.kind = Attr::kFloat64, .f = c.kind == Attr::kFloat64 ? c.f : static_cast<double>(c.i)});
    if (c.kind == Attr::kInt64) set_attr(*o, "str_value", Attr{.kind = Attr::kString, .s = std::to_string(c.i)});
  } else {
    o->set_type("assign_value");
    set_attr(*o, "shape", Attr{.kind = Attr::kIntArray, .ints = {static_cast<int64_t>(c.ints.size())}});
    const bool i32 = dtype == pb::VarType::INT32;
    Attr values{.kind = Attr::kArray};
    for (int64_t v : c.ints) values.items.push_back({.kind = i32 ? Attr::kInt32 : Attr::kInt64, .i = v});
    set_attr(*o, i32 ? "int32_values" : "int64_values", values);
  }
  set_attr(*o, "dtype", Attr{.kind = Attr::kInt32, .i = dtype});
  add_slot(o->add_outputs(), "Out", {name_of(id)});
}

void Translator::add_slot(pb::OpDesc::Var* v, const std::string& slot, const std::vector<std::string>& args) {
  v->set_parameter(slot);
  for (const auto& a : args) v->add_arguments(a);
}

void Translator::set_attr(pb::OpDesc& o, const std::string& name, const Attr& a) {
  pb::OpDesc::Attr* out = o.add_attrs();
  out->set_name(name);
  switch (a.kind) {
    case Attr::kBool: out->set_type(pb::BOOLEAN), out->set_b(a.b); break;
    case Attr::kInt32: case Attr::kDType: out->set_type(pb::INT), out->set_i(static_cast<int32_t>(a.i)); break;
    case Attr::kInt64: out->set_type(pb::LONG), out->set_l(a.i); break;
    case Attr::kFloat32: out->set_type(pb::FLOAT), out->set_f(static_cast<float>(a.f)); break;
    case Attr::kFloat64: out->set_type(pb::FLOAT64), out->set_float64(a.f); break;
    case Attr::kString: out->set_type(pb::STRING), out->set_s(a.s); break;
    case Attr::kIntArray:
      out->set_type(pb::LONGS);
      for (int64_t v : a.ints) out->add_longs(v);
      break;
    case Attr::kArray: set_list(*out, a); break;
    case Attr::kOther: o.mutable_attrs()->RemoveLast(); break;
  }
}

void Translator::set_list(pb::OpDesc::Attr& out, const Attr& a) {
  const std::optional<Attr::Kind> kind = list_kind(a);
  if (!kind) internal_error(fmt::format("PIR list attribute '{}' reached the lowering unchecked", out.name()));
  switch (*kind) {
    case Attr::kBool: out.set_type(pb::BOOLEANS); for (const Attr& e : a.items) out.add_bools(e.b); break;
    case Attr::kInt32: case Attr::kInt64: case Attr::kDType:
      out.set_type(pb::LONGS); for (const Attr& e : a.items) out.add_longs(e.i); break;
    case Attr::kFloat32: out.set_type(pb::FLOATS); for (const Attr& e : a.items) out.add_floats(static_cast<float>(e.f)); break;
    case Attr::kFloat64: out.set_type(pb::FLOAT64S); for (const Attr& e : a.items) out.add_float64s(e.f); break;
    case Attr::kString: out.set_type(pb::STRINGS); for (const Attr& e : a.items) out.add_strings(e.s); break;
    default: internal_error(fmt::format("PIR list attribute '{}' of no scalar kind", out.name()));
  }
}

void Translator::translate(const Op& op) {
  if (op.name == "builtin.parameter") {
    const Attr* persistable = op.attr("persistable");
    return declare(op, op.results.at(0), !persistable || persistable->b);
  }
  if (op.name == "pd_op.full" || op.name == "pd_op.full_int_array") {
    for (int64_t r : op.results) constant_block_[r] = block_->idx();
    return;  // read through by their users, written where read as a tensor
  }
  if (op.name == "builtin.combine" || op.name == "builtin.split") return;  // read through by their users
  if (op.name == "cf.yield") fail(op, "a yield that does not end an if branch or a while body");
  if (op.name == "pd_op.if") return write_if(op);
  if (op.name == "pd_op.while") return write_while(op);
  if (op.name == "pd_op.data") return write_feed(op);
  if (op.name == "pd_op.fetch") return write_fetch(op);
  if (op.name == "pd_op.shape64" || op.name == "pd_op.shape") return write_shape(op);
  if (op.name == "pd_op.full_with_tensor") return write_full_with_tensor(op);
  if (op.name == "pd_op.set_value" || op.name == "pd_op.set_value_") return write_set_value(op);
  write_ruled(op, *find_rule(op.name.substr(6)));
}

void Translator::write_feed(const Op& op) {
  declare(op, op.results.at(0));
  pb::OpDesc* o = block_->add_ops();
  o->set_type("feed");
  add_slot(o->add_inputs(), "X", {"feed"});
  add_slot(o->add_outputs(), "Out", {name_of(op.results[0])});
  set_attr(*o, "col", Attr{.kind = Attr::kInt32, .i = feeds_++});
}

void Translator::write_fetch(const Op& op) {
  if (op.operands.size() != 1 || op.operands[0] == 0) fail(op, "a fetch needs one operand");
  const std::string var = tensor_var(op, op.operands[0]);
  pb::OpDesc* o = block_->add_ops();
  o->set_type("fetch");
  add_slot(o->add_inputs(), "X", {var});
  add_slot(o->add_outputs(), "Out", {"fetch"});
  set_attr(*o, "col", Attr{.kind = Attr::kInt32, .i = fetches_++});
}

void Translator::write_shape(const Op& op) {
  if (op.operands.size() != 1 || op.operands[0] == 0 || op.results.size() != 1 || op.results[0] == 0)
    fail(op, "shape takes one operand and gives one result");
  const std::string in = tensor_var(op, op.operands[0]);
  declare(op, op.results[0]);
  const Type& t = type_of(op.results[0]);
  std::string shape_var = name_of(op.results[0]);
  if (t.dtype != pb::VarType::INT32) {
    shape_var = fresh_var(shape_var + ".int32", Type{.kind = Type::kTensor, .dtype = pb::VarType::INT32, .dims = t.dims});
  }
  pb::OpDesc* s = block_->add_ops();
  s->set_type("shape");
  add_slot(s->add_inputs(), "Input", {in});
  add_slot(s->add_outputs(), "Out", {shape_var});
  if (shape_var == name_of(op.results[0])) return;
  pb::OpDesc* c = block_->add_ops();
  c->set_type("cast");
  add_slot(c->add_inputs(), "X", {shape_var});
  add_slot(c->add_outputs(), "Out", {name_of(op.results[0])});
  set_attr(*c, "in_dtype", Attr{.kind = Attr::kInt32, .i = pb::VarType::INT32});
  set_attr(*c, "out_dtype", Attr{.kind = Attr::kInt32, .i = t.dtype});
}

void Translator::write_full_with_tensor(const Op& op) {
  if (op.operands.size() != 2 || op.operands[0] == 0 || op.operands[1] == 0 || op.results.size() != 1 ||
      op.results[0] == 0)
    fail(op, "full_with_tensor takes value and shape and gives one result");
  pb::OpDesc* o = block_->add_ops();
  o->set_type("fill_constant");
  if (auto v = constant(op.operands[0]); v && v->kind != Attr::kIntArray)
    set_attr(*o, "value", Attr{.kind = Attr::kFloat64, .f = v->kind == Attr::kFloat64 ? v->f : static_cast<double>(v->i)});
  else
    add_slot(o->add_inputs(), "ValueTensor", {tensor_var(op, op.operands[0])});
  if (auto s = constant(op.operands[1]); s && s->kind == Attr::kIntArray)
    set_attr(*o, "shape", *s);
  else if (producer_op(op.operands[1]) && producer_op(op.operands[1])->name == "builtin.combine")
    add_slot(o->add_inputs(), "ShapeTensorList", args_of(op, op.operands[1]));
  else
    add_slot(o->add_inputs(), "ShapeTensor", {tensor_var(op, op.operands[1])});
  set_attr(*o, "dtype", Attr{.kind = Attr::kInt32, .i = type_of(op.results[0]).dtype});
  declare(op, op.results[0]);
  add_slot(o->add_outputs(), "Out", {name_of(op.results[0])});
}

void Translator::write_ruled(const Op& op, const OpRule& rule) {
  if (op.operands.size() > rule.operands.size())
    fail(op, fmt::format("{} operands; fluidc knows {} for this op", op.operands.size(), rule.operands.size()));
  pb::OpDesc o;
  o.set_type(rule.legacy);
  std::map<std::string, std::vector<std::string>> inputs;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const int64_t id = op.operands[i];
    const OperandRule& r = rule.operands[i];
    if (id == 0 || r.ignored) continue;  // optional and left out, or dropped
    const Op* p = producer_op(id);
    const bool is_list = p && p->name == "builtin.combine";
    if (!r.attr.empty())
      if (auto c = constant(id)) {
        if (r.integer && (c->kind == Attr::kFloat32 || c->kind == Attr::kFloat64)) {
          if (c->f != std::floor(c->f) || std::fabs(c->f) > 9.0e15)
            fail(op, fmt::format("operand {} ({}) must be a whole number, got {}", i, r.attr, c->f));
          c = Attr{.kind = Attr::kInt64, .i = static_cast<int64_t>(c->f)};
        }
        set_attr(o, r.attr, *c);
        continue;
      }
    if (is_list && !r.list_slot.empty()) {
      inputs[r.list_slot] = args_of(op, id);
    } else if (!r.slot.empty()) {
      inputs[r.slot] = args_of(op, id);
      if (r.attr_placeholder) set_attr(o, r.attr, Attr{.kind = Attr::kFloat64, .f = 0.0});
    } else {
      fail(op, r.attr.empty() ? fmt::format("operand {} has no counterpart in fluidc's {}", i, rule.legacy)
                              : fmt::format("operand {} ({}) must be a constant (pd_op.full or full_int_array)",
                                            i, r.attr));
    }
  }
  for (const auto& [slot, args] : inputs) add_slot(o.add_inputs(), slot, args);
  for (const auto& [name, a] : op.attrs) {
    if (is_bookkeeping(name)) continue;
    std::string legacy = name;
    for (const auto& [from, to] : rule.renamed_attrs)
      if (from == name) legacy = to;
    if (legacy == "*_values") {  // assign_value's list, named and typed by the tensor's dtype
      const auto dt = dtype_attr(op);
      if (!dt && (op.results.empty() || op.results[0] == 0)) fail(op, "values without a dtype or a result to take it from");
      const pb::VarType::Type dtype = dt ? *dt : type_of(op.results[0]).dtype;
      const auto [typed_name, typed] = typed_values(op, a, dtype);
      set_attr(o, typed_name, typed);
      continue;
    }
    set_attr(o, legacy, a);
  }
  for (const auto& [name, value] : rule.fixed_attrs) set_attr(o, name, literal(value));
  write_results(op, rule, o);
  *block_->add_ops() = std::move(o);
}

void Translator::write_results(const Op& op, const OpRule& rule, pb::OpDesc& o) {
  std::map<std::string, std::vector<std::string>> outputs;
  for (size_t i = 0; i < op.results.size(); ++i) {
    const int64_t id = op.results[i];
    if (id == 0) continue;
    const std::string slot = i < rule.results.size() ? rule.results[i] : "";
    const Type& t = op.result_types[i];
    if (slot.empty()) {
      if (read_.count(id)) fail(op, fmt::format("result {} is read later but has no counterpart in fluidc's {}", i, rule.legacy));
      continue;
    }
    if (t.kind == Type::kVector) {
      auto& args = outputs[slot];
      auto it = unpacked_.find(id);
      for (size_t e = 0; e < t.elements.size(); ++e) {
        if (it != unpacked_.end() && e < it->second.size() && it->second[e] != 0) {
          const int64_t el = it->second[e];
          declare(op, el);
          args.push_back(name_of(el));
        } else {
          args.push_back(element_var(op, id, e, t.elements[e]));
        }
      }
    } else {
      declare(op, id);
      outputs[slot].push_back(name_of(id));
    }
  }
  for (const auto& [slot, args] : outputs) add_slot(o.add_outputs(), slot, args);
}

std::string Translator::element_var(const Op& op, int64_t id, size_t e, const Type& t) {
  if (t.kind != Type::kTensor) fail(op, fmt::format("result {} holds a non-tensor element", id));
  return fresh_var(fmt::format("{}.{}", name_of(id), e), t);
}

std::pair<std::string, Attr> Translator::typed_values(const Op& op, const Attr& values, pb::VarType::Type dtype) const {
  if (values.kind != Attr::kArray) fail(op, "values: expected a list");
  struct Form {
    const char* name;
    Attr::Kind kind;
  };
  static const std::map<int, Form> forms = {{pb::VarType::FP32, {"fp32_values", Attr::kFloat32}},
                                            {pb::VarType::FP64, {"fp64_values", Attr::kFloat64}},
                                            {pb::VarType::INT32, {"int32_values", Attr::kInt32}},
                                            {pb::VarType::INT64, {"int64_values", Attr::kInt64}},
                                            {pb::VarType::BOOL, {"bool_values", Attr::kBool}}};
  auto it = forms.find(dtype);
  if (it == forms.end())
    fail(op, fmt::format("values of dtype {}: fluidc reads fp32, fp64, int32, int64 and bool", static_cast<int>(dtype)));
  Attr out{.kind = Attr::kArray};
  for (const Attr& e : values.items) {
    const bool is_float = e.kind == Attr::kFloat32 || e.kind == Attr::kFloat64;
    const double v = is_float ? e.f : static_cast<double>(e.kind == Attr::kBool ? e.b : e.i);
    Attr x{.kind = it->second.kind};
    if (x.kind == Attr::kBool) x.b = v != 0;
    else if (x.kind == Attr::kFloat32 || x.kind == Attr::kFloat64) x.f = v;
    else x.i = to_int64(v);
    out.items.push_back(x);
  }
  return {it->second.name, out};
}

Attr Translator::literal(const std::string& text) {
  if (text == "true" || text == "false") return Attr{.kind = Attr::kBool, .b = text == "true"};
  if (text.find('.') != std::string::npos) return Attr{.kind = Attr::kFloat64, .f = std::stod(text)};
  return Attr{.kind = Attr::kInt32, .i = std::stoll(text)};
}

// set_value_(x, starts, ends, steps) {values, shape}: the values become a
// constant tensor (assign_value), fed as the ValueTensor fluidc's
// set_value reads, by set_value_with_tensor's rule.
void Translator::write_set_value(const Op& op) {
  const Attr* values = op.attr("values");
  const Attr* shape = op.attr("shape");
  if (!values || !shape || op.operands.empty() || op.operands[0] == 0) fail(op, "set_value needs x, values and shape");
  const pb::VarType::Type dtype = type_of(op.operands[0]).dtype;
  Type vt{.kind = Type::kTensor, .dtype = dtype};
  if (shape->kind == Attr::kIntArray) vt.dims = shape->ints;
  for (const Attr& d : shape->items) vt.dims.push_back(d.i);
  const int64_t value_id =
      bind_fresh(fresh_var(fmt::format("set_value.values_{}", op.results.empty() ? 0 : op.results[0]), vt));
  pb::OpDesc* a = block_->add_ops();
  a->set_type("assign_value");
  set_attr(*a, "shape", Attr{.kind = Attr::kIntArray, .ints = vt.dims});
  set_attr(*a, "dtype", Attr{.kind = Attr::kInt32, .i = dtype});
  const auto [typed_name, typed] = typed_values(op, *values, dtype);
  set_attr(*a, typed_name, typed);
  add_slot(a->add_outputs(), "Out", {name_of(value_id)});
  Op with_tensor = op;
  with_tensor.name = "pd_op.set_value_with_tensor";
  with_tensor.operands.insert(with_tensor.operands.begin() + 1, value_id);
  std::erase_if(with_tensor.attrs, [](const auto& attr) { return attr.first == "values"; });
  write_ruled(with_tensor, *find_rule("set_value_with_tensor"));
}

// A variable that no PIR op produces, under an id of its own, so operands
// can name it (block arguments are bound the same way).
int64_t Translator::bind_fresh(const std::string& var) {
  const int64_t id = next_bound_id_++;
  names_[id] = var;
  bound_.insert(id);
  return id;
}

pb::ProgramDesc translate(const Program& pir, const std::string& origin) { return Translator(pir, origin).run(); }

}  // namespace fluidc::pir
