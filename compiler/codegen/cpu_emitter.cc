// compiler/codegen/cpu_emitter.cc - the code generator: a program becomes a class of straight-line C++ methods.
#include "compiler/codegen/cpu_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "compiler/ops/emit_ctx.h"
#include "compiler/support/escape.h"
#include "compiler/codegen/fusion.h"
#include "compiler/codegen/fusion_plan.h"
#include "compiler/codegen/memory_plan.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/support/diagnostics.h"
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

// A user-chosen namespace part must be a plain identifier and not name a
// namespace generated code names unqualified (`std::`, `fluidc::rt::`),
// which a part of that name would hide.
bool namespace_part_ok(const std::string& part) { return plain_identifier(part) && part != "std" && part != "fluidc"; }

// The generated class's namespace: the user's, checked (it is written into
// code unescaped), or one from the file name and checksum, so that two
// programs linked into one binary never share one.
std::string model_namespace(const EmitOptions& o, const Program& main) {
  if (!o.cpp_namespace.empty()) {
    for (const auto& part : qualified_name_parts(o.cpp_namespace))
      if (!namespace_part_ok(part))
        user_error(fmt::format("--namespace {}: '{}' is not a plain C++ identifier "
                               "(letters, digits, _; no keyword, std or fluidc)",
                               cpp_string_literal(o.cpp_namespace), cpp_comment_text(part)));
    return o.cpp_namespace;
  }
  std::string stem = o.main_name.substr(0, o.main_name.rfind('.'));
  std::string id = "fluidc_gen_";
  for (char ch : cpp_identifier(stem).substr(2) + "_" + main.sha256().substr(0, 8))
    if (ch != '_' || id.back() != '_') id += ch;  // no "__": reserved
  return id;
}

// A linker symbol unique to the namespace: each part length-prefixed, so
// `a::b_c` and `a_b::c` differ.
std::string params_symbol(const std::string& ns) {
  std::string sym = "fluidc_params_";
  for (const auto& part : qualified_name_parts(ns)) sym += std::to_string(part.size()) + part;
  return sym;
}

// A variable's type as the generated code declares it: the inferred one
// when inference knows it, else the VarDesc's.
struct DeclType {
  bool known = false;
  pb::VarType::Type dtype = pb::VarType::FP32;
  std::vector<int64_t> dims;
};

// The most ops one generated method holds; a longer block becomes a method
// calling parts of this size. clang's time on one function grows faster
// than linearly with its size (docs/performance.md).
constexpr int kOpsPerMethod = 256;
// A block of more than this many parts puts its parts into translation
// units of this many each (EmittedProgram::shards), which the build compiles
// in parallel: one file of 10,000 ops kept clang busy ~15 s on one core.
constexpr size_t kPartsPerShard = 8;
// The most variables declared directly in the class; more go into base
// classes of this many each (see emit_class).
constexpr size_t kVarsPerGroup = 256;

// One extra translation unit: part methods of long blocks and the
// constants only their ops use.
struct Shard {
  std::string consts, fns;
};

class Emitter {
 public:
  Emitter(const Target& target, const Program& main, const Program* startup, const ProgramInfo& info,
          const EmitOptions& opts)
      : target_(target), main_(main), startup_(startup), info_(info), opts_(opts),
        ns_(model_namespace(opts, main)) {}

  EmittedProgram run() {
    collect_vars(main_, "main");
    if (startup_) collect_vars(*startup_, "startup");
    has_lod_ = program_has_lod(main_);
    assign_identifiers();
    std::string main_fns = emit_program(main_, "main");
    std::string startup_fns = startup_ ? emit_program(*startup_, "startup") : "";
    main_fns += emit_memory_plan();
    std::ostringstream tables;
    emit_tables(tables);
    std::ostringstream out;
    emit_prologue(out);
    out << fmt::format("namespace {} {{\nnamespace {{\n\n", ns_);
    target_.emit_namespace_prologue(out);
    out << "\n// Where each op is (for error messages) and its kernel attributes: constants\n"
           "// shared by every instance.\n";
    out << attrs_.str() << "\n" << tables.str() << "\n}  // namespace\n\n";
    if (opts_.embed_params)
      out << fmt::format("extern \"C\" const unsigned char {0}[];\nextern \"C\" const unsigned char {0}_end[];\n\n",
                         params_symbol(ns_));
    out << "const fluidc::rt::ModelInfo& model_info();\n\n";
    emit_class(out);
    out << main_fns << startup_fns;
    emit_info(out);
    out << fmt::format("}}  // namespace {}\n", ns_);
    // Programs with communication ops (kernels/dist.h, kernels/coll.h) start through their launcher.
    if (opts_.emit_main)
      out << fmt::format("\nint main(int argc, char** argv) {{\n"
                         "  return {}(argc, argv, {}::model_info());\n}}\n",
                         families_.count("dist")   ? "fluidc::dist::run_dist_main"
                         : families_.count("coll") ? target_.collective_main_function()
                                                   : target_.main_function(),
                         ns_);
    EmittedProgram result{out.str(), ns_, opts_.embed_params ? params_symbol(ns_) : "", {}};
    for (size_t k = 0; k < shards_.size(); ++k) result.shards.emplace_back(shard_file(k + 1), shard_source(k));
    return result;
  }

 private:
  struct VarSlot {
    std::string name;
    int block;
    const pb::VarDesc* desc;
  };

  // "model.cc" -> "model_shard1.cc": the target's file name, numbered.
  std::string shard_file(size_t n) const {
    const std::string base = target_.source_file();
    const size_t dot = base.rfind('.');
    return fmt::format("{}_shard{}{}", base.substr(0, dot), n, dot == std::string::npos ? "" : base.substr(dot));
  }

  // A shard: the same includes, using-declarations and class as model.cc,
  // then its parts' constants and methods.
  std::string shard_source(size_t k) {
    std::ostringstream out;
    out << fmt::format("// MACHINE GENERATED by fluidc {} from {} (sha256 {}): shard {} of {}.\n"
                       "// Regenerate with `fluidc emit`; edits here are lost.\n\n",
                       kFluidcVersion, cpp_comment_text(opts_.main_name), main_.sha256(), k + 1,
                       target_.source_file());
    target_.emit_prologue(out, families_);
    out << fmt::format("\nnamespace {} {{\nnamespace {{\n\n", ns_);
    target_.emit_namespace_prologue(out);
    out << "\n" << shards_[k].consts << "\n}  // namespace\n\n";
    out << "const fluidc::rt::ModelInfo& model_info();\n\n";
    emit_class(out, true);
    out << shards_[k].fns << fmt::format("}}  // namespace {}\n", ns_);
    return out.str();
  }

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

  // Block 0's variables are the ones inference typed by name (sub-blocks
  // may reuse a name for another variable); the rest keep their VarDesc.
  DeclType decl_type(const VarSlot& slot) const {
    DeclType t;
    if (slot.block == 0 && opts_.types) {
      auto it = opts_.types->find(slot.name);
      if (it != opts_.types->end() && it->second.known) {
        t.known = true;
        t.dtype = it->second.dtype;
        t.dims = it->second.dims;
        return t;
      }
    }
    if (const auto* td = tensor_desc(*slot.desc)) {
      t.known = true;
      t.dtype = td->data_type();
      t.dims.assign(td->dims().begin(), td->dims().end());
    }
    return t;
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
    target_.emit_prologue(out, families_);
    out << "\n";
  }

  // The class: one instance holds all of the program's state, so a process
  // may hold several (threads, a trainer beside an evaluator, two models).
  // `shard`: for a shard's copy of the class, which leaves the variable
  // groups' out-of-line constructors to model.cc.
  void emit_class(std::ostringstream& out, bool shard = false) {
    std::vector<std::string> decls;
    for (const auto& [key, slot] : vars_) {
      const DeclType t = decl_type(slot);
      std::string type = t.known ? dtype_str(t.dtype) + dims_str(t.dims) : "?";
      decls.push_back(fmt::format("  {} {};  // {}: {}{}{}\n", target_.storage_type(holds_array(*slot.desc)),
                                  idents_.at(key), cpp_comment_text(slot.name), holds_array(*slot.desc) ? "array of " : "",
                                  type, slot.block ? fmt::format(", block {}", slot.block)
                                                   : slot.desc->persistable() ? ", persistable" : ""));
    }
    // Many variables: in groups, each a base class constructed and destroyed
    // out of line. As members of Model they made its constructor one basic
    // block of every tensor's initialisation, which clang's instruction
    // scheduler takes quadratic time over (10,000 tensors: 63 s of a 98 s build).
    std::vector<std::string> groups;
    if (decls.size() > kVarsPerGroup) {
      out << "// The program's variables in groups (see the class below); members, not locals, so that\n"
             "// every block method reaches them.\n";
      for (size_t first = 0; first < decls.size(); first += kVarsPerGroup) {
        groups.push_back(fmt::format("ModelVars{}", groups.size()));
        out << fmt::format("struct {0} {{\n  [[gnu::noinline]] {0}();\n  [[gnu::noinline]] ~{0}();\n", groups.back());
        for (size_t i = first; i < std::min(decls.size(), first + kVarsPerGroup); ++i) out << decls[i];
        out << "};\n";
        if (!shard) out << fmt::format("{0}::{0}() = default;\n{0}::~{0}() = default;\n", groups.back());
        out << "\n";
      }
    }
    out << fmt::format("/// {} compiled: every variable a member, every block a method.\n",
                       cpp_comment_text(opts_.main_name));
    out << "class Model final : public " << target_.model_base_class();
    for (const auto& g : groups) out << ", " << g;
    out << " {\n public:\n";
    out << fmt::format("  Model() : {}(model_info(), {}) {{}}\n", target_.model_base_class(),
                       slots_.empty() ? "nullptr" : "slots_");
    // bind_arena() after the load-time ops: those never touch planned variables.
    const std::string bind = has_memory_plan() ? "bind_arena(); " : "";
    const std::string run = target_.run_method();
    if (has_load_time_)
      out << "  void " << run << "() override {\n    if (!load_time_done_) {\n      main_load_time();\n"
             "      load_time_done_ = true;\n    }\n    " << bind << "main_block0();\n  }\n";
    else
      out << "  void " << run << "() override { " << bind << "main_block0(); }\n";
    out << fmt::format("  void {}() override {{{}}}\n\n private:\n", target_.startup_method(),
                       startup_ ? " startup_block0(); " : "");
    for (const auto& fn : block_fns_) out << fmt::format("  void {}();\n", fn);
    // Parts of long blocks stay separate functions: the optimiser's cost
    // grows faster than linearly with a function's size.
    for (const auto& fn : part_fns_) out << fmt::format("  [[gnu::noinline]] void {}();\n", fn);
    out << "\n  // Program variables, one per name and scope: block 0 of the main and the\n"
           "  // startup program share them by name, as they share a scope in Paddle.\n";
    if (groups.empty())
      for (const auto& d : decls) out << d;
    else
      out << fmt::format("  // (in the bases {})\n", fmt::join(groups, ", "));
    if (!members_.str().empty()) out << "\n  // State of control-flow ops, kept from one run to the next.\n" << members_.str();
    if (!slots_.empty()) {
      std::vector<std::string> ptrs;
      for (const auto& id : slots_) ptrs.push_back("&" + id);
      out << "\n  // What the runtime reaches by name: VarBinding::slot indexes this.\n";
      out << fmt::format("  Tensor* const slots_[{}] = {{{}}};\n", slots_.size(), fmt::join(ptrs, ", "));
    }
    out << "};\n\n";
  }

  std::string emit_program(const Program& p, const std::string& prefix) {
    std::ostringstream fns;
    for (int b = 0; b < p.num_blocks(); ++b) block_fns_.push_back(fmt::format("{}_block{}", prefix, b));
    for (int b = p.num_blocks() - 1; b >= 0; --b) {
      std::ostringstream body;
      const auto& block = p.block(b);
      // The main program runs every step; the startup program once.
      static const std::vector<FusedChain> kNoChains;
      const std::vector<FusedChain>& chains = opts_.fusion && prefix == "main" ? opts_.fusion->chains(b) : kNoChains;
      // Each op or fused chain is one unit of code; a long block is cut
      // between units into methods of at most kOpsPerMethod ops. A long
      // block's units keep their ops' constants beside their code, since a
      // part may go into a shard; the rest write them to the common ones.
      const bool parted = block.ops_size() > kOpsPerMethod;
      struct Unit {
        int ops;
        std::string code, consts;
      };
      std::vector<Unit> units;
      auto add_unit = [&](int ops, const std::function<void(std::ostringstream&)>& emit) {
        std::ostringstream code, consts;
        if (parted) consts_ = &consts;
        emit(code);
        consts_ = &attrs_;
        units.push_back({ops, code.str(), consts.str()});
      };
      // Load-time ops (main block 0 only) go into their own method.
      const std::vector<bool>* lt = prefix == "main" && b == 0 ? opts_.load_time : nullptr;
      auto at_load = [&](int i) { return lt && i < static_cast<int>(lt->size()) && (*lt)[i]; };
      std::ostringstream load_time_body;
      const auto released = lt ? load_time_releases(p, prefix, *lt) : std::map<int, std::vector<std::string>>{};
      auto emit_single = [&](int i) {
        if (at_load(i)) {
          emit_op(p, prefix, b, i, load_time_body);
          if (auto it = released.find(i); it != released.end())
            for (const auto& member : it->second)
              load_time_body << fmt::format("  {}  // read by no later op\n", target_.release_statement(member));
          return;
        }
        add_unit(1, [&](std::ostringstream& code) { emit_op(p, prefix, b, i, code); });
      };
      size_t next = 0;
      for (int i = 0; i < block.ops_size(); ++i) {
        if (next < chains.size() && chains[next].ops.front() == i) {
          const FusedChain& chain = chains[next++];
          i = chain.ops.back();
          // A chain with load-time ops is written op by op: its ops run at two different times.
          if (std::any_of(chain.ops.begin(), chain.ops.end(), at_load)) {
            for (int k : chain.ops) emit_single(k);
            continue;
          }
          add_unit(static_cast<int>(chain.ops.size()),
                   [&](std::ostringstream& code) { emit_chain(p, prefix, b, chain, code); });
        } else {
          emit_single(i);
        }
      }
      if (!load_time_body.str().empty()) {
        has_load_time_ = true;
        block_fns_.push_back("main_load_time");
        fns << fmt::format("// main program, block 0: the load-time ops (values from parameters alone), run\n"
                           "// once per parameter load (rt::Model::parameters_changed)\nvoid Model::main_load_time() {{\n{}}}\n\n",
                           load_time_body.str());
      }
      const std::string fn = fmt::format("{}_block{}", prefix, b);
      if (!parted) {
        for (const auto& u : units) body << u.code;
      } else {
        std::vector<Shard> parts;  // each part's method and its ops' constants
        size_t u = 0;
        for (int part = 0; u < units.size(); ++part) {
          std::ostringstream part_body;
          Shard piece;
          for (int ops = 0; u < units.size() && (ops == 0 || ops + units[u].ops <= kOpsPerMethod); ++u) {
            ops += units[u].ops;
            part_body << units[u].code;
            piece.consts += units[u].consts;
          }
          const std::string part_fn = fmt::format("{}_part{}", fn, part);
          part_fns_.push_back(part_fn);
          body << fmt::format("  {}();\n", part_fn);
          piece.fns = fmt::format("// {} program, block {}, part {}\nvoid Model::{}() {{\n{}}}\n\n", prefix, b,
                                  part, part_fn, part_body.str());
          parts.push_back(std::move(piece));
        }
        for (size_t k = 0; k < parts.size(); ++k) {
          if (parts.size() <= kPartsPerShard) {
            attrs_ << parts[k].consts;
            fns << parts[k].fns;
            continue;
          }
          if (k % kPartsPerShard == 0) shards_.emplace_back();
          shards_.back().consts += parts[k].consts;
          shards_.back().fns += parts[k].fns;
        }
      }
      fns << fmt::format("// {} program, block {}{}\nvoid Model::{}() {{\n{}}}\n\n", prefix, b,
                         b ? fmt::format(" (parent {})", block.parent_idx()) : "", fn, body.str());
    }
    return fns.str();
  }

  bool has_memory_plan() const { return opts_.memory && !opts_.memory->empty(); }

  // The memory plan: arena members and bind_arena(), which run() calls
  // first. The static views are set once; the per-batch ones whenever the
  // feeds' batch N changes (offsets and capacities scale by N), and when
  // the feeds disagree on N those variables get owned storage for the run.
  std::string emit_memory_plan() {
    if (!has_memory_plan()) return "";
    const MemoryPlan& m = *opts_.memory;
    // The placements are tables of member pointers (constant data), walked
    // by a loop: a view() call per variable made bind_arena() one basic
    // block of thousands of calls, which clang schedules in quadratic time.
    std::vector<std::string> fixed, batch;
    for (const auto& v : m.vars)
      (v.arena == ArenaKind::kStatic ? fixed : batch)
          .push_back(fmt::format("    {{&Model::{}, {}, {}}},", idents_.at(scope_key("main", v.block, v.name)),
                                 v.offset, v.bytes));
    members_ << "  fluidc::rt::Arena arena_static_, arena_batch_;  // the memory plan's arenas\n"
                "  bool arena_static_bound_ = false;\n  int64_t arena_batch_n_ = -1;\n"
                "  // A planned variable: its offset and bytes in its arena (per unit of N in the per-batch one).\n"
                "  struct ArenaEntry {\n    Tensor Model::*var;\n    size_t offset, bytes;\n  };\n";
    std::string tables;
    auto table = [&](const char* name, const std::vector<std::string>& rows) {
      if (rows.empty()) return;
      members_ << fmt::format("  static const ArenaEntry {}[{}];\n", name, rows.size());
      tables += fmt::format("const Model::ArenaEntry Model::{}[{}] = {{\n{}\n}};\n\n", name, rows.size(),
                            fmt::join(rows, "\n"));
    };
    table("kArenaStatic", fixed);
    table("kArenaBatch", batch);
    block_fns_.push_back("bind_arena");
    std::string s;
    if (!fixed.empty())
      s = fmt::format("  if (!arena_static_bound_) {{\n    arena_static_.reserve({});\n"
                      "    unsigned char* base = arena_static_.data();\n"
                      "    for (const ArenaEntry& e : kArenaStatic) (this->*e.var).view(base + e.offset, e.bytes);\n"
                      "    arena_static_bound_ = true;\n  }}\n",
                      m.fixed.size);
    if (!m.batch_feeds.empty() && !batch.empty()) {
      std::vector<std::string> feeds;
      for (const auto& f : m.batch_feeds) feeds.push_back("&" + idents_.at(f));
      s += fmt::format("  const Tensor* const feeds[] = {{{}}};\n  const int64_t n = fluidc::rt::shared_batch(feeds, {});\n"
                       "  if (n == arena_batch_n_) return;\n  arena_batch_n_ = n;\n"
                       "  if (n < 0) {{  // the feeds disagree on N: owned storage for this run\n"
                       "    for (const ArenaEntry& e : kArenaBatch) this->*e.var = Tensor();\n    return;\n  }}\n"
                       "  const size_t un = static_cast<size_t>(n);\n"
                       "  arena_batch_.reserve({} * un);\n  unsigned char* base = arena_batch_.data();\n"
                       "  for (const ArenaEntry& e : kArenaBatch) (this->*e.var).view(base + e.offset * un, e.bytes * un);\n",
                       fmt::join(feeds, ", "), feeds.size(), m.batch.size);
    }
    return fmt::format("// the memory plan: {} static bytes, {} bytes x N per batch\n{}void Model::bind_arena() {{\n{}}}\n\n",
                       m.fixed.size, m.batch.size, tables, s);
  }

  // Names of op i's hoisted OpSite and kernel-attribute constant; a fused
  // chain refers to the ones its ops' fallback calls define.
  static std::string site_ident(const std::string& prefix, int b, int i) {
    return fmt::format("s_{}_{}_{}", prefix, b, i);
  }
  static std::string attrs_ident(const std::string& prefix, int b, int i) {
    return fmt::format("a_{}_{}_{}", prefix, b, i);
  }

  // Defines op's kernel-attribute constant as `ident`, or, where an equal one
  // was already written to the common constants, names that one instead:
  // a trainer's ops repeat a few attribute sets (ResNet-18's 337 were 48
  // distinct), and each definition is an initialiser clang must compile.
  // A long block's units keep their own (a unit may land in another shard).
  std::string emit_attrs_const(const ops::OpDef& def, const pb::OpDesc& op, const std::string& ident) {
    std::string fields;
    for (const auto& ad : def.attrs)
      if (ad.to_kernel && find_attr(op, ad.name)) fields += fmt::format("  a.{} = {};\n", ad.name, attr_literal(op, ad));
    const bool common = consts_ == &attrs_;
    if (common)
      if (auto it = attr_consts_.find({def.attrs_struct, fields}); it != attr_consts_.end()) return it->second;
    *consts_ << fmt::format("const k::{0} {1} = []() FLUIDC_INIT_ONCE {{\n  k::{0} a;\n{2}  return a;\n}}();\n",
                            def.attrs_struct, ident, fields);
    if (common) attr_consts_[{def.attrs_struct, fields}] = ident;
    return ident;
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
    env.attrs = [&](int i) { return op_attrs_.at({prefix, b, i}); };
    env.fallback = fallback.str();
    emit_fused_chain(p, b, chain, env, body);
    for (int i : chain.ops) emit_share_lod(p, prefix, b, p.block(b).ops(i), body);
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
    std::ostringstream& consts = *consts_;
    consts << fmt::format("const OpSite {}{{{}, {}, {}}};\n", site, b, i, cpp_string_literal(op.type()));
    std::string attrs;
    if (!def->attrs_struct.empty()) attrs = emit_attrs_const(*def, op, attrs_ident(prefix, b, i));
    op_attrs_[{prefix, b, i}] = attrs;
    body << fmt::format("  fluidc::rt::enter_op({});\n", site);
    EmitCtx ctx(
        p, b, op, *def, [&](int blk, const std::string& name) { return resolve(p, prefix, blk, name); },
        [&](int sub) { return fmt::format("{}_block{}", prefix, sub); }, attrs, body, members_, families_,
        [this](EmitCtx& c) { target_.emit_kernel_call(c); });
    ctx.set_companion(&p == &main_ ? startup_ : &main_);
    target_.emit_op(ctx);
    emit_share_lod(p, prefix, b, op, body);
    emit_nan_check(p, prefix, b, op, site, body);
  }

  // Values that only load-time ops read (a folded weight that a Winograd
  // filter transform reads, say) are not needed once the last of those ops
  // is done: their memory goes back right after it, which keeps the peak
  // of a model's load near its parameters plus what it keeps. The next
  // parameter load makes them again. Nothing run later reads them: no op
  // outside the load-time ones, no other block, no fetch. Returns, per
  // load-time op, the members to release after it.
  std::map<int, std::vector<std::string>> load_time_releases(const Program& p, const std::string& prefix,
                                                             const std::vector<bool>& lt) {
    std::set<std::string> read_later;
    std::map<std::string, int> last_use;  // a load-time value -> the last load-time op writing or reading it
    for (int b = 0; b < p.num_blocks(); ++b)
      for (int i = 0; i < p.block(b).ops_size(); ++i) {
        const pb::OpDesc& op = p.block(b).ops(i);
        const bool at_load = b == 0 && i < static_cast<int>(lt.size()) && lt[static_cast<size_t>(i)];
        if (!at_load) {
          for (const auto& slot : op.inputs()) read_later.insert(slot.arguments().begin(), slot.arguments().end());
          continue;
        }
        for (const auto& slot : op.outputs())
          for (const auto& name : slot.arguments()) last_use[name] = i;
        for (const auto& slot : op.inputs())
          for (const auto& name : slot.arguments())
            if (last_use.count(name)) last_use[name] = i;
      }
    std::map<int, std::vector<std::string>> out;
    for (const auto& [name, op] : last_use)
      if (const std::string* member = resolve(p, prefix, 0, name); member && !read_later.count(name))
        out[op].push_back(*member);
    return out;
  }

  // A program with LoD (sequence) variables: any tensor declares lod_level > 0.
  // Only those pay for copying offsets after ops (OpDef::share_lod).
  static bool program_has_lod(const Program& p) {
    for (int b = 0; b < p.num_blocks(); ++b)
      for (const auto& v : p.block(b).vars())
        if (v.type().has_lod_tensor() && v.type().lod_tensor().lod_level() > 0) return true;
    return false;
  }

  // After an op that keeps its input's sequences: each output takes over the
  // LoD of the first variable of the op's share_lod slot; for a gradient op
  // (kShareLodFromForward), the k-th variable of "S@GRAD" that of the k-th of S.
  void emit_share_lod(const Program& p, const std::string& prefix, int b, const pb::OpDesc& op,
                      std::ostringstream& body) {
    const ops::OpDef* def = ops::find_op(op.type());
    if (!has_lod_ || !def || def->share_lod.empty()) return;
    const bool from_forward = def->share_lod == ops::kShareLodFromForward;
    auto share = [&](const std::string& to, const std::string& from) {
      if (is_empty_var_name(to) || is_empty_var_name(from) || to == from) return;
      const pb::VarDesc* v = p.find_var(b, to);
      const std::string* dst = resolve(p, prefix, b, to);
      const std::string* src = resolve(p, prefix, b, from);
      if (v && dst && src && is_dense_tensor(*v)) body << fmt::format("  {}.share_lod({});\n", *dst, *src);
    };
    for (const auto& out : op.outputs()) {
      const std::string& slot = out.parameter();
      std::vector<std::string> from;
      if (!from_forward) from = op_inputs(op, def->share_lod);
      else if (slot.ends_with(kGradSuffix)) from = op_inputs(op, slot.substr(0, slot.size() - kGradSuffix.size()));
      for (int k = 0; k < out.arguments_size(); ++k) {
        const size_t at = from_forward ? static_cast<size_t>(k) : 0;
        if (at < from.size()) share(out.arguments(k), from[at]);
      }
    }
  }

  // --check-nan (rt::Model::check_nan_): after the op, one call per tensor
  // output that returns at once without the flag (no branch here: see
  // rt::check_op_output_if). Names reach the message as escaped literals
  // (they come from the program file).
  void emit_nan_check(const Program& p, const std::string& prefix, int b, const pb::OpDesc& op,
                      const std::string& site, std::ostringstream& body) {
    std::vector<std::string> calls;
    std::set<std::string> seen;
    for (const auto& out : op.outputs())
      for (const auto& name : out.arguments()) {
        if (is_empty_var_name(name) || !seen.insert(name).second) continue;
        const pb::VarDesc* v = p.find_var(b, name);
        const std::string* id = resolve(p, prefix, b, name);
        if (!v || !id || !is_dense_tensor(*v)) continue;
        calls.push_back(fmt::format("fluidc::rt::check_op_output_if(check_nan_, {}, {}, {});", site, *id,
                                    cpp_string_literal(name)));
      }
    if (!calls.empty()) body << fmt::format("  {}\n", fmt::join(calls, " "));
  }

  // The VarBinding table for `names`, with a dims array per variable; each
  // variable gets the next slot of the class's slots_ the first time.
  std::string bindings(std::ostringstream& out, const std::string& table, const std::vector<std::string>& names) {
    if (names.empty()) return "nullptr";
    std::vector<std::string> rows;
    for (const auto& name : names) {
      auto it = vars_.find(name);
      if (it == vars_.end()) internal_error("binding a non-tensor variable " + name);
      const DeclType t = decl_type(it->second);
      const char* dt = t.known ? rt_dtype(t.dtype) : "kFP32";
      if (!dt) dt = "kFP32";
      const std::string& id = idents_.at(name);
      std::string dims_ident = fmt::format("d_{}", id.substr(2));
      if (dims_emitted_.insert(dims_ident).second)
        out << fmt::format("const int64_t {}[] = {{{}}};\n", dims_ident,
                           t.dims.empty() ? "0" : fmt::format("{}", fmt::join(t.dims, ", ")));
      auto [slot, fresh] = slot_of_.emplace(id, slots_.size());
      if (fresh) slots_.push_back(id);
      // lod_level only where a variable has one, so dense programs' tables read as before.
      const pb::VarDesc* vd = it->second.desc;
      const int lod_level = vd && vd->type().has_lod_tensor() ? static_cast<int>(vd->type().lod_tensor().lod_level()) : 0;
      // integer_storage likewise only where set (ProgramInfo: a quantized weight saved as int8).
      const bool integer = info_.integer_storage.count(name) > 0;
      const std::string lod = lod_level > 0 || integer ? fmt::format(", {}", lod_level) : "";
      const std::string integer_flag = integer ? ", true" : "";
      rows.push_back(fmt::format("    {{{}, {}, fluidc::rt::DType::{}, {}, {}{}{}}},  // {}", cpp_string_literal(name),
                                 slot->second, dt, t.dims.size(), dims_ident, lod, integer_flag, id));
    }
    out << fmt::format("const fluidc::rt::VarBinding {}[] = {{\n{}\n}};\n", table, fmt::join(rows, "\n"));
    return table;
  }

  void emit_tables(std::ostringstream& out) {
    out << "// The variables the runtime driver reaches by name.\n";
    feeds_ = bindings(out, "kFeeds", info_.feeds);
    fetches_ = bindings(out, "kFetches", info_.fetches);
    persist_ = bindings(out, "kPersistables", info_.persistables);
    params_ = bindings(out, "kParameters", info_.parameters);
    loss_ = "nullptr";
    if (!info_.loss.empty()) loss_ = "&" + bindings(out, "kLoss", {info_.loss}) + "[0]";
  }

  // What the runtime driver needs to know about this program, and how to
  // make an instance of it.
  void emit_info(std::ostringstream& out) {
    out << "namespace {\n\nfluidc::rt::Model* create() { return new Model; }\n\n";
    out << "const fluidc::rt::ModelInfo kInfo = {\n";
    out << fmt::format("    {}, \"{}\", \"{}\", {},\n", cpp_string_literal(opts_.main_name), main_.sha256(),
                       kFluidcVersion, info_.is_trainer ? "true" : "false");
    auto count = [](const std::vector<std::string>& v) { return v.size(); };
    out << fmt::format("    {}, {}, {}, {}, {}, {}, {}, {},\n", feeds_, count(info_.feeds), fetches_,
                       count(info_.fetches), persist_, count(info_.persistables), params_, count(info_.parameters));
    out << fmt::format("    {}, {},\n", loss_, startup_ ? "true" : "false");
    if (opts_.embed_params)
      out << fmt::format("    {0}, static_cast<size_t>({0}_end - {0}),\n", params_symbol(ns_));
    else
      out << "    nullptr, 0,\n";
    out << "    create};\n\n}  // namespace\n\n";
    out << "const fluidc::rt::ModelInfo& model_info() { return kInfo; }\n\n";
  }

  const Target& target_;
  const Program& main_;
  const Program* startup_;
  const ProgramInfo& info_;
  const EmitOptions& opts_;
  const std::string ns_;
  std::map<std::string, VarSlot> vars_;  // by scope_key
  std::map<std::string, std::string> idents_;
  std::set<std::string> families_;
  std::set<std::string> dims_emitted_;
  std::vector<std::string> block_fns_;
  bool has_load_time_ = false;  ///< the main program has load-time ops (main_load_time)
  bool has_lod_ = false;  ///< some variable has lod_level > 0 (see emit_share_lod)
  std::vector<std::string> part_fns_;  // pieces of long blocks (see kOpsPerMethod)
  std::vector<std::string> slots_;           // identifiers, in slot order
  std::map<std::string, size_t> slot_of_;
  std::string feeds_, fetches_, persist_, params_, loss_;
  std::ostringstream attrs_;
  /// The attribute constants written to attrs_, by (struct, fields), and the
  /// one each op uses, by (prefix, block, op) (see emit_attrs_const).
  std::map<std::pair<std::string, std::string>, std::string> attr_consts_;
  std::map<std::tuple<std::string, int, int>, std::string> op_attrs_;
  std::ostringstream* consts_ = &attrs_;  ///< where emit_op writes an op's constants (see emit_program)
  std::ostringstream members_;
  std::vector<Shard> shards_;
};

}  // namespace

EmittedProgram emit_program(const Target& target, const Program& main, const Program* startup,
                            const ProgramInfo& info, const EmitOptions& options) {
  return Emitter(target, main, startup, info, options).run();
}

std::string emit_cpu_program(const Program& main, const Program* startup, const ProgramInfo& info,
                             const EmitOptions& options) {
  return emit_program(cpu_target(), main, startup, info, options).source;
}

}  // namespace fluidc
