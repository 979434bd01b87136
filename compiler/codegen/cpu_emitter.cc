// compiler/codegen/cpu_emitter.cc - the CPU code generator: straight-line C++ over kernels/ functions.
#include "compiler/codegen/cpu_emitter.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "compiler/codegen/emit_ctx.h"
#include "compiler/codegen/escape.h"
#include "compiler/codegen/fusion.h"
#include "compiler/codegen/fusion_plan.h"
#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/version.h"

namespace fluidc {
namespace {

bool holds_array(const pb::VarDesc& v) { return v.type().type() == pb::VarType::LOD_TENSOR_ARRAY; }

// Where a variable lives. Block 0 of the main and the startup program share
// one namespace, as they share Paddle's global scope; a sub-block's own
// variables are distinct from same-named ones elsewhere.
std::string scope_key(const std::string& prefix, int block, const std::string& name) {
  return block == 0 ? name : fmt::format("{}.{}/{}", prefix, block, name);
}

std::string float_literal(double v, bool single) {
  if (std::isnan(v)) return single ? "std::numeric_limits<float>::quiet_NaN()" : "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v))
    return fmt::format("{}std::numeric_limits<{}>::infinity()", v < 0 ? "-" : "", single ? "float" : "double");
  std::string s = single ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return single ? s + "f" : s;
}

// The C++ value of an attribute, as the kernel's attribute struct field
// expects it (AttrDef::type says which field type the struct uses).
std::string attr_literal(const pb::OpDesc& op, const ops::AttrDef& ad) {
  switch (ad.type) {
    case pb::INT: case pb::LONG: return std::to_string(attr_int(op, ad.name, 0));
    case pb::FLOAT: return float_literal(attr_float(op, ad.name, 0), true);
    case pb::FLOAT64: return float_literal(attr_float(op, ad.name, 0), false);
    case pb::BOOLEAN: return attr_bool(op, ad.name, false) ? "true" : "false";
    case pb::STRING: return cpp_string_literal(attr_string(op, ad.name, ""));
    case pb::INTS: case pb::LONGS: return fmt::format("{{{}}}", fmt::join(attr_ints(op, ad.name), ", "));
    case pb::FLOATS: {
      std::vector<std::string> xs;
      for (double v : attr_floats(op, ad.name)) xs.push_back(float_literal(v, true));
      return fmt::format("{{{}}}", fmt::join(xs, ", "));
    }
    default: internal_error(fmt::format("attribute type {} has no kernel literal", pb::AttrType_Name(ad.type)));
  }
}

const char* rt_dtype(pb::VarType::Type t) {
  switch (t) {
    case pb::VarType::BOOL: return "kBool";
    case pb::VarType::INT16: return "kInt16";
    case pb::VarType::INT32: return "kInt32";
    case pb::VarType::INT64: return "kInt64";
    case pb::VarType::FP16: return "kFP16";
    case pb::VarType::FP32: return "kFP32";
    case pb::VarType::FP64: return "kFP64";
    case pb::VarType::UINT8: return "kUInt8";
    case pb::VarType::INT8: return "kInt8";
    default: return nullptr;
  }
}

class Emitter {
 public:
  Emitter(const Program& main, const Program* startup, const ProgramInfo& info, const CpuEmitOptions& opts)
      : main_(main), startup_(startup), info_(info), opts_(opts) {}

  std::string run() {
    collect_vars(main_, "main");
    if (startup_) collect_vars(*startup_, "startup");
    assign_identifiers();
    std::string main_fns = emit_program(main_, "main");
    std::string startup_fns = startup_ ? emit_program(*startup_, "startup") : "";
    std::ostringstream out;
    emit_prologue(out);
    emit_variables(out);
    out << attrs_.str() << "\n" << main_fns << startup_fns;
    emit_model(out);
    return out.str();
  }

 private:
  struct VarSlot {
    std::string name;
    int block;
    const pb::VarDesc* desc;
  };

  void collect_vars(const Program& p, const std::string& prefix) {
    for (int b = 0; b < p.num_blocks(); ++b)
      for (const auto& v : p.block(b).vars())
        if (is_dense_tensor(v) || holds_array(v))  // main's VarDesc wins: it is collected first
          vars_.emplace(scope_key(prefix, b, v.name()), VarSlot{v.name(), b, &v});
  }

  void assign_identifiers() {
    std::set<std::string> used;
    for (const auto& [key, slot] : vars_) {
      std::string base = cpp_identifier(slot.name);
      if (slot.block != 0) base = fmt::format("v_{}{}_{}", key.rfind("startup", 0) == 0 ? "sb" : "b", slot.block,
                                              base.substr(2));
      std::string id = base;
      for (int n = 2; used.count(id); ++n) id = fmt::format("{}_{}", base, n);
      used.insert(id);
      idents_[key] = id;
    }
  }

  // The identifier of `name` as seen from `block` of program `p`: resolved
  // to its defining block at compile time, like Paddle's scope lookup.
  const std::string* resolve(const Program& p, const std::string& prefix, int block, const std::string& name) {
    int found = -1;
    if (!p.find_var(block, name, &found)) return nullptr;
    auto it = idents_.find(scope_key(prefix, found, name));
    return it == idents_.end() ? nullptr : &it->second;
  }

  void emit_prologue(std::ostringstream& out) {
    out << fmt::format("// MACHINE GENERATED by fluidc {} from {} (sha256 {})\n", kFluidcVersion,
                       cpp_comment_text(opts_.main_name), main_.sha256());
    if (startup_) out << fmt::format("// startup program: {} (sha256 {})\n", cpp_comment_text(opts_.startup_name),
                         startup_->sha256());
    out << "// Regenerate with `fluidc emit`; edits here are lost.\n\n";
    out << "#include <algorithm>\n#include <array>\n#include <limits>\n#include <vector>\n\n#include \"runtime/model.h\"\n#include \"runtime/step_stack.h\"\n#include \"runtime/tensor_array.h\"\n";
    for (const auto& f : families_) out << fmt::format("#include \"kernels/{}.h\"\n", f);
    out << "\nnamespace {\n\nnamespace k = fluidc::kernels;\nusing fluidc::rt::OpSite;\nusing fluidc::rt::Tensor;\n"
           "using fluidc::rt::TensorArray;\nusing fluidc::rt::g_current_op;\n\n";
  }

  void emit_variables(std::ostringstream& out) {
    out << "// Program variables, one per name and scope: block 0 of the main and the\n"
           "// startup program share them by name, as they share a scope in Paddle.\n";
    for (const auto& [key, slot] : vars_) {
      const auto* td = tensor_desc(*slot.desc);
      std::string type = td ? dtype_str(td->data_type()) + dims_str(td->dims()) : "?";
      out << fmt::format("{} {};  // {}: {}{}{}\n", holds_array(*slot.desc) ? "TensorArray" : "Tensor",
                         idents_.at(key), cpp_comment_text(slot.name), holds_array(*slot.desc) ? "array of " : "", type,
                         slot.block ? fmt::format(", block {}", slot.block)
                                    : slot.desc->persistable() ? ", persistable" : "");
    }
    out << "\n";
  }

  std::string emit_program(const Program& p, const std::string& prefix) {
    std::ostringstream fns;
    // Blocks call their sub-blocks' functions: declare them all first.
    if (p.num_blocks() > 1) {
      for (int b = 0; b < p.num_blocks(); ++b) fns << fmt::format("void {}_block{}();\n", prefix, b);
      fns << "\n";
    }
    for (int b = p.num_blocks() - 1; b >= 0; --b) {
      std::ostringstream body;
      const auto& block = p.block(b);
      // The main program runs every step; the startup program once.
      static const std::vector<FusedChain> kNoChains;
      const std::vector<FusedChain>& chains = opts_.fusion && prefix == "main" ? opts_.fusion->chains(b) : kNoChains;
      size_t next = 0;
      for (int i = 0; i < block.ops_size(); ++i) {
        if (next < chains.size() && chains[next].ops.front() == i) {
          emit_chain(p, prefix, b, chains[next], body);
          i = chains[next++].ops.back();
          continue;
        }
        emit_op(p, prefix, b, i, body);
      }
      fns << fmt::format("// {} program, block {}{}\nvoid {}_block{}() {{\n{}}}\n\n", prefix, b,
                         b ? fmt::format(" (parent {})", block.parent_idx()) : "", prefix, b, body.str());
    }
    return fns.str();
  }

  // Names of op i's hoisted OpSite and kernel-attribute constant; a fused
  // chain refers to the ones its ops' fallback calls define.
  static std::string site_ident(const std::string& prefix, int b, int i) {
    return fmt::format("s_{}_{}_{}", prefix, b, i);
  }
  static std::string attrs_ident(const std::string& prefix, int b, int i) {
    return fmt::format("a_{}_{}_{}", prefix, b, i);
  }

  void emit_chain(const Program& p, const std::string& prefix, int b, const FusedChain& chain,
                  std::ostringstream& body) {
    std::ostringstream fallback;
    for (int i : chain.ops) emit_op(p, prefix, b, i, fallback);
    families_.insert({"fused", "pointwise"});
    FusedEmitEnv env;
    env.var = [&](const std::string& name) -> const std::string& {
      const std::string* id = resolve(p, prefix, b, name);
      if (!id) internal_error("fused chain uses " + name + ", which holds no tensor in scope");
      return *id;
    };
    env.site = [&](int i) { return site_ident(prefix, b, i); };
    env.attrs = [&](int i) { return attrs_ident(prefix, b, i); };
    env.fallback = fallback.str();
    emit_fused_chain(p, b, chain, env, body);
  }

  void emit_op(const Program& p, const std::string& prefix, int b, int i, std::ostringstream& body) {
    const auto& op = p.block(b).ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def) internal_error("emitting unverified op " + op.type());
    body << fmt::format("  // block {}, op {}: {}\n", b, i, op.type());
    if (def->has(ops::kFeed) || def->has(ops::kFetch)) {
      auto names = def->has(ops::kFeed) ? op_outputs(op, "Out") : op_inputs(op, "X");
      body << fmt::format("  // {} column {} is bound to {} by the runtime driver\n",
                          def->has(ops::kFeed) ? "feed" : "fetch", attr_int(op, "col", 0),
                          names.empty() ? "?" : cpp_comment_text(names[0]));
      return;
    }
    if (!def->family.empty()) families_.insert(def->family);
    std::string site = site_ident(prefix, b, i);
    attrs_ << fmt::format("const OpSite {}{{{}, {}, {}}};\n", site, b, i, cpp_string_literal(op.type()));
    std::string attrs;
    if (!def->attrs_struct.empty()) {
      attrs = attrs_ident(prefix, b, i);
      attrs_ << fmt::format("const k::{0} {1} = [] {{\n  k::{0} a;\n", def->attrs_struct, attrs);
      for (const auto& ad : def->attrs)
        if (ad.to_kernel && find_attr(op, ad.name))
          attrs_ << fmt::format("  a.{} = {};\n", ad.name, attr_literal(op, ad));
      attrs_ << "  return a;\n}();\n";
    }
    body << fmt::format("  g_current_op = &{};\n", site);
    EmitCtx ctx(
        p, b, op, *def, [&](int blk, const std::string& name) { return resolve(p, prefix, blk, name); },
        [&](int sub) { return fmt::format("{}_block{}", prefix, sub); }, attrs, body, attrs_, families_);
    if (def->emit_cpu) {
      def->emit_cpu(ctx);
      return;
    }
    emit_kernel_call(ctx);
  }

  // The VarBinding table for `names`, with a dims array per variable.
  std::string bindings(std::ostringstream& out, const std::string& table, const std::vector<std::string>& names) {
    if (names.empty()) return "nullptr";
    std::vector<std::string> rows;
    for (const auto& name : names) {
      auto it = vars_.find(name);
      if (it == vars_.end()) internal_error("binding a non-tensor variable " + name);
      const auto* td = tensor_desc(*it->second.desc);
      std::vector<int64_t> dims = td ? std::vector<int64_t>(td->dims().begin(), td->dims().end()) : std::vector<int64_t>{};
      const char* dt = td ? rt_dtype(td->data_type()) : "kFP32";
      if (!dt) dt = "kFP32";
      std::string dims_ident = fmt::format("d_{}", idents_.at(name).substr(2));
      if (dims_emitted_.insert(dims_ident).second)
        out << fmt::format("const int64_t {}[] = {{{}}};\n", dims_ident, dims.empty() ? "0" : fmt::format("{}", fmt::join(dims, ", ")));
      rows.push_back(fmt::format("    {{{}, &{}, fluidc::rt::DType::{}, {}, {}}},", cpp_string_literal(name),
                                 idents_.at(name), dt, dims.size(), dims_ident));
    }
    out << fmt::format("const fluidc::rt::VarBinding {}[] = {{\n{}\n}};\n", table, fmt::join(rows, "\n"));
    return table;
  }

  void emit_model(std::ostringstream& out) {
    out << "// What the runtime driver needs to know about this program.\n";
    std::string feeds = bindings(out, "kFeeds", info_.feeds);
    std::string fetches = bindings(out, "kFetches", info_.fetches);
    std::string persist = bindings(out, "kPersistables", info_.persistables);
    std::string params = bindings(out, "kParameters", info_.parameters);
    std::string loss = "nullptr";
    if (!info_.loss.empty()) loss = "&" + bindings(out, "kLoss", {info_.loss}) + "[0]";
    out << "\n}  // namespace\n\n";
    if (opts_.embed_params)
      out << "extern \"C\" const unsigned char fluidc_embedded_params[];\n"
             "extern \"C\" const unsigned char fluidc_embedded_params_end[];\n\n";
    out << "int main(int argc, char** argv) {\n  static const fluidc::rt::Model model = {\n";
    out << fmt::format("      {}, \"{}\", \"{}\", {},\n", cpp_string_literal(opts_.main_name), main_.sha256(),
                       kFluidcVersion, info_.is_trainer ? "true" : "false");
    auto count = [](const std::vector<std::string>& v) { return v.size(); };
    out << fmt::format("      {}, {}, {}, {}, {}, {}, {}, {},\n", feeds, count(info_.feeds), fetches,
                       count(info_.fetches), persist, count(info_.persistables), params, count(info_.parameters));
    out << fmt::format("      {}, main_block0, {},\n", loss, startup_ ? "startup_block0" : "nullptr");
    if (opts_.embed_params)
      out << "      fluidc_embedded_params,\n"
             "      static_cast<size_t>(fluidc_embedded_params_end - fluidc_embedded_params)};\n";
    else
      out << "      nullptr, 0};\n";
    out << "  return fluidc::rt::run_model_main(argc, argv, model);\n}\n";
  }

  const Program& main_;
  const Program* startup_;
  const ProgramInfo& info_;
  const CpuEmitOptions& opts_;
  std::map<std::string, VarSlot> vars_;  // by scope_key
  std::map<std::string, std::string> idents_;
  std::set<std::string> families_;
  std::set<std::string> dims_emitted_;
  std::ostringstream attrs_;
};

}  // namespace

const std::string& EmitCtx::var_in(int block, const std::string& name) const {
  const std::string* id = resolve_(block, name);
  if (!id) internal_error(fmt::format("op {} uses {}, which holds no tensor in scope", op_.type(), name));
  return *id;
}

void emit_kernel_call(EmitCtx& c) {
  std::vector<std::string> args;
  std::string pre;
  auto add_slots = [&](const std::vector<ops::SlotDef>& slots, bool inputs) {
    for (const auto& s : slots) {
      auto names = inputs ? op_inputs(c.op(), s.name) : op_outputs(c.op(), s.name);
      if (s.duplicable) {
        // Output positions matter (X@GRAD[i] belongs to X[i]): an empty entry is nullptr.
        std::vector<std::string> raw;
        for (const auto& v : inputs ? c.op().inputs() : c.op().outputs())
          if (v.parameter() == s.name) raw.assign(v.arguments().begin(), v.arguments().end());
        std::string arr = fmt::format("{}_{}", inputs ? "in" : "out", cpp_identifier(s.name).substr(2));
        std::vector<std::string> ptrs;
        // Inputs keep only real variables (kernels take what is there).
        if (inputs) raw = names;
        for (const auto& n : raw) ptrs.push_back(is_empty_var_name(n) ? "nullptr" : "&" + c.var(n));
        names = raw;
        pre += fmt::format("    {}Tensor* const {}[] = {{{}}};\n", inputs ? "const " : "", arr, fmt::join(ptrs, ", "));
        args.push_back(arr);
        args.push_back(std::to_string(names.size()));
      } else if (names.empty()) {
        args.push_back("nullptr");
      } else {
        args.push_back((s.optional ? "&" : "") + c.var(names[0]));
      }
    }
  };
  add_slots(c.def().inputs, true);
  add_slots(c.def().outputs, false);
  if (!c.attrs().empty()) args.push_back(c.attrs());
  std::string call = fmt::format("k::{}({});\n", c.op().type(), fmt::join(args, ", "));
  if (pre.empty()) c.body() << "  " << call;
  else c.body() << "  {\n" << pre << "    " << call << "  }\n";
}

std::string emit_cpu_program(const Program& main, const Program* startup, const ProgramInfo& info,
                             const CpuEmitOptions& options) {
  return Emitter(main, startup, info, options).run();
}

}  // namespace fluidc
