// compiler/codegen/cpu_target.cc - the CPU target: C++ over kernels/*.h, built by clang++ (or $CXX).
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "compiler/ops/emit_ctx.h"
#include "compiler/support/escape.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/attrs.h"
#include "compiler/version.h"

namespace fluidc {
namespace {

// Where the runtime's headers and libraries are: $FLUIDC_HOME points at an
// installed tree (include/, lib/); otherwise the prefix fluidc is installed in
// (bin/fluidc -> include/fluidc, lib), else the build tree fluidc came from.
struct Toolchain {
  std::string cxx, include_dir, lib_dir;
};

// PREFIX holds an installed runtime: include/fluidc/runtime/ and lib/libfluidc_runtime.a.
bool installed_prefix(const std::filesystem::path& prefix) {
  std::error_code ec;
  return std::filesystem::exists(prefix / "include/fluidc/runtime/model.h", ec) &&
         std::filesystem::exists(prefix / "lib/libfluidc_runtime.a", ec);
}

// An installed fluidc (PREFIX/bin/fluidc) uses the runtime installed beside it, wherever the prefix
// was moved or unpacked; "" for the build tree's fluidc, which uses the paths baked into version.h.
std::string own_prefix() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::filesystem::path prefix = exe.parent_path().parent_path();
  return installed_prefix(prefix) ? prefix.string() : "";
}

Toolchain toolchain() {
  Toolchain t;
  const char* cxx = std::getenv("CXX");
  t.cxx = cxx && *cxx ? cxx : "clang++";
  if (const char* home = std::getenv("FLUIDC_HOME"); home && *home) {
    t.include_dir = std::string(home) + "/include";
    t.lib_dir = std::string(home) + "/lib";
    // An installed prefix keeps the headers under include/fluidc/ (cmake/install.cmake).
    if (installed_prefix(home)) t.include_dir += "/fluidc";
  } else if (const std::string prefix = own_prefix(); !prefix.empty()) {
    t.include_dir = prefix + "/include/fluidc";
    t.lib_dir = prefix + "/lib";
  } else {
    t.include_dir = kDefaultIncludeDir;
    t.lib_dir = kDefaultLibDir;
  }
  return t;
}

// The compiler and the flags every compile of generated code takes.
// Generated code never reads errno (so math calls may vectorise); a fused
// loop the vectoriser declines is still correct, so that is no warning.
std::vector<std::string> compiler_flags(const BuildRecipe& r) {
  const Toolchain tc = toolchain();
  std::vector<std::string> cmd = {tc.cxx, "-std=c++20", fmt::format("-O{}", r.opt_level), "-fno-math-errno",
                                  "-Wno-pass-failed", "-I" + tc.include_dir};
  // Reproducible with -g too ($FLUIDC_CXXFLAGS): debug info names the generated sources relative to
  // their (temporary) directory and the working directory as ".", so two builds of one program in
  // different directories give the same bytes.
  cmd.push_back("-ffile-prefix-map=" + r.source_dir + "=.");
  std::error_code ec;
  if (const std::string cwd = std::filesystem::current_path(ec).string(); !cwd.empty() && cwd != "/")
    cmd.push_back("-ffile-prefix-map=" + cwd + "=.");
  return cmd;
}

// $FLUIDC_CXXFLAGS (split at spaces) goes last so it can override the rest,
// e.g. "-fsanitize=address,undefined" to match a sanitized runtime build.
void append_user_flags(std::vector<std::string>& cmd) {
  std::istringstream extra(std::getenv("FLUIDC_CXXFLAGS") ? std::getenv("FLUIDC_CXXFLAGS") : "");
  for (std::string flag; extra >> flag;) cmd.push_back(flag);
}

class CpuTarget final : public Target {
 public:
  const char* name() const override { return "cpu"; }
  const char* source_file() const override { return "model.cc"; }

  void emit_prologue(std::ostream& out, const std::set<std::string>& families) const override {
    out << "#include <algorithm>\n#include <array>\n#include <limits>\n#include <vector>\n\n"
           "#include \"runtime/arena.h\"\n#include \"runtime/finite_check.h\"\n#include \"runtime/model.h\"\n#include \"runtime/step_stack.h\"\n#include \"runtime/tensor_array.h\"\n";
    for (const auto& f : families) out << fmt::format("#include \"kernels/{}.h\"\n", f);
    // The communication ops (family "dist") call the distributed runtime, which sits above kernels/.
    if (families.count("dist")) out << "#include \"runtime/dist/ops.h\"\n";
  }

  void emit_namespace_prologue(std::ostream& out) const override {
    out << "namespace k = fluidc::kernels;\nusing fluidc::rt::OpSite;\nusing fluidc::rt::Tensor;\n"
           "using fluidc::rt::TensorArray;\nusing fluidc::rt::g_current_op;\n";
  }

  const char* storage_type(bool tensor_array) const override { return tensor_array ? "TensorArray" : "Tensor"; }

  void emit_kernel_call(EmitCtx& c) const override;

  void emit_op(EmitCtx& c) const override {
    if (c.def().emit_cpu) c.def().emit_cpu(c);
    else c.kernel_call();
  }

  // The assembler file that places params.bin in the binary's read-only data.
  std::vector<std::pair<std::string, std::string>> params_files(const std::string& symbol) const override {
    return {{"params.S", fmt::format("# MACHINE GENERATED by fluidc: embeds params.bin (combined Paddle tensor records).\n"
                                     "  .section .rodata\n"
                                     "  .global {0}\n"
                                     "  .global {0}_end\n"
                                     "  .balign 64\n"
                                     "{0}:\n"
                                     "  .incbin \"params.bin\"\n"
                                     "{0}_end:\n"
                                     "  .byte 0\n"
                                     "  .section .note.GNU-stack,\"\",@progbits\n",
                                     symbol)}};
  }

  std::vector<std::string> object_command(const BuildRecipe& r, const std::string& source,
                                          const std::string& object) const override {
    std::vector<std::string> cmd = compiler_flags(r);
    cmd.insert(cmd.end(), {"-c", r.source_dir + "/" + source, "-o", object});
    append_user_flags(cmd);
    return cmd;
  }

  std::vector<std::string> link_command(const BuildRecipe& r, const std::vector<std::string>& inputs) const override {
    std::vector<std::string> cmd = compiler_flags(r);
    cmd.insert(cmd.end(), inputs.begin(), inputs.end());
    // The assembler resolves .incbin relative to -I directories (when
    // something is left to compile: not for objects alone).
    if (std::any_of(inputs.begin(), inputs.end(), [](const std::string& f) { return !f.ends_with(".o"); }))
      cmd.push_back("-Wa,-I" + r.source_dir);
    // libstdc++ and libgcc linked in: the binary runs where another (or no)
    // libstdc++ is installed, and starts ~1 ms sooner without their
    // relocations (measured on the batch-1 MLP: 4.8 -> 3.9 ms to the result).
    cmd.insert(cmd.end(), {"-o", r.output, "-L" + toolchain().lib_dir});
    // Communication ops: runtime/dist and gRPC, shared (so libstdc++ is shared too: one copy for both).
    if (r.dist) cmd.insert(cmd.end(), {"-lfluidc_dist", "-lfluidc_send_recv_proto"});
    if (r.coll) cmd.push_back("-lfluidc_coll");  // collective ops: runtime/coll, then libmpi (shared, from the system)
    cmd.insert(cmd.end(), {"-lfluidc_kernels", "-lfluidc_runtime"});
    if (r.coll) cmd.push_back("-lmpi");
    if (r.dist) cmd.insert(cmd.end(), {"-lgrpc++", "-lgrpc", "-lgpr", "-labsl_synchronization", "-lprotobuf", "-lpthread"});
    else cmd.insert(cmd.end(), {"-lpthread", "-static-libstdc++", "-static-libgcc"});
    append_user_flags(cmd);
    return cmd;
  }

  std::string cmake_lists(const BuildRecipe& r) const override {
    const Toolchain tc = toolchain();
    // A library passes the runtime on to whatever links it (PUBLIC); an
    // executable links libstdc++ in, as `fluidc build` does.
    const char* use = r.library ? "PUBLIC" : "PRIVATE";
    std::string cm = fmt::format(
        "# MACHINE GENERATED by fluidc {}: builds the emitted program.\n"
        "cmake_minimum_required(VERSION 3.25)\n"
        "project(fluidc_model LANGUAGES CXX ASM)\n"
        "set(CMAKE_CXX_STANDARD 20)\n"
        "set(FLUIDC_INCLUDE_DIR \"{}\" CACHE PATH \"fluidc runtime headers\")\n"
        "set(FLUIDC_LIB_DIR \"{}\" CACHE PATH \"fluidc runtime libraries\")\n"
        "{}(model {}{})\n"
        "target_include_directories(model {} ${{FLUIDC_INCLUDE_DIR}})\n"
        "target_compile_options(model PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-math-errno -Wno-pass-failed>)\n"
        "target_compile_options(model PRIVATE $<$<COMPILE_LANGUAGE:ASM>:-Wa,-I${{CMAKE_CURRENT_SOURCE_DIR}}>)\n"
        "target_link_directories(model {} ${{FLUIDC_LIB_DIR}})\n"
        "target_link_libraries(model {} fluidc_kernels fluidc_runtime pthread)\n",
        kFluidcVersion, tc.include_dir, tc.lib_dir, r.library ? "add_library" : "add_executable",
        r.library ? "STATIC " : "", fmt::join(r.sources, " "), use, use, use);
    if (r.dist)  // communication ops: runtime/dist and gRPC, before the runtime they use
      cm += fmt::format("target_link_libraries(model {} fluidc_dist fluidc_send_recv_proto fluidc_kernels fluidc_runtime "
                        "grpc++ grpc gpr absl_synchronization protobuf pthread)\n",
                        use);
    if (r.coll)  // collective ops: runtime/coll and MPI
      cm += fmt::format("target_link_libraries(model {} fluidc_coll fluidc_kernels fluidc_runtime mpi pthread)\n", use);
    if (!r.dist && !r.library)
      cm += "target_link_options(model PRIVATE -static-libstdc++ -static-libgcc)\n";
    // $FLUIDC_CXXFLAGS as `fluidc build` takes it, read when configuring
    // (e.g. sanitizers matching a sanitized runtime); a library hands the
    // link flags on to what links it.
    cm += fmt::format(
        "set(FLUIDC_CXXFLAGS \"$ENV{{FLUIDC_CXXFLAGS}}\" CACHE STRING \"extra flags for the generated code\")\n"
        "separate_arguments(fluidc_extra_flags UNIX_COMMAND \"${{FLUIDC_CXXFLAGS}}\")\n"
        "target_compile_options(model PRIVATE ${{fluidc_extra_flags}})\n"
        "target_link_options(model {} ${{fluidc_extra_flags}})\n",
        use);
    return cm;
  }

  std::vector<std::vector<std::string>> object_commands(const BuildRecipe& r,
                                                        std::vector<std::string>* objects) const override {
    std::vector<std::vector<std::string>> cmds;
    for (const auto& s : r.sources) {
      objects->push_back(r.source_dir + "/" + s + ".o");
      std::vector<std::string> cmd = compiler_flags(r);
      // -fPIC as the runtime's own archives: the library may go into a PIE or a shared object.
      cmd.insert(cmd.end(), {"-fPIC", "-I" + r.source_dir, "-Wa,-I" + r.source_dir, "-c", r.source_dir + "/" + s,
                             "-o", objects->back()});
      append_user_flags(cmd);
      cmds.push_back(std::move(cmd));
    }
    return cmds;
  }

  std::vector<std::string> runtime_archives() const override {
    const Toolchain tc = toolchain();
    return {tc.lib_dir + "/libfluidc_kernels.a", tc.lib_dir + "/libfluidc_runtime.a"};
  }

  std::string archiver() const override {
    const char* ar = std::getenv("AR");
    return ar && *ar ? ar : "ar";
  }
};

}  // namespace

void CpuTarget::emit_kernel_call(EmitCtx& c) const { emit_generic_kernel_call(c, "k::", "Tensor"); }

const Target& cpu_target() {
  static const CpuTarget target;
  return target;
}

}  // namespace fluidc
