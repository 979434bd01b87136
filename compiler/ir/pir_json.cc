// compiler/ir/pir_json.cc - PIR JSON to pir::Program: the serialized layout Paddle 3 writes, checked field by field.
//
// The layout (facts from files Paddle 3.x writes): {"base_code": {"magic": "pir", "version": N},
// "program": {"regions": [{"blocks": [{"ops": [...]}]}]}}. An op is {"#": NAME, "A": attrs, "I":
// operands, "O": results, "OA": output attrs, "regions": ...}; NAME is "<dialect>.<op>" with dialect 0
// builtin and 1 pd_op, or "p" for builtin.parameter, whose "A" is a compact array ending in the parameter
// name, whose "OA" starts with its persistable flag and whose "O" is one result object. Values are
// numbered: {"%": id}, 0 for a missing optional operand. Types are {"#": "0.t_dtensor", "D": [dtype,
// dims, layout, lod, offset]} or "0.t_vec".
#include "compiler/ir/pir_json.h"

#include <fmt/format.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace fluidc::pir {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;

// Where a problem is: the file, and the op once known.
struct Where {
  const std::string& origin;
  const Op* op = nullptr;

  [[noreturn]] void fail(const std::string& message) const {
    if (op) user_error(op_location(origin, *op), message);
    Location l;
    l.file = origin;
    user_error(l, message);
  }
};

const Value* field(const Struct& s, const char* key) {
  auto it = s.fields().find(key);
  return it == s.fields().end() ? nullptr : &it->second;
}

const Struct& object_at(const Where& w, const Value* v, const std::string& what) {
  if (!v || v->kind_case() != Value::kStructValue) w.fail(fmt::format("{}: expected a JSON object", what));
  return v->struct_value();
}

const ListValue& list_at(const Where& w, const Value* v, const std::string& what) {
  if (!v || v->kind_case() != Value::kListValue) w.fail(fmt::format("{}: expected a JSON array", what));
  return v->list_value();
}

const std::string& string_at(const Where& w, const Value* v, const std::string& what) {
  if (!v || v->kind_case() != Value::kStringValue) w.fail(fmt::format("{}: expected a JSON string", what));
  return v->string_value();
}

double number_at(const Where& w, const Value* v, const std::string& what) {
  if (!v || v->kind_case() != Value::kNumberValue) w.fail(fmt::format("{}: expected a JSON number", what));
  return v->number_value();
}

// JSON numbers are doubles: an int64 attribute near the type's limits (a
// slice's end of INT64_MAX) comes back as 2^63, which is clamped.
int64_t integer_at(const Where& w, const Value* v, const std::string& what) {
  const double d = number_at(w, v, what);
  if (!std::isfinite(d) || d != std::floor(d)) w.fail(fmt::format("{}: expected an integer, got {}", what, d));
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

bool bool_at(const Where& w, const Value* v, const std::string& what) {
  if (v && v->kind_case() == Value::kBoolValue) return v->bool_value();
  if (v && v->kind_case() == Value::kNumberValue && (v->number_value() == 0 || v->number_value() == 1))
    return v->number_value() == 1;
  w.fail(fmt::format("{}: expected a boolean", what));
}

// PIR's dtype names: "0.t_f32" in types, "float32" in a_dtype attributes.
bool dtype_of(const std::string& name, pb::VarType::Type& out) {
  static const std::map<std::string, pb::VarType::Type> names = {
      {"f16", pb::VarType::FP16},   {"float16", pb::VarType::FP16},     {"bf16", pb::VarType::BF16},
      {"bfloat16", pb::VarType::BF16}, {"f32", pb::VarType::FP32},     {"float32", pb::VarType::FP32},
      {"f64", pb::VarType::FP64},   {"float64", pb::VarType::FP64},     {"i8", pb::VarType::INT8},
      {"int8", pb::VarType::INT8},  {"ui8", pb::VarType::UINT8},        {"uint8", pb::VarType::UINT8},
      {"i16", pb::VarType::INT16},  {"int16", pb::VarType::INT16},      {"i32", pb::VarType::INT32},
      {"int32", pb::VarType::INT32}, {"i64", pb::VarType::INT64},       {"int64", pb::VarType::INT64},
      {"bool", pb::VarType::BOOL},  {"c64", pb::VarType::COMPLEX64},    {"complex64", pb::VarType::COMPLEX64},
      {"c128", pb::VarType::COMPLEX128}, {"complex128", pb::VarType::COMPLEX128}};
  auto it = names.find(name);
  if (it == names.end()) return false;
  out = it->second;
  return true;
}

// "0.t_f32" -> "f32"; other dialects' names are kept whole.
std::string builtin_suffix(const std::string& name, const char* prefix) {
  return name.rfind(prefix, 0) == 0 ? name.substr(std::string(prefix).size()) : std::string();
}

Type read_type(const Where& w, const Value* v, const std::string& what, int depth = 0) {
  if (depth > 8) w.fail(fmt::format("{}: types nested too deeply", what));
  const Struct& s = object_at(w, v, what);
  const std::string& name = string_at(w, field(s, "#"), what + " name");
  Type t;
  if (name == "0.t_dtensor") {
    const ListValue& d = list_at(w, field(s, "D"), what + " (dense tensor)");
    if (d.values_size() < 2) w.fail(fmt::format("{}: a dense tensor type needs a dtype and dims", what));
    const std::string& dt = string_at(w, field(object_at(w, &d.values(0), what + " dtype"), "#"), what + " dtype");
    if (!dtype_of(builtin_suffix(dt, "0.t_"), t.dtype))
      w.fail(fmt::format("{}: unknown element type '{}'", what, printable(dt)));
    for (const Value& dim : list_at(w, &d.values(1), what + " dims").values()) {
      const int64_t n = integer_at(w, &dim, what + " dim");
      // Any negative size is unknown: Paddle multiplies -1 through (instance_norm's saved mean of a
      // [-1, 4, ...] input is typed [-4]).
      t.dims.push_back(n < 0 ? -1 : n);
    }
    if (t.dims.size() > 16) w.fail(fmt::format("{}: {} dimensions (at most 16)", what, t.dims.size()));
    t.kind = Type::kTensor;
  } else if (name == "0.t_vec") {
    for (const Value& e : list_at(w, field(s, "D"), what + " (vector)").values())
      t.elements.push_back(read_type(w, &e, what + " element", depth + 1));
    t.kind = Type::kVector;
  } else {
    t.name = name;
  }
  return t;
}

Attr read_attr(const Where& w, const Value* v, const std::string& what, int depth = 0) {
  if (depth > 8) w.fail(fmt::format("{}: attributes nested too deeply", what));
  const Struct& s = object_at(w, v, what);
  const std::string& name = string_at(w, field(s, "#"), what + " type");
  const Value* d = field(s, "D");
  Attr a;
  if (name == "0.a_bool") {
    a.kind = Attr::kBool, a.b = bool_at(w, d, what);
  } else if (name == "0.a_i32" || name == "0.a_i64") {
    a.kind = name == "0.a_i32" ? Attr::kInt32 : Attr::kInt64, a.i = integer_at(w, d, what);
  } else if (name == "0.a_f32" || name == "0.a_f64") {
    a.kind = name == "0.a_f32" ? Attr::kFloat32 : Attr::kFloat64, a.f = number_at(w, d, what);
  } else if (name == "0.a_str") {
    a.kind = Attr::kString, a.s = string_at(w, d, what);
  } else if (name == "0.a_array") {
    a.kind = Attr::kArray;
    for (const Value& e : list_at(w, d, what).values()) a.items.push_back(read_attr(w, &e, what + " element", depth + 1));
  } else if (name == "1.a_intarray") {
    a.kind = Attr::kIntArray;
    for (const Value& e : list_at(w, d, what).values()) a.ints.push_back(integer_at(w, &e, what + " element"));
  } else if (name == "1.a_dtype") {
    pb::VarType::Type t;
    const std::string& dt = string_at(w, d, what);
    if (dt.rfind("Undefined", 0) == 0) {
      a.s = "undefined dtype";  // "Undefined(ALL_DTYPE)": no dtype given (sum's default), dropped like a place
    } else {
      if (!dtype_of(dt, t)) w.fail(fmt::format("{}: unknown dtype '{}'", what, printable(dt)));
      a.kind = Attr::kDType, a.i = t;
    }
  } else {
    a.s = name;  // places, layouts, ...: kept by name, read by nobody
  }
  return a;
}

int64_t value_id(const Where& w, const Value* v, const std::string& what) {
  const int64_t id = integer_at(w, field(object_at(w, v, what), "%"), what + " value id");
  if (id < 0) w.fail(fmt::format("{}: value id {} is negative", what, id));
  return id;
}

// "1.conv2d" -> "pd_op.conv2d"; "0.combine" -> "builtin.combine".
std::string full_name(const std::string& n) {
  if (n == "p") return "builtin.parameter";
  if (n.rfind("0.", 0) == 0) return "builtin." + n.substr(2);
  if (n.rfind("1.", 0) == 0) return "pd_op." + n.substr(2);
  if (n.rfind("2.", 0) == 0) return "cf." + n.substr(2);  // cf.yield ends a control-flow block
  return n;
}

// The values visible in a block: its own and its ancestors'. Block
// arguments come as negative ids that each block numbers afresh; they are
// given ids of their own (above any a file may use).
struct Scope {
  const Scope* parent = nullptr;
  std::set<int64_t> defined;
  std::map<int64_t, int64_t> args;  ///< the file's negative id -> the fresh id

  bool visible(int64_t id) const { return defined.count(id) || (parent && parent->visible(id)); }
  int64_t resolve(int64_t id) const {
    if (id >= 0) return id;
    if (auto it = args.find(id); it != args.end()) return it->second;
    return parent ? parent->resolve(id) : 0;
  }
};

constexpr int64_t kMaxFileId = int64_t{1} << 53;  // JSON numbers are exact up to here
constexpr int kMaxDepth = 32;

struct Reader {
  const std::string& origin;
  int64_t next_arg_id = kMaxFileId + 1;

  Op read_op(const Value& v, int index, int depth, Scope& scope) {
    Op op;
    op.index = index;
    op.depth = depth;
    Where w{origin};
    const std::string what = fmt::format("op {}", index);
    const Struct& s = object_at(w, &v, what);
    op.name = full_name(string_at(w, field(s, "#"), what + " name"));
    w.op = &op;
    if (op.name == "builtin.parameter") {
      read_parameter(w, s, op);
    } else {
      if (const Value* attrs = field(s, "A"))
        for (const Value& a : list_at(w, attrs, "attributes").values()) {
          const Struct& as = object_at(w, &a, "attribute");
          std::string name = string_at(w, field(as, "N"), "attribute name");
          op.attrs.push_back({name, read_attr(w, field(as, "AT"), fmt::format("attribute '{}'", printable(name)))});
        }
      if (const Value* in = field(s, "I"))
        for (const Value& i : list_at(w, in, "operands").values())
          op.operands.push_back(operand_id(w, &i, op.operands.size(), scope));
      if (const Value* out = field(s, "O"))
        for (const Value& o : list_at(w, out, "results").values()) {
          op.results.push_back(value_id(w, &o, "result"));
          op.result_types.push_back(read_type(w, field(object_at(w, &o, "result"), "TT"), "result type"));
        }
      if (const Value* regions = field(s, "regions")) {
        if (depth >= kMaxDepth) w.fail(fmt::format("regions nested more than {} deep", kMaxDepth));
        for (const Value& r : list_at(w, regions, "regions").values())
          op.regions.push_back(read_region(w, r, depth + 1, scope));
      }
    }
    for (int64_t r : op.results) {
      if (r == 0) continue;  // an optional result Paddle left out
      if (r >= kMaxFileId) w.fail(fmt::format("value id {} is too large", r));
      if (scope.visible(r) || !scope.defined.insert(r).second) w.fail(fmt::format("value {} is defined twice", r));
    }
    return op;
  }

  // A region of one block (all Paddle 3 writes); its values stay inside.
  Block read_region(const Where& w, const Value& r, int depth, const Scope& outer) {
    const ListValue& blocks = list_at(w, field(object_at(w, &r, "region"), "blocks"), "region blocks");
    if (blocks.values_size() != 1) w.fail(fmt::format("a region with {} blocks (fluidc reads one)", blocks.values_size()));
    const Struct& b = object_at(w, &blocks.values(0), "block");
    Scope scope{&outer, {}, {}};
    Block block;
    if (const Value* args = field(b, "args"))
      for (const Value& a : list_at(w, args, "block arguments").values()) {
        const Struct& as = object_at(w, &a, "block argument");
        const int64_t file_id = integer_at(w, field(as, "#"), "block argument id");
        if (file_id >= 0 || scope.args.count(file_id)) w.fail(fmt::format("block argument id {} is not a new negative id", file_id));
        const int64_t id = next_arg_id++;
        scope.args[file_id] = id;
        scope.defined.insert(id);
        block.args.push_back(id);
        block.arg_types.push_back(read_type(w, field(as, "TT"), "block argument type"));
      }
    const ListValue& ops = list_at(w, field(b, "ops"), "block ops");
    for (int i = 0; i < ops.values_size(); ++i) block.ops.push_back(read_op(ops.values(i), i, depth, scope));
    return block;
  }

  int64_t operand_id(const Where& w, const Value* v, size_t index, const Scope& scope) {
    const int64_t file_id = integer_at(w, field(object_at(w, v, "operand"), "%"), "operand value id");
    if (file_id == 0) return 0;
    const int64_t id = scope.resolve(file_id);
    if (id == 0 || !scope.visible(id))
      w.fail(fmt::format("operand {} is value {}, which no earlier op of this block or an enclosing one defines",
                         index, file_id));
    return id;
  }

  static void read_parameter(const Where& w, const Struct& s, Op& op) {
    // "A": [.., .., .., NAME]: the name is the one string in it.
    for (const Value& a : list_at(w, field(s, "A"), "parameter attributes").values())
      if (a.kind_case() == Value::kStringValue) op.attrs.push_back({"parameter_name", {.kind = Attr::kString, .s = a.string_value()}});
    if (op.attrs.empty()) w.fail("a parameter without a name");
    // "OA": [persistable, stop_gradient, trainable]; only persistable ones are in .pdiparams.
    bool persistable = true;
    if (const Value* oa = field(s, "OA"); oa && oa->kind_case() == Value::kListValue && oa->list_value().values_size() > 0)
      persistable = bool_at(w, &oa->list_value().values(0), "parameter persistable flag");
    op.attrs.push_back({"persistable", {.kind = Attr::kBool, .b = persistable}});
    const Value* o = field(s, "O");
    op.results.push_back(value_id(w, o, "result"));
    op.result_types.push_back(read_type(w, field(object_at(w, o, "result"), "TT"), "result type"));
  }
};

}  // namespace

const Attr* Op::attr(const std::string& name) const {
  for (const auto& [n, a] : attrs)
    if (n == name) return &a;
  return nullptr;
}

bool is_pir_json(const std::string& bytes) {
  return !bytes.empty() && bytes[0] == '{' &&
         (bytes.find("\"pir\"") != std::string::npos || bytes.find("\"base_code\"") != std::string::npos);
}

Location op_location(const std::string& origin, const Op& op) {
  Location l;
  l.file = origin;
  l.block = op.depth;
  l.op = op.index;
  l.op_type = op.name;
  return l;
}

Program read_json(const std::string& bytes, const std::string& origin) {
  Where w{origin};
  Value root;
  google::protobuf::util::JsonParseOptions options;
  if (auto status = google::protobuf::util::JsonStringToMessage(bytes, &root, options); !status.ok())
    w.fail(fmt::format("not valid JSON: {}", printable(std::string(status.message()))));
  const Struct& top = object_at(w, &root, "the file");
  const Struct& base = object_at(w, field(top, "base_code"), "base_code");
  if (string_at(w, field(base, "magic"), "base_code.magic") != "pir") w.fail("base_code.magic is not \"pir\"");
  Program p;
  p.version = static_cast<int>(integer_at(w, field(base, "version"), "base_code.version"));
  const Struct& prog = object_at(w, field(top, "program"), "program");
  const ListValue& regions = list_at(w, field(prog, "regions"), "program.regions");
  if (regions.values_size() != 1) w.fail(fmt::format("program has {} top regions, expected 1", regions.values_size()));
  const ListValue& blocks = list_at(w, field(object_at(w, &regions.values(0), "region"), "blocks"), "region blocks");
  if (blocks.values_size() != 1) w.fail(fmt::format("the top region has {} blocks, expected 1", blocks.values_size()));
  const ListValue& ops = list_at(w, field(object_at(w, &blocks.values(0), "block"), "ops"), "block ops");
  Scope scope;
  Reader reader{origin};
  for (int i = 0; i < ops.values_size(); ++i) p.ops.push_back(reader.read_op(ops.values(i), i, 0, scope));
  return p;
}

}  // namespace fluidc::pir
