// compiler/codegen/lib_header.cc - `--emit lib`: writes NAME.h (a typed pimpl class) and the methods behind it.
#include "compiler/codegen/lib_header.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/escape.h"
#include "compiler/version.h"

namespace fluidc {
namespace {

// One feed or fetch as the class shows it.
struct Var {
  std::string name;   // the program's
  std::string id;     // the accessor suffix: input_<id>
  std::string ctype;  // element type in C++
  std::string dtype;  // Paddle's spelling
  std::vector<int64_t> dims;
  int lod_level = 0;  // declared sequence levels: > 0 gives it LoD accessors
};

struct ElemType {
  pb::VarType::Type type;
  const char* ctype;
  const char* name;
};
// FP16 has no standard C++ type: its bits are shown as uint16_t.
constexpr ElemType kElemTypes[] = {
    {pb::VarType::FP32, "float", "float32"},     {pb::VarType::FP64, "double", "float64"},
    {pb::VarType::INT32, "int32_t", "int32"},    {pb::VarType::INT64, "int64_t", "int64"},
    {pb::VarType::BOOL, "bool", "bool"},         {pb::VarType::UINT8, "uint8_t", "uint8"},
    {pb::VarType::INT8, "int8_t", "int8"},       {pb::VarType::INT16, "int16_t", "int16"},
    {pb::VarType::FP16, "uint16_t", "float16"},
};

// An accessor suffix from a variable name: [A-Za-z0-9_] only, no "__" (reserved).
std::string accessor_id(const std::string& name) {
  std::string id;
  for (unsigned char ch : name) {
    char c = std::isalnum(ch) ? static_cast<char>(ch) : '_';
    if (c == '_' && (id.empty() || id.back() == '_')) continue;
    id += c;
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  return id.empty() ? "var" : id;
}

// A block-0 variable's type as the emitter declares it (inferred, else declared).
std::vector<Var> describe(const Program& main, const std::map<std::string, TensorType>* types,
                          const std::vector<std::string>& names, const char* what) {
  std::vector<Var> out;
  std::set<std::string> ids;
  for (const auto& name : names) {
    Var v;
    v.name = name;
    pb::VarType::Type dt = pb::VarType::FP32;
    bool known = false;
    if (types) {
      auto it = types->find(name);
      if (it != types->end() && it->second.known) known = true, dt = it->second.dtype, v.dims = it->second.dims;
    }
    if (!known)
      if (const pb::VarDesc* d = main.find_var(0, name))
        if (const auto* td = tensor_desc(*d)) known = true, dt = td->data_type(), v.dims.assign(td->dims().begin(), td->dims().end());
    if (!known) user_error(fmt::format("--emit lib: the type of {} '{}' is unknown", what, name));
    for (const auto& e : kElemTypes)
      if (e.type == dt) v.ctype = e.ctype, v.dtype = e.name;
    if (v.ctype.empty())
      user_error(fmt::format("--emit lib: {} '{}' has element type {}, which has no C++ type", what, name,
                             pb::VarType::Type_Name(dt)));
    if (const pb::VarDesc* d = main.find_var(0, name); d && d->type().has_lod_tensor())
      v.lod_level = d->type().lod_tensor().lod_level();
    // An id takes its accessors' names too: variables `x` and `x_shape` would both declare input_x_shape().
    auto taken = [&](const std::string& id) {
      for (const char* suffix : {"", "_shape", "_size", "_lod", "_declared_dims"})
        if (ids.count(id + suffix)) return true;
      for (const auto& known : ids)
        for (const char* suffix : {"_shape", "_size", "_lod", "_declared_dims"})
          if (known + suffix == id) return true;
      return false;
    };
    v.id = accessor_id(name);
    for (int n = 2; taken(v.id); ++n) v.id = accessor_id(name) + "_" + std::to_string(n);
    ids.insert(v.id);
    out.push_back(std::move(v));
  }
  return out;
}

// The one learning-rate variable every optimizer op of the program reads,
// when it is a float32 persistable; empty otherwise (no accessors then).
std::string learning_rate_var(const Program& main, const ProgramInfo& info,
                              const std::map<std::string, TensorType>* types) {
  std::set<std::string> lrs;
  for (const auto& op : main.block(0).ops()) {
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || !def->optimizer) continue;
    for (const auto& n : op_inputs(op, def->optimizer->learning_rate)) lrs.insert(n);
  }
  if (lrs.size() != 1) return "";
  const std::string& lr = *lrs.begin();
  if (!std::binary_search(info.persistables.begin(), info.persistables.end(), lr)) return "";
  auto d = describe(main, types, {lr}, "learning rate");
  return d[0].dtype == "float32" ? lr : "";
}

// A LoD as the header spells it: the same type as the runtime's Lod (runtime/tensor.h).
constexpr const char* kLodType = "std::vector<std::vector<uint64_t>>";

std::string array_type(const Var& v) { return fmt::format("std::array<int64_t, {}>", v.dims.size()); }
std::string dims_literal(const Var& v) { return fmt::format("{{{}}}", fmt::join(v.dims, ", ")); }
std::string declared(const Var& v) { return fmt::format("{}[{}]", v.dtype, fmt::join(v.dims, ", ")); }

std::string string_array(const std::vector<Var>& vars, bool dtypes) {
  std::vector<std::string> items;
  for (const auto& v : vars) items.push_back(cpp_string_literal(dtypes ? v.dtype : v.name));
  return fmt::format("std::array<const char*, {}>{{{}}}", vars.size(), fmt::join(items, ", "));
}

// The step(...) parameters: <id> and <id>_shape, unless that makes two the same.
std::vector<std::pair<std::string, std::string>> step_params(const std::vector<Var>& in) {
  std::vector<std::pair<std::string, std::string>> p;
  std::set<std::string> seen;
  bool clash = false;
  for (const auto& v : in) {
    p.emplace_back(v.id, v.id + "_shape");
    clash |= !seen.insert(v.id).second || !seen.insert(v.id + "_shape").second;
  }
  if (clash)
    for (size_t i = 0; i < p.size(); ++i) p[i] = {fmt::format("data{}", i), fmt::format("shape{}", i)};
  return p;
}

class LibEmitter {
 public:
  LibEmitter(const Program& main, const ProgramInfo& info, const std::map<std::string, TensorType>* types,
             const LibSpec& spec)
      : main_(main), info_(info), spec_(spec), in_(describe(main, types, info.feeds, "input")),
        out_(describe(main, types, info.fetches, "output")), lr_(learning_rate_var(main, info, types)) {}

  LibSources run() { return {header(), impl()}; }

 private:
  std::string header() {
    std::ostringstream h;
    const std::string& cls = spec_.class_name;
    h << fmt::format("// {} - MACHINE GENERATED by fluidc {} from {} (sha256 {}).\n", spec_.header_name,
                     kFluidcVersion, cpp_comment_text(spec_.program_name), main_.sha256());
    h << "//\n// The compiled program as a C++ class: link the archive beside this header (and -lpthread).\n"
         "// Standard headers only; C++17 or later. Several instances may live in one process and\n"
         "// run at once, one per thread. Errors are thrown as fluidc::Error (docs/library.md).\n"
         "#pragma once\n\n#include <array>\n#include <cstdint>\n#include <memory>\n#include <stdexcept>\n"
         "#include <string>\n#include <vector>\n\n";
    h << "#ifndef FLUIDC_LIBRARY_ERROR_DEFINED\n#define FLUIDC_LIBRARY_ERROR_DEFINED\nnamespace fluidc {\n"
         "/// What every method of a fluidc library class throws for bad input or state: an input shape\n"
         "/// that does not fit, a missing or mismatched parameter file, a kernel's check (the message\n"
         "/// then names the op). Library code never exits the process.\n"
         "class Error : public std::runtime_error {\n public:\n  using std::runtime_error::runtime_error;\n};\n"
         "}  // namespace fluidc\n#endif\n\n";
    if (!spec_.class_namespace.empty()) h << fmt::format("namespace {} {{\n\n", spec_.class_namespace);
    h << fmt::format("/// {} program compiled from {}.\nclass {} {{\n public:\n",
                     info_.is_trainer ? "A trainer" : "An inference", cpp_comment_text(spec_.program_name), cls);
    h << "  // ---- what the program is\n";
    h << fmt::format("  static constexpr const char* kProgram = {};\n", cpp_string_literal(spec_.program_name));
    h << fmt::format("  static constexpr const char* kProgramSha256 = \"{}\";\n", main_.sha256());
    h << fmt::format("  static constexpr bool kIsTrainer = {};\n", info_.is_trainer ? "true" : "false");
    h << fmt::format("  static constexpr bool kHasEmbeddedParams = {};\n", spec_.embedded_params ? "true" : "false");
    h << fmt::format("  static constexpr int kNumInputs = {};\n  static constexpr int kNumOutputs = {};\n", in_.size(),
                     out_.size());
    h << fmt::format("  static constexpr auto kInputNames = {};\n", string_array(in_, false));
    h << fmt::format("  static constexpr auto kInputDtypes = {};\n", string_array(in_, true));
    h << fmt::format("  static constexpr auto kOutputNames = {};\n", string_array(out_, false));
    h << fmt::format("  static constexpr auto kOutputDtypes = {};\n\n", string_array(out_, true));
    h << fmt::format(
        "  /// A new instance: runs the startup program compiled in (if any), then loads the weights\n"
        "  /// embedded at build time (if any); otherwise call load() before {1}. Throws fluidc::Error.\n"
        "  {0}();\n  ~{0}();\n  {0}({0}&&) noexcept;  ///< a moved-from instance may only be destroyed or assigned\n"
        "  {0}& operator=({0}&&) noexcept;\n  {0}(const {0}&) = delete;\n  {0}& operator=(const {0}&) = delete;\n\n",
        cls, info_.is_trainer ? "step()" : "run()");
    for (const auto& v : in_) {
      const std::string a = array_type(v);
      h << fmt::format("  // ---- input {}: {}\n", cpp_string_literal(v.name), declared(v));
      h << fmt::format("  static constexpr {} input_{}_declared_dims() {{ return {}; }}\n", a, v.id, dims_literal(v));
      h << fmt::format("  /// The input's buffer, shaped input_{0}_shape() (row-major); nullptr until it has a shape\n"
                       "  /// (inputs with only fixed dims have one, zeroed, from the start).\n"
                       "  {1}* input_{0}();\n"
                       "  {2} input_{0}_shape() const;\n"
                       "  /// Gives the input a shape (-1 dims of the declaration take any size, the others must\n"
                       "  /// match: fluidc::Error otherwise); set_ also copies the shape's element count from data.\n"
                       "  void resize_input_{0}(const {2}& shape);\n"
                       "  void set_input_{0}(const {1}* data, const {2}& shape);\n",
                       v.id, v.ctype, a);
      if (v.lod_level > 0)
        h << fmt::format("  /// Its sequences (LoD): up to {1} offset vector(s), outermost first, each from 0, never\n"
                         "  /// decreasing, ending at the next level's count or at the input's rows. Set after the\n"
                         "  /// data (a new shape clears them) and checked then; without them the input is dense.\n"
                         "  void set_input_{0}_lod(const {2}& lod);\n"
                         "  {2} input_{0}_lod() const;\n",
                         v.id, v.lod_level, kLodType);
      h << "\n";
    }
    for (const auto& v : out_) {
      const std::string a = array_type(v);
      h << fmt::format("  // ---- output {}: {}\n", cpp_string_literal(v.name), declared(v));
      h << fmt::format("  static constexpr {} output_{}_declared_dims() {{ return {}; }}\n", a, v.id, dims_literal(v));
      h << fmt::format("  /// The result of the last {3} (nullptr before the first), its shape and element count;\n"
                       "  /// valid until the next {3} or load().\n"
                       "  const {1}* output_{0}() const;\n"
                       "  {2} output_{0}_shape() const;\n"
                       "  int64_t output_{0}_size() const;\n",
                       v.id, v.ctype, a, info_.is_trainer ? "step()" : "run()");
      if (v.lod_level > 0)
        h << fmt::format("  /// Its sequences (LoD) after the last {1}, outermost level first; empty when dense.\n"
                         "  {2} output_{0}_lod() const;\n",
                         v.id, info_.is_trainer ? "step()" : "run()", kLodType);
      h << "\n";
    }
    if (info_.is_trainer) {
      h << "  // ---- training\n"
           "  /// One training step on the inputs as set; returns the loss (which may be NaN or Inf:\n"
           "  /// the caller decides whether to stop).\n  double step();\n";
      std::vector<std::string> params;
      auto names = step_params(in_);
      for (size_t i = 0; i < in_.size(); ++i)
        params.push_back(fmt::format("const {}* {}, const {}& {}", in_[i].ctype, names[i].first, array_type(in_[i]),
                                     names[i].second));
      h << fmt::format("  /// set_input_*() for each input in order, then step().\n  double step({});\n",
                       fmt::join(params, ", "));
      if (!lr_.empty())
        h << fmt::format("  /// The optimizer's learning rate (the program's {}).\n"
                         "  float learning_rate() const;\n  void set_learning_rate(float lr);\n",
                         cpp_comment_text(lr_));
      h << "\n";
    } else {
      h << "  /// One inference on the inputs as set. Throws fluidc::Error when an input was never set.\n"
           "  void run();\n\n";
    }
    h << "  // ---- state\n"
         "  /// Replaces the weights (every persistable, or just the parameters) from a combined\n"
         "  /// .pdiparams file or a directory of one file per variable, checked against the program.\n"
         "  void load(const std::string& path);\n"
         "  /// Writes every persistable atomically to `path` (Paddle's combined format, sorted by name);\n"
         "  /// refuses when one is NaN or Inf.\n"
         "  void save(const std::string& path) const;\n"
         "  /// After every op, check its float outputs and throw at the first NaN or Inf.\n"
         "  void set_check_nan(bool on);\n"
         "  /// The threads the kernels' GEMMs may use, process-wide (default: the CPUs available).\n"
         "  static void set_num_threads(int n);\n\n"
         " private:\n  struct Impl;\n  std::unique_ptr<Impl> impl_;\n};\n";
    if (!spec_.class_namespace.empty()) h << fmt::format("\n}}  // namespace {}\n", spec_.class_namespace);
    return h.str();
  }

  std::string impl() {
    std::ostringstream c;
    const std::string q = qualified();
    const std::string& cls = spec_.class_name;
    c << fmt::format("// MACHINE GENERATED by fluidc {}: the methods of {} over {}::Model.\n", kFluidcVersion, q,
                     spec_.model_namespace);
    c << fmt::format("#include \"{}\"\n\n#include \"runtime/library.h\"\n\n", spec_.header_name);
    c << fmt::format("namespace {} {{\nconst fluidc::rt::ModelInfo& model_info();\n}}\n\n", spec_.model_namespace);
    c << "namespace {\n\n// Runs f, turning the runtime's errors into the header's fluidc::Error.\n"
         "template <class F>\ndecltype(auto) guarded(F&& f) {\n  try {\n    return f();\n"
         "  } catch (const fluidc::rt::Error& e) {\n    throw fluidc::Error(fluidc::rt::located_message(e));\n  }\n}\n\n"
         "}  // namespace\n\n";
    c << fmt::format("struct {}::Impl {{\n  fluidc::rt::LibraryInstance instance{{{}::model_info()}};\n}};\n\n", q,
                     spec_.model_namespace);
    c << fmt::format("{0}::{1}() : impl_(guarded([] {{ return std::make_unique<Impl>(); }})) {{}}\n"
                     "{0}::~{1}() = default;\n{0}::{1}({1}&&) noexcept = default;\n"
                     "{0}& {0}::operator=({1}&&) noexcept = default;\n\n",
                     q, cls);
    for (size_t i = 0; i < in_.size(); ++i) {
      const Var& v = in_[i];
      const std::string a = array_type(v);
      const size_t r = v.dims.size();
      c << fmt::format("{0}* {1}::input_{2}() {{\n  return guarded([&] {{ return static_cast<{0}*>(impl_->instance.feed_data({3})); }});\n}}\n",
                       v.ctype, q, v.id, i);
      c << fmt::format("{0} {1}::input_{2}_shape() const {{\n  {0} s{{}};\n  guarded([&] {{ impl_->instance.feed_shape({3}, s.data(), {4}); }});\n  return s;\n}}\n",
                       a, q, v.id, i, r);
      c << fmt::format("void {0}::resize_input_{1}(const {2}& shape) {{\n  guarded([&] {{ impl_->instance.resize_feed({3}, shape.data(), {4}); }});\n}}\n",
                       q, v.id, a, i, r);
      c << fmt::format("void {0}::set_input_{1}(const {5}* data, const {2}& shape) {{\n  guarded([&] {{ impl_->instance.set_feed({3}, data, shape.data(), {4}); }});\n}}\n",
                       q, v.id, a, i, r, v.ctype);
      if (v.lod_level > 0)
        c << fmt::format("void {0}::set_input_{1}_lod(const {3}& lod) {{\n  guarded([&] {{ impl_->instance.set_feed_lod({2}, lod); }});\n}}\n"
                         "{3} {0}::input_{1}_lod() const {{\n  return guarded([&] {{ return impl_->instance.feed_lod({2}); }});\n}}\n",
                         q, v.id, i, kLodType);
      c << "\n";
    }
    for (size_t i = 0; i < out_.size(); ++i) {
      const Var& v = out_[i];
      const std::string a = array_type(v);
      c << fmt::format("const {0}* {1}::output_{2}() const {{\n  return guarded([&] {{ return static_cast<const {0}*>(impl_->instance.fetch_data({3})); }});\n}}\n",
                       v.ctype, q, v.id, i);
      c << fmt::format("{0} {1}::output_{2}_shape() const {{\n  {0} s{{}};\n  guarded([&] {{ impl_->instance.fetch_shape({3}, s.data(), {4}); }});\n  return s;\n}}\n",
                       a, q, v.id, i, v.dims.size());
      c << fmt::format("int64_t {0}::output_{1}_size() const {{\n  if (!output_{1}()) return 0;\n  int64_t n = 1;\n"
                       "  for (int64_t d : output_{1}_shape()) n *= d;\n  return n;\n}}\n",
                       q, v.id);
      if (v.lod_level > 0)
        c << fmt::format("{3} {0}::output_{1}_lod() const {{\n  return guarded([&] {{ return impl_->instance.fetch_lod({2}); }});\n}}\n",
                         q, v.id, i, kLodType);
      c << "\n";
    }
    if (info_.is_trainer) {
      c << fmt::format("double {}::step() {{\n  return guarded([&] {{ return impl_->instance.step(); }});\n}}\n", q);
      std::vector<std::string> params, sets;
      auto names = step_params(in_);
      for (size_t i = 0; i < in_.size(); ++i) {
        params.push_back(fmt::format("const {}* {}, const {}& {}", in_[i].ctype, names[i].first, array_type(in_[i]),
                                     names[i].second));
        sets.push_back(fmt::format("  set_input_{}({}, {});\n", in_[i].id, names[i].first, names[i].second));
      }
      c << fmt::format("double {}::step({}) {{\n{}  return step();\n}}\n", q, fmt::join(params, ", "), fmt::join(sets, ""));
      if (!lr_.empty()) {
        c << fmt::format("float {}::learning_rate() const {{\n  return guarded([&] {{ return impl_->instance.get_scalar({}); }});\n}}\n",
                         q, cpp_string_literal(lr_));
        c << fmt::format("void {}::set_learning_rate(float lr) {{\n  guarded([&] {{ impl_->instance.set_scalar({}, lr); }});\n}}\n",
                         q, cpp_string_literal(lr_));
      }
    } else {
      c << fmt::format("void {}::run() {{\n  guarded([&] {{ impl_->instance.run(); }});\n}}\n", q);
    }
    c << fmt::format("void {0}::load(const std::string& path) {{\n  guarded([&] {{ impl_->instance.load(path); }});\n}}\n"
                     "void {0}::save(const std::string& path) const {{\n  guarded([&] {{ impl_->instance.save(path); }});\n}}\n"
                     "void {0}::set_check_nan(bool on) {{ impl_->instance.set_check_nan(on); }}\n"
                     "void {0}::set_num_threads(int n) {{\n  guarded([&] {{ fluidc::rt::library_set_num_threads(n); }});\n}}\n",
                     q);
    return c.str();
  }

  std::string qualified() const {
    return spec_.class_namespace.empty() ? spec_.class_name : spec_.class_namespace + "::" + spec_.class_name;
  }

  const Program& main_;
  const ProgramInfo& info_;
  const LibSpec& spec_;
  std::vector<Var> in_, out_;
  std::string lr_;
};

}  // namespace

LibSources emit_library_sources(const Program& main, const ProgramInfo& info,
                                const std::map<std::string, TensorType>* types, const LibSpec& spec) {
  return LibEmitter(main, info, types, spec).run();
}

std::pair<std::string, std::string> parse_class_name(const std::string& qualified) {
  std::vector<std::string> parts = qualified_name_parts(qualified);
  for (const auto& p : parts)
    if (!plain_identifier(p))
      user_error(fmt::format("--class {}: '{}' is not a plain C++ identifier (letters, digits, '_'; no keyword)",
                             cpp_comment_text(qualified), cpp_comment_text(p)));
  // The methods' file names std:: and fluidc:: unqualified: a namespace of
  // that name around them would hide the real ones.
  for (const auto& p : parts)
    if (p == "std" || p == "fluidc")
      user_error(fmt::format("--class {}: a namespace or class named '{}' would hide the real one", qualified, p));
  std::string name = parts.back();
  parts.pop_back();
  return {fmt::format("{}", fmt::join(parts, "::")), name};
}

std::string default_class_name(const std::string& library_name) {
  std::string out;
  bool up = true;
  for (unsigned char ch : library_name) {
    if (!std::isalnum(ch)) {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(ch)) : static_cast<char>(ch);
    up = false;
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "Model" + out;
  return "fluidc_models::" + out;
}

}  // namespace fluidc
