// test/unit/compiler/kernel_abi_test.cc - every generic kernel call the op table implies compiles against kernels/*.h.
//
// For each op emitted as the generic call, an instance with every slot
// filled and every kernel attribute set is put through the emitter's own
// generic kernel call (Target::emit_kernel_call); the attribute struct is filled by name as the emitter
// fills it. All calls go into one file, compiled with clang++ -fsyntax-only
// against the kernel headers; each error line is traced back to its op, so
// a slot order, slot kind, attribute name or struct name that disagrees with
// a kernel signature fails here rather than in a user's build.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/ops/emit_ctx.h"
#include "compiler/ops/registry.h"
#include "kernels/cuda/op_list.h"

using namespace fluidc;

namespace {

// A value of the attribute's declared type, written as the emitter writes it.
void set_attr(pb::OpDesc& op, const ops::AttrDef& ad, std::string& literal) {
  auto* a = op.add_attrs();
  a->set_name(ad.name);
  a->set_type(ad.type);
  switch (ad.type) {
    case pb::INT: a->set_i(1); literal = "1"; break;
    case pb::LONG: a->set_l(1); literal = "1"; break;
    case pb::FLOAT: a->set_f(0.5f); literal = "0.5f"; break;
    case pb::FLOAT64: a->set_float64(0.5); literal = "0.5"; break;
    case pb::BOOLEAN: a->set_b(true); literal = "true"; break;
    case pb::STRING: a->set_s("s"); literal = "\"s\""; break;
    case pb::INTS: a->add_ints(1); literal = "{1}"; break;
    case pb::LONGS: a->add_longs(1); literal = "{1}"; break;
    case pb::FLOATS: a->add_floats(0.5f); literal = "{0.5f}"; break;
    default: literal = "{}";
  }
}

struct Generated {
  std::string source;
  std::map<int, std::string> op_at_line;  // first line of each op's function -> op type
};

/// One function per op: tensors for its slots, its attribute struct, the
/// call (the CUDA target's, against kernels/cuda/ops.h, when `cuda`).
Generated generate(const std::vector<const ops::OpDef*>& defs, bool cuda = false) {
  Generated g;
  std::ostringstream out;
  std::set<std::string> families;
  for (const auto* d : defs) families.insert(d->family);
  out << "#include <array>\n#include <vector>\n#include \"runtime/tensor_array.h\"\n";
  for (const auto& f : families) out << fmt::format("#include \"kernels/{}.h\"\n", f);
  out << "namespace k = fluidc::kernels;\nusing fluidc::rt::Tensor;\nusing fluidc::rt::TensorArray;\n";
  if (cuda)
    out << "#include \"kernels/cuda/ops.h\"\nnamespace kc = fluidc::kernels::cuda;\nusing fluidc::cu::DTensor;\n";
  const std::string prologue = out.str();
  int line = static_cast<int>(std::count(prologue.begin(), prologue.end(), '\n')) + 1;
  pb::ProgramDesc desc;
  auto* block = desc.add_blocks();
  block->set_idx(0);
  block->set_parent_idx(-1);
  Program prog = Program::from_desc(desc, "abi");
  for (size_t n = 0; n < defs.size(); ++n) {
    const ops::OpDef& def = *defs[n];
    pb::OpDesc op;
    op.set_type(def.type);
    std::ostringstream fn;
    std::map<std::string, std::string> idents;
    auto fill = [&](const std::vector<ops::SlotDef>& slots, bool inputs) {
      for (const auto& s : slots) {
        auto* v = inputs ? op.add_inputs() : op.add_outputs();
        v->set_parameter(s.name);
        for (int i = 0; i < (s.duplicable ? 2 : 1); ++i) {
          std::string name = fmt::format("v{}", idents.size());
          v->add_arguments(name);
          idents[name] = name;
          fn << fmt::format("  {} {};\n", s.holds == pb::VarType::LOD_TENSOR_ARRAY ? "TensorArray" : cuda ? "DTensor" : "Tensor",
                            name);
        }
      }
    };
    fill(def.inputs, true);
    fill(def.outputs, false);
    std::string attrs;
    if (!def.attrs_struct.empty()) {
      attrs = "attrs";
      fn << fmt::format("  k::{0} attrs;\n", def.attrs_struct);
      for (const auto& ad : def.attrs) {
        if (!ad.to_kernel) continue;
        std::string lit;
        set_attr(op, ad, lit);
        fn << fmt::format("  attrs.{} = {};\n", ad.name, lit);
      }
    }
    std::ostringstream body, globals;
    std::set<std::string> fams;
    EmitCtx ctx(
        prog, 0, op, def,
        [&](int, const std::string& name) -> const std::string* {
          auto it = idents.find(name);
          return it == idents.end() ? nullptr : &it->second;
        },
        [](int b) { return fmt::format("block{}", b); }, attrs, body, globals, fams,
        [cuda](EmitCtx& c) { (cuda ? cuda_target() : cpu_target()).emit_kernel_call(c); });
    ctx.kernel_call();
    std::string text = fmt::format("void call_{}() {{\n{}{}}}\n", n, fn.str(), body.str());
    g.op_at_line[line] = def.type;
    line += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    out << text;
  }
  g.source = out.str();
  return g;
}

/// Compiles `g`; returns the ops with errors, each with its messages.
std::map<std::string, std::string> mismatches(const Generated& g, const std::string& file) {
  { std::ofstream(file) << g.source; }
  std::string cmd = fmt::format("{} -std=c++20 -fsyntax-only -fno-color-diagnostics -ferror-limit=0 -I{} {} 2>&1",
                                FLUIDC_TEST_CXX, FLUIDC_TEST_INCLUDE_DIR, file);
  std::map<std::string, std::string> bad;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  int status = pclose(p);
  const std::regex err(std::regex_replace(file, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                       R"(:(\d+):\d+: error: (.*))");
  std::istringstream lines(output);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, err)) continue;
    auto it = g.op_at_line.upper_bound(std::stoi(m[1]));
    std::string op = it == g.op_at_line.begin() ? "<prologue>" : std::prev(it)->second;
    bad[op] += "\n    " + m[2].str();
  }
  if (status != 0 && bad.empty()) bad["<compiler>"] = output;  // failed without a located error
  return bad;
}

std::string report(const std::map<std::string, std::string>& bad) {
  std::string r;
  for (const auto& [op, msgs] : bad) r += fmt::format("  {}:{}\n", op, msgs);
  return r;
}

std::vector<const ops::OpDef*> generic_ops() {
  std::vector<const ops::OpDef*> defs;
  for (const auto& d : ops::all_ops())
    if (!d.family.empty() && !d.emit_cpu) defs.push_back(&d);
  return defs;
}

}  // namespace

TEST_CASE("every generic kernel call compiles against the kernel headers", "[ops][abi]") {
  auto defs = generic_ops();
  REQUIRE(defs.size() > 20);
  auto bad = mismatches(generate(defs), FLUIDC_TEST_TMP_DIR "/kernel_abi_all.cc");
  INFO("ops whose generated call does not match their kernel:\n" << report(bad));
  CHECK(bad.empty());
}

TEST_CASE("every op of the CUDA list: its generic call compiles against kernels/cuda/ops.h", "[ops][abi]") {
  std::vector<const ops::OpDef*> defs;
  for (std::string_view type : kernels::cuda::kOpTypes) {
    const ops::OpDef* d = ops::find_op(type);
    INFO("kernels/cuda/op_list.h names " << type << ", which the op table does not have");
    REQUIRE(d != nullptr);
    defs.push_back(d);
  }
  auto bad = mismatches(generate(defs, true), FLUIDC_TEST_TMP_DIR "/kernel_abi_cuda.cc");
  INFO("ops whose generated CUDA call does not match their kernel:\n" << report(bad));
  CHECK(bad.empty());
}

TEST_CASE("the ABI check names an op whose slots or attributes disagree with its kernel", "[ops][abi]") {
  // Copies of real entries, each broken the way a hand edit could break it.
  ops::OpDef extra_slot = *ops::find_op("reduce_sum");
  extra_slot.type = "reduce_sum";
  extra_slot.inputs.push_back({"Bias"});
  ops::OpDef bad_attr = *ops::find_op("matmul_v2");
  bad_attr.attrs.push_back({"transpose_X", pb::BOOLEAN});  // v1's name, not v2's
  ops::OpDef bad_struct = *ops::find_op("elementwise_add");
  bad_struct.attrs_struct = "ElementwiseAddAttrs";
  ops::OpDef ok = *ops::find_op("relu");
  auto bad = mismatches(generate({&extra_slot, &bad_attr, &bad_struct, &ok}), FLUIDC_TEST_TMP_DIR "/kernel_abi_neg.cc");
  INFO(report(bad));
  CHECK(bad.count("reduce_sum"));
  CHECK(bad.count("matmul_v2"));
  CHECK(bad.count("elementwise_add"));
  CHECK_FALSE(bad.count("relu"));
}

TEST_CASE("kernel headers, shared shape rules included, stay free of compiler and protobuf includes", "[ops][abi]") {
  // Generated programs include them, and the compiler includes them for the
  // shared attribute structs and shape rules: the dependency goes one way.
  const std::regex include(R"re(^\s*#\s*include\s*[<"]([^>"]+)[>"])re");
  int headers = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(FLUIDC_TEST_INCLUDE_DIR "/kernels")) {
    if (e.path().extension() != ".h") continue;
    ++headers;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string inc = m[1];
      INFO(e.path().string() << " includes " << inc);
      const bool compiler_side = inc.rfind("compiler/", 0) == 0 || inc.rfind("proto/", 0) == 0 ||
                                 inc.find("protobuf") != std::string::npos || inc.find(".pb.h") != std::string::npos;
      CHECK_FALSE(compiler_side);
    }
  }
  CHECK(headers > 10);
}
