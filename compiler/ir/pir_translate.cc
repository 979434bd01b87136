// compiler/ir/pir_translate.cc - PIR ops to ProgramDesc ops: values to variables, constants to attributes.
#include "compiler/ir/pir_translate.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "compiler/ir/pir_ops.h"

namespace fluidc::pir {
namespace {

// Attributes that say where or how Paddle built the op, not what it computes.
bool is_bookkeeping(const std::string& name) {
  return name == "struct_name" || name == "place" || name == "stop_gradient" || name == "persistable" ||
         name == "op_callstack" || name == "op_role" || name == "op_namescope";
}

class Translator {
 public:
  Translator(const Program& pir, const std::string& origin) : pir_(pir), origin_(origin) {}

  pb::ProgramDesc run() {
    std::map<std::string, int> missing;
    check_supported(pir_.ops, missing);
    if (!missing.empty()) report_unsupported(missing);
    block_ = new_block(-1);
    declare_holder("feed", pb::VarType::FEED_MINIBATCH);
    declare_holder("fetch", pb::VarType::FETCH_LIST);
    index_values(pir_.ops);
    name_values(pir_.ops);
    translate_block(pir_.ops);
    return std::move(desc_);
  }

 private:
  // Every op without a translation, listed at once.
  static void check_supported(const std::vector<Op>& ops, std::map<std::string, int>& missing) {
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

  void report_unsupported(const std::map<std::string, int>& missing) const {
    std::string list;
    for (const auto& [name, count] : missing) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", printable(name), count);
    Location l;
    l.file = origin_;
    user_error(l, fmt::format("{} PIR op type{} not supported: {}", missing.size(), missing.size() == 1 ? "" : "s", list));
  }

  pb::BlockDesc* top() { return desc_.mutable_blocks(0); }

  pb::BlockDesc* new_block(int parent) {
    pb::BlockDesc* b = desc_.add_blocks();
    b->set_idx(desc_.blocks_size() - 1);
    b->set_parent_idx(parent);
    return b;
  }

  void translate_block(const std::vector<Op>& ops) {
    for (const Op& op : ops) translate(op);
  }

  static bool is_structural(const std::string& name) {
    static const std::set<std::string> names = {"builtin.parameter", "builtin.combine", "builtin.split",
                                                "pd_op.data",        "pd_op.fetch",     "pd_op.full",
                                                "pd_op.full_int_array", "pd_op.shape64", "pd_op.shape",
                                                "pd_op.full_with_tensor", "cf.yield"};
    return names.count(name) > 0;
  }

  // Producers, block arguments' types, and what each value's readers are,
  // over every block.
  void index_values(const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      for (size_t i = 0; i < op.results.size(); ++i) producer_[op.results[i]] = {&op, static_cast<int>(i)};
      if (op.name == "pd_op.fetch" && !op.operands.empty()) ++fetch_count_[op.operands[0]];
      if (op.name == "builtin.split" && !op.operands.empty()) unpacked_[op.operands[0]] = op.results;
      read_.insert(op.operands.begin(), op.operands.end());
      for (const Block& b : op.regions) {
        for (size_t i = 0; i < b.args.size(); ++i) arg_types_[b.args[i]] = b.arg_types[i];
        index_values(b.ops);
      }
    }
  }

  // Names decided before any op is written: parameters and data keep
  // theirs, a fetched value takes its fetch's name.
  void name_values(const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.name == "builtin.parameter") {
        name_value(op, op.results.at(0), string_attr(op, "parameter_name"));
      } else if (op.name == "pd_op.data") {
        name_value(op, op.results.at(0), string_attr(op, "name"));
      } else if (op.name == "pd_op.fetch" && !op.operands.empty() && fetch_count_[op.operands[0]] == 1) {
        const Op* from = producer_op(op.operands[0]);
        if (from && from->name != "builtin.parameter" && from->name != "pd_op.data" && !names_.count(op.operands[0]))
          name_value(op, op.operands[0], string_attr(op, "name"));
      }
      for (const Block& b : op.regions) name_values(b.ops);
    }
  }

  void name_value(const Op& op, int64_t id, const std::string& name) {
    if (name.empty()) fail(op, "an empty variable name");
    if (!used_.insert(name).second) fail(op, fmt::format("variable name '{}' is used twice", printable(name)));
    names_[id] = name;
  }

  // A value's variable, named on first use ("conv2d.tmp_12").
  const std::string& name_of(int64_t id) {
    auto it = names_.find(id);
    if (it != names_.end()) return it->second;
    const Op* op = producer_op(id);
    if (!op) internal_error(fmt::format("PIR value {} has neither a producer nor a name", id));
    std::string base = fmt::format("{}.tmp_{}", op->name.substr(op->name.find('.') + 1), id);
    std::string name = base;
    for (int n = 1; used_.count(name); ++n) name = fmt::format("{}_{}", base, n);
    used_.insert(name);
    return names_[id] = name;
  }

  const Type& type_of(int64_t id) const {
    if (auto it = arg_types_.find(id); it != arg_types_.end()) return it->second;
    const auto& [op, index] = producer_.at(id);
    return op->result_types.at(index);
  }

  void declare_holder(const std::string& name, pb::VarType::Type type) {
    pb::VarDesc* v = top()->add_vars();
    v->set_name(name);
    v->set_persistable(true);
    v->mutable_type()->set_type(type);
    used_.insert(name);
  }

  void declare(const Op& op, int64_t id, bool persistable = false) {
    if (!declared_.insert(id).second) return;
    const Type& t = type_of(id);
    if (t.kind != Type::kTensor) fail(op, fmt::format("value {} is not a dense tensor, which fluidc needs here", id));
    pb::VarDesc* v = top()->add_vars();
    v->set_name(name_of(id));
    v->set_persistable(persistable);
    v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
    auto* td = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
    td->set_data_type(t.dtype);
    for (int64_t d : t.dims) td->add_dims(d);
  }

  [[noreturn]] void fail(const Op& op, const std::string& message) const {
    user_error(op_location(origin_, op), message);
  }

  static std::string string_attr(const Op& op, const std::string& name) {
    const Attr* a = op.attr(name);
    return a && a->kind == Attr::kString ? a->s : std::string();
  }

  const Op* producer_op(int64_t id) const {
    auto it = producer_.find(id);
    return it == producer_.end() ? nullptr : it->second.op;
  }

  // The value of a constant operand (full: a scalar; full_int_array: a
  // list), or nullopt when the operand is computed.
  std::optional<Attr> constant(int64_t id) const {
    const Op* p = producer_op(id);
    if (!p) return std::nullopt;
    if (p->name == "pd_op.full_int_array") {
      const Attr* v = p->attr("value");
      if (!v) return std::nullopt;
      Attr list{.kind = Attr::kIntArray};
      if (v->kind == Attr::kIntArray) return *v;
      for (const Attr& e : v->items) list.ints.push_back(e.kind == Attr::kFloat32 || e.kind == Attr::kFloat64 ? static_cast<int64_t>(e.f) : e.i);
      return list;
    }
    if (p->name == "pd_op.full") {
      const Attr* v = p->attr("value");
      const Attr* dt = p->attr("dtype");
      if (!v) return std::nullopt;
      const double x = v->kind == Attr::kFloat32 || v->kind == Attr::kFloat64 ? v->f : static_cast<double>(v->i);
      const bool is_float = !dt || dt->i == pb::VarType::FP32 || dt->i == pb::VarType::FP64 ||
                            dt->i == pb::VarType::FP16 || dt->i == pb::VarType::BF16;
      if (is_float) return Attr{.kind = Attr::kFloat64, .f = x};
      return Attr{.kind = Attr::kInt64, .i = static_cast<int64_t>(x)};
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

  // The variables an operand stands for: one tensor, or a combine's list.
  std::vector<std::string> args_of(const Op& op, int64_t id) {
    const Op* p = producer_op(id);
    if (p && p->name == "builtin.combine") {
      std::vector<std::string> args;
      for (int64_t e : p->operands) args.push_back(tensor_var(op, e));
      return args;
    }
    return {tensor_var(op, id)};
  }

  // The variable of a single tensor operand, writing a constant's op the
  // first time one is read as a tensor.
  std::string tensor_var(const Op& op, int64_t id) {
    const Op* p = producer_op(id);
    if (!p && aliased_.count(id)) return name_of(id);  // a block argument: its loop variable
    if (!p) fail(op, fmt::format("value {} has no producer", id));
    if (p->name == "builtin.combine") fail(op, fmt::format("value {} is a list where one tensor is expected", id));
    if ((p->name == "pd_op.full" || p->name == "pd_op.full_int_array") && !declared_.count(id)) write_constant(*p, id);
    if (!declared_.count(id) && aliased_.count(id)) return name_of(id);  // a loop variable
    if (!declared_.count(id)) fail(op, fmt::format("value {} is read before it is written", id));
    return name_of(id);
  }

  // Into the block the constant was defined in (its end is still before
  // the op that owns the block being translated now), so it is computed
  // whichever branch reads it first.
  void write_constant(const Op& p, int64_t id) {
    declare(p, id);
    pb::OpDesc* o = desc_.mutable_blocks(constant_block_.at(id))->add_ops();
    const Attr* dt = p.attr("dtype");
    const int dtype = dt ? static_cast<int>(dt->i) : pb::VarType::FP32;
    const Attr c = *constant(id);
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

  static void add_slot(pb::OpDesc::Var* v, const std::string& slot, const std::vector<std::string>& args) {
    v->set_parameter(slot);
    for (const auto& a : args) v->add_arguments(a);
  }

  // PIR attribute kinds to ProgramDesc ones; fluidc reads integer and float
  // widths interchangeably (compiler/ir/attrs.h).
  void set_attr(pb::OpDesc& o, const std::string& name, const Attr& a) {
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

  // A list takes the kind of its elements (an empty list: LONGS).
  static void set_list(pb::OpDesc::Attr& out, const Attr& a) {
    const Attr::Kind k = a.items.empty() ? Attr::kInt64 : a.items[0].kind;
    for (const Attr& e : a.items)
      if (e.kind != k && !(e.kind == Attr::kInt32 || e.kind == Attr::kInt64) != !(k == Attr::kInt32 || k == Attr::kInt64))
        throw UserError(fmt::format("attribute '{}' mixes element kinds", printable(out.name())));
    switch (k) {
      case Attr::kBool: out.set_type(pb::BOOLEANS); for (const Attr& e : a.items) out.add_bools(e.b); break;
      case Attr::kInt32: case Attr::kInt64: case Attr::kDType:
        out.set_type(pb::LONGS); for (const Attr& e : a.items) out.add_longs(e.i); break;
      case Attr::kFloat32: out.set_type(pb::FLOATS); for (const Attr& e : a.items) out.add_floats(static_cast<float>(e.f)); break;
      case Attr::kFloat64: out.set_type(pb::FLOAT64S); for (const Attr& e : a.items) out.add_float64s(e.f); break;
      case Attr::kString: out.set_type(pb::STRINGS); for (const Attr& e : a.items) out.add_strings(e.s); break;
      default: throw UserError(fmt::format("attribute '{}' is a list of lists or of unknown values", printable(out.name())));
    }
  }

  void translate(const Op& op) {
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
    write_ruled(op, *find_rule(op.name.substr(6)));
  }

  // The ops of a region's block but its closing yield, into a new
  // sub-block of the current one; returns the yield's operands.
  std::vector<int64_t> translate_region(const Op& owner, const Block& b, pb::BlockDesc* into) {
    if (b.ops.empty() || b.ops.back().name != "cf.yield") fail(owner, "a region whose block does not end in cf.yield");
    pb::BlockDesc* outer = block_;
    block_ = into;
    for (size_t i = 0; i + 1 < b.ops.size(); ++i) translate(b.ops[i]);
    std::vector<int64_t> yielded = b.ops.back().operands;
    for (int64_t v : yielded)
      if (v == 0) fail(b.ops.back(), "a yield of no value");
    block_ = outer;
    return yielded;
  }

  void write_assign(pb::BlockDesc* b, const std::string& from, const std::string& to) {
    pb::OpDesc* a = b->add_ops();
    a->set_type("assign");
    add_slot(a->add_inputs(), "X", {from});
    add_slot(a->add_outputs(), "Out", {to});
  }

  // A variable of the given type that no PIR value names.
  std::string fresh_var(const std::string& base, const Type& t) {
    std::string name = base;
    for (int n = 1; used_.count(name); ++n) name = fmt::format("{}_{}", base, n);
    used_.insert(name);
    pb::VarDesc* v = top()->add_vars();
    v->set_name(name);
    v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
    auto* td = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
    td->set_data_type(t.dtype);
    for (int64_t d : t.dims) td->add_dims(d);
    return name;
  }

  pb::OpDesc* write_conditional_block(const std::string& cond, const std::vector<std::string>& outs, int sub) {
    pb::OpDesc* o = block_->add_ops();
    o->set_type("conditional_block");
    add_slot(o->add_inputs(), "Cond", {cond});
    add_slot(o->add_outputs(), "Out", outs);
    pb::OpDesc::Attr* a = o->add_attrs();
    a->set_name("sub_block");
    a->set_type(pb::BLOCK);
    a->set_block_idx(sub);
    set_attr(*o, "is_scalar_condition", Attr{.kind = Attr::kBool, .b = true});
    return o;
  }

  // pd_op.if(cond) {true} {false}: each branch a conditional_block writing
  // its yielded values to variables of its own, then select_input picks
  // per result (Paddle 2's lowering of the same Python `if`).
  void write_if(const Op& op) {
    if (op.operands.size() != 1 || op.operands[0] == 0) fail(op, "an if takes one condition");
    const std::string cond = tensor_var(op, op.operands[0]);
    std::vector<std::vector<std::string>> branch_vars(2);
    for (int br = 0; br < 2; ++br) {
      pb::BlockDesc* sub = new_block(block_->idx());
      const int sub_idx = sub->idx();
      const std::vector<int64_t> yielded = translate_region(op, op.regions[br], sub);
      if (yielded.size() != op.results.size())
        fail(op, fmt::format("a branch yields {} values for {} results", yielded.size(), op.results.size()));
      pb::BlockDesc* into = desc_.mutable_blocks(sub_idx);
      for (size_t i = 0; i < yielded.size(); ++i) {
        const Type& t = op.result_types[i];
        if (t.kind != Type::kTensor) fail(op, fmt::format("result {} is not a dense tensor", i));
        const std::string v = fresh_var(fmt::format("if.tmp_{}.{}", op.results[i], br ? "false" : "true"), t);
        write_assign(into, tensor_var(op, yielded[i]), v);
        branch_vars[br].push_back(v);
      }
      std::string run_if = cond;
      if (br == 1) {
        run_if = fresh_var(fmt::format("if.not_{}", op.operands[0]), type_of(op.operands[0]));
        pb::OpDesc* n = block_->add_ops();
        n->set_type("logical_not");
        add_slot(n->add_inputs(), "X", {cond});
        add_slot(n->add_outputs(), "Out", {run_if});
      }
      write_conditional_block(run_if, branch_vars[br], sub_idx);
    }
    if (op.results.empty()) return;
    const std::string mask = fresh_var(fmt::format("if.mask_{}", op.operands[0]), Type{.kind = Type::kTensor, .dtype = pb::VarType::INT32, .dims = {1}});
    pb::OpDesc* c = block_->add_ops();
    c->set_type("cast");
    add_slot(c->add_inputs(), "X", {cond});
    add_slot(c->add_outputs(), "Out", {mask});
    set_attr(*c, "in_dtype", Attr{.kind = Attr::kInt32, .i = type_of(op.operands[0]).dtype});
    set_attr(*c, "out_dtype", Attr{.kind = Attr::kInt32, .i = pb::VarType::INT32});
    for (size_t i = 0; i < op.results.size(); ++i) {
      declare(op, op.results[i]);
      pb::OpDesc* sel = block_->add_ops();
      sel->set_type("select_input");
      add_slot(sel->add_inputs(), "X", {branch_vars[1][i], branch_vars[0][i]});  // Mask 0 picks X[0]
      add_slot(sel->add_inputs(), "Mask", {mask});
      add_slot(sel->add_outputs(), "Out", {name_of(op.results[i])});
    }
  }

  // pd_op.while(cond, inits...) {body(args...) yield(cond', values...)}:
  // the results are the loop variables, set from the inits before the loop
  // and from the yield at the end of each iteration; the body's arguments
  // read them.
  void write_while(const Op& op) {
    const Block& body = op.regions[0];
    if (op.operands.empty() || op.operands[0] == 0) fail(op, "a while takes a condition");
    const size_t k = op.operands.size() - 1;
    if (op.results.size() != k || body.args.size() != k)
      fail(op, fmt::format("{} loop values, {} results and {} block arguments disagree", k, op.results.size(), body.args.size()));
    std::vector<std::string> loop_vars;
    for (size_t i = 0; i < k; ++i) {
      if (op.operands[i + 1] == 0) fail(op, fmt::format("loop value {} is missing", i));
      declare(op, op.results[i]);
      loop_vars.push_back(name_of(op.results[i]));
      write_assign(block_, tensor_var(op, op.operands[i + 1]), loop_vars[i]);
      names_[body.args[i]] = loop_vars[i];
      aliased_.insert(body.args[i]);
    }
    const std::string cond = fresh_var(fmt::format("while.cond_{}", op.results.empty() ? op.index : op.results[0]),
                                       type_of(op.operands[0]));
    write_assign(block_, tensor_var(op, op.operands[0]), cond);
    pb::BlockDesc* sub = new_block(block_->idx());
    const int sub_idx = sub->idx();
    const std::vector<int64_t> yielded = translate_region(op, body, sub);
    if (yielded.size() != k + 1) fail(op, fmt::format("the body yields {} values for a condition and {} loop values", yielded.size(), k));
    pb::BlockDesc* into = desc_.mutable_blocks(sub_idx);
    // A yielded block argument (a loop variable passed on, maybe to another
    // slot) is copied out first, so no assignment reads a variable an
    // earlier one of the same yield has overwritten.
    std::vector<std::string> from(k);
    for (size_t i = 0; i < k; ++i) {
      from[i] = tensor_var(op, yielded[i + 1]);
      if (aliased_.count(yielded[i + 1]) && from[i] != loop_vars[i]) {
        const std::string held = fresh_var(loop_vars[i] + ".next", type_of(op.results[i]));
        write_assign(into, from[i], held);
        from[i] = held;
      }
    }
    for (size_t i = 0; i < k; ++i)
      if (from[i] != loop_vars[i]) write_assign(into, from[i], loop_vars[i]);
    write_assign(into, tensor_var(op, yielded[0]), cond);
    pb::OpDesc* w = block_->add_ops();
    w->set_type("while");
    std::vector<std::string> x = loop_vars;
    x.push_back(cond);
    add_slot(w->add_inputs(), "X", x);
    add_slot(w->add_inputs(), "Condition", {cond});
    add_slot(w->add_outputs(), "Out", loop_vars);
    pb::OpDesc::Attr* a = w->add_attrs();
    a->set_name("sub_block");
    a->set_type(pb::BLOCK);
    a->set_block_idx(sub_idx);
    set_attr(*w, "is_test", Attr{.kind = Attr::kBool, .b = true});
  }

  void write_feed(const Op& op) {
    declare(op, op.results.at(0));
    pb::OpDesc* o = block_->add_ops();
    o->set_type("feed");
    add_slot(o->add_inputs(), "X", {"feed"});
    add_slot(o->add_outputs(), "Out", {name_of(op.results[0])});
    set_attr(*o, "col", Attr{.kind = Attr::kInt32, .i = feeds_++});
  }

  void write_fetch(const Op& op) {
    if (op.operands.size() != 1 || op.operands[0] == 0) fail(op, "a fetch needs one operand");
    const std::string var = tensor_var(op, op.operands[0]);
    pb::OpDesc* o = block_->add_ops();
    o->set_type("fetch");
    add_slot(o->add_inputs(), "X", {var});
    add_slot(o->add_outputs(), "Out", {"fetch"});
    set_attr(*o, "col", Attr{.kind = Attr::kInt32, .i = fetches_++});
  }

  // shape64 gives int64 where the ProgramDesc shape op gives int32: a cast follows.
  void write_shape(const Op& op) {
    if (op.operands.size() != 1 || op.results.size() != 1) fail(op, "shape takes one operand and gives one result");
    const std::string in = tensor_var(op, op.operands[0]);
    declare(op, op.results[0]);
    const Type& t = type_of(op.results[0]);
    std::string shape_var = name_of(op.results[0]);
    if (t.dtype != pb::VarType::INT32) {
      shape_var += ".int32";
      pb::VarDesc* v = top()->add_vars();
      v->set_name(shape_var);
      v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
      v->mutable_type()->mutable_lod_tensor()->mutable_tensor()->set_data_type(pb::VarType::INT32);
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

  // full_with_tensor(value, shape): fill_constant with its tensor inputs.
  void write_full_with_tensor(const Op& op) {
    if (op.operands.size() != 2 || op.results.size() != 1) fail(op, "full_with_tensor takes value and shape");
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

  void write_ruled(const Op& op, const OpRule& rule) {
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
          set_attr(o, r.attr, *c);
          continue;
        }
      if (is_list && !r.list_slot.empty()) {
        inputs[r.list_slot] = args_of(op, id);
      } else if (!r.slot.empty()) {
        inputs[r.slot] = args_of(op, id);
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
      set_attr(o, legacy, a);
    }
    write_results(op, rule, o);
    *block_->add_ops() = std::move(o);
  }

  void write_results(const Op& op, const OpRule& rule, pb::OpDesc& o) {
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

  // A vector result's element nobody unpacks: a variable of its own.
  std::string element_var(const Op& op, int64_t id, size_t e, const Type& t) {
    if (t.kind != Type::kTensor) fail(op, fmt::format("result {} holds a non-tensor element", id));
    std::string name = fmt::format("{}.{}", name_of(id), e);
    while (!used_.insert(name).second) name += "_";
    pb::VarDesc* v = top()->add_vars();
    v->set_name(name);
    v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
    auto* td = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
    td->set_data_type(t.dtype);
    for (int64_t d : t.dims) td->add_dims(d);
    return name;
  }

  struct Producer {
    const Op* op;
    int index;
  };
  const Program& pir_;
  const std::string& origin_;
  pb::ProgramDesc desc_;
  pb::BlockDesc* block_ = nullptr;
  std::map<int64_t, Producer> producer_;
  std::map<int64_t, std::vector<int64_t>> unpacked_;  ///< vector value -> builtin.split's results
  std::map<int64_t, std::string> names_;
  std::set<std::string> used_;
  std::set<int64_t> declared_;
  std::set<int64_t> read_;  ///< values some op reads
  std::map<int64_t, int> fetch_count_;
  std::map<int64_t, Type> arg_types_;     ///< block arguments' types
  std::set<int64_t> aliased_;             ///< block arguments, named after their loop variables
  std::map<int64_t, int> constant_block_;  ///< full / full_int_array value -> the block it was defined in
  int64_t feeds_ = 0, fetches_ = 0;
};

}  // namespace

pb::ProgramDesc translate(const Program& pir, const std::string& origin) { return Translator(pir, origin).run(); }

}  // namespace fluidc::pir
