// compiler/codegen/cuda_target.cc - the CUDA target: model.cu over kernels/cuda/ops.h, built by nvcc (docs/cuda.md).
//
// The emitter's class, methods and tables are the CPU target's; what differs:
// every variable is a cu::DTensor (host mirror + device storage), the class
// derives from cu::CudaModel (which wraps each step in the feed/fetch
// copies and the CUDA graph), main-program ops call `kc::<type>` (the CUDA
// kernels, kernels/cuda/op_list.h lists them) and the startup program, run
// once, calls the CPU kernels on the host mirrors.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "compiler/codegen/cuda_support.h"
#include "compiler/codegen/runtime_dirs.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/emit_ctx.h"
#include "compiler/support/diagnostics.h"
#include "compiler/version.h"
#include "kernels/cuda/op_list.h"

namespace fluidc {

bool has_cuda_kernel(const ops::OpDef& def) { return def.emit_cuda || kernels::cuda::has_kernel(def.type); }

namespace {

// Ampere and Hopper; the generated file itself has no device code (the
// kernels are precompiled in libfluidc_cuda_kernels.a), so this costs nothing.
const char* const kGencode[] = {"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"};

struct Toolchain {
  std::string nvcc, include_dir, lib_dir;
};

// $NVCC or nvcc from PATH; the runtime where the CPU target finds it
// (runtime_dirs.h: $FLUIDC_HOME, the install fluidc sits in, its build tree).
Toolchain toolchain() {
  Toolchain t;
  const char* nvcc = std::getenv("NVCC");
  t.nvcc = nvcc && *nvcc ? nvcc : "nvcc";
  const RuntimeDirs dirs = runtime_dirs();
  t.include_dir = dirs.include_dir;
  t.lib_dir = dirs.lib_dir;
  return t;
}

std::vector<std::string> nvcc_flags(const BuildRecipe& r) {
  const Toolchain tc = toolchain();
  std::vector<std::string> cmd = {tc.nvcc, "-std=c++20", fmt::format("-O{}", r.opt_level), "-I" + tc.include_dir,
                                  "-Xcompiler=-fno-math-errno", "-Xcompiler=-ffp-contract=off", "-Xcompiler=-ffile-prefix-map=" + r.source_dir + "=.",
                                  // params.cc's .incbin names params.bin relative to the sources.
                                  "-Xcompiler=-Xassembler,-I" + r.source_dir};
  cmd.insert(cmd.end(), std::begin(kGencode), std::end(kGencode));
  return cmd;
}

// $FLUIDC_NVCCFLAGS (split at spaces) last, so it can override the rest.
void append_user_flags(std::vector<std::string>& cmd) {
  std::istringstream extra(std::getenv("FLUIDC_NVCCFLAGS") ? std::getenv("FLUIDC_NVCCFLAGS") : "");
  for (std::string flag; extra >> flag;) cmd.push_back(flag);
}

// Op families whose CUDA code calls functions of their own (kernels/cuda/<family>.h).
const char* const kDeviceFamilies[] = {"coll"};

// Collective programs only: runtime/coll's NCCL part and its MPI part first
// (they call the CUDA runtime and the CPU runtime), NCCL and MPI last
// (shared, from the system). No other binary links them.
const char* const kCollLibs[] = {"-lfluidc_coll_nccl", "-lfluidc_coll"};
const char* const kCollSystemLibs[] = {"-lnccl", "-lmpi"};

const char* const kLibs[] = {"-lfluidc_cuda_kernels", "-lfluidc_cuda_runtime", "-lfluidc_kernels", "-lfluidc_runtime",
                             "-lcublas", "-lcudnn", "-lpthread"};

// The startup program runs once, on the host kernels; the emitter names
// its block methods startup_blockN.
bool in_startup(const EmitCtx& c) { return c.block_fn(0).rfind("startup_", 0) == 0; }

// The gradient of an op that runs a sub-block (conditional_block_grad,
// while_grad) restores and copies host tensors between its block runs; that
// is not written for device tensors yet, so such programs stay unsupported.
bool replays_blocks(const ops::OpDef& def) {
  if (!def.has(ops::kOwnsBlock)) return false;
  for (const auto& s : def.outputs)
    if (s.name.size() > kGradSuffix.size() && s.name.ends_with(kGradSuffix)) return true;
  return false;
}

// The distinct tensors of an op's slots (inputs or outputs) in order: the
// variables that hold one in the op's block (not scopes, not empty names).
std::vector<std::string> tensors_of(const EmitCtx& c, bool inputs) {
  std::vector<std::string> ids;
  for (const auto& v : inputs ? c.op().inputs() : c.op().outputs())
    for (const auto& name : v.arguments())
      if (const std::string* id = c.find_in(c.block(), name); id && std::find(ids.begin(), ids.end(), *id) == ids.end())
        ids.push_back(*id);
  return ids;
}

// The first input slot of the op that its CUDA kernel does not take ("" when none is given).
std::string host_only_input_given(const EmitCtx& c) {
  for (const auto& v : c.op().inputs())
    if (!v.arguments().empty() && kernels::cuda::host_only_input(c.def().type, v.parameter())) return v.parameter();
  return "";
}

class CudaTarget final : public Target {
 public:
  const char* name() const override { return "cuda"; }
  const char* source_file() const override { return "model.cu"; }

  void emit_prologue(std::ostream& out, const std::set<std::string>& families) const override {
    out << "#include <algorithm>\n#include <array>\n#include <limits>\n#include <vector>\n\n"
           "#include \"runtime/arena.h\"\n#include \"runtime/finite_check.h\"\n#include \"runtime/model.h\"\n#include \"runtime/op_profile.h\"\n"
           "#include \"runtime/step_stack.h\"\n#include \"runtime/tensor_array.h\"\n"
           "#include \"runtime/cuda/cuda_model.h\"\n#include \"runtime/cuda/host_ops.h\"\n"
           "#include \"kernels/cuda/ops.h\"\n#include \"kernels/cuda/condition.h\"\n";
    for (const auto& f : families) out << fmt::format("#include \"kernels/{}.h\"\n", f);
    for (const char* f : kDeviceFamilies)
      if (families.count(f)) out << fmt::format("#include \"kernels/cuda/{}.h\"\n", f);
  }

  void emit_namespace_prologue(std::ostream& out) const override {
    out << "namespace k = fluidc::kernels;\nnamespace kc = fluidc::kernels::cuda;\nusing fluidc::rt::OpSite;\n"
           "using fluidc::rt::Tensor;\nusing fluidc::rt::TensorArray;\nusing fluidc::rt::g_current_op;\n"
           "using fluidc::cu::DTensor;\n";
  }

  const char* storage_type(bool tensor_array) const override { return tensor_array ? "TensorArray" : "DTensor"; }

  void emit_op(EmitCtx& c) const override {
    if (in_startup(c)) {
      emit_cpu_code(c);
    } else if (c.def().emit_cuda) {
      c.def().emit_cuda(c);
    } else if (runs_on_host(c.def())) {
      emit_on_host(c, "no CUDA kernel");
    } else if (const std::string slot = host_only_input_given(c); !slot.empty()) {
      emit_on_host(c, fmt::format("its {} input is not taken on the device", slot).c_str());
    } else if (const std::vector<std::string> ins = tensors_of(c, true);
               kernels::cuda::float32_only(c.def().type) && !ins.empty()) {
      // Checked at run time: the dtypes a program declares are not always
      // the ones that arrive (casts of fed integers, float64 models).
      c.body() << fmt::format("  if (fluidc::cu::all_float32({})) {{\n", fmt::join(ins, ", "));
      c.kernel_call();
      c.body() << "  } else\n";
      emit_on_host(c, "an input is not float32");
    } else {
      c.kernel_call();
    }
  }

  void emit_kernel_call(EmitCtx& c) const override {
    if (in_startup(c) || on_host_) emit_generic_kernel_call(c, "k::", "Tensor");
    else emit_generic_kernel_call(c, "kc::", "DTensor");
  }

  // Communication ops compile only through a CUDA hook of their own (the
  // collective ops: NCCL); the parameter-server ops have none.
  bool supports(const ops::OpDef& def) const override {
    return (!def.has(ops::kCommunication) || def.emit_cuda) && !replays_blocks(def);
  }
  std::string release_statement(const std::string& member) const override { return member + ".release();"; }
  bool runs_on_host(const ops::OpDef& def) const override {
    return !def.has(ops::kFeed) && !def.has(ops::kFetch) && !has_cuda_kernel(def);
  }
  bool uses_host_plans() const override { return false; }
  std::string own_compiler() const override { return toolchain().nvcc; }
  const char* model_base_class() const override { return "fluidc::cu::CudaModel"; }
  const char* run_method() const override { return "step"; }
  const char* startup_method() const override { return "startup_step"; }
  const char* main_function() const override { return "fluidc::cu::run_cuda_model_main"; }
  const char* collective_main_function() const override { return "fluidc::coll::run_nccl_main"; }

  // params.bin placed in the binary by the host assembler, from a C++ file
  // (nvcc takes no assembler sources).
  std::vector<std::pair<std::string, std::string>> params_files(const std::string& symbol) const override {
    return {{"params.cc", fmt::format("// MACHINE GENERATED by fluidc: embeds params.bin (combined Paddle tensor records).\n"
                                      "__asm__(\".section .rodata\\n\"\n"
                                      "        \".global {0}\\n\"\n"
                                      "        \".global {0}_end\\n\"\n"
                                      "        \".balign 64\\n\"\n"
                                      "        \"{0}:\\n\"\n"
                                      "        \".incbin \\\"params.bin\\\"\\n\"\n"
                                      "        \"{0}_end:\\n\"\n"
                                      "        \".byte 0\\n\"\n"
                                      "        \".previous\\n\");\n",
                                      symbol)}};
  }

  std::vector<std::string> object_command(const BuildRecipe& r, const std::string& source,
                                          const std::string& object) const override {
    std::vector<std::string> cmd = nvcc_flags(r);
    cmd.insert(cmd.end(), {"-c", r.source_dir + "/" + source, "-o", object});
    append_user_flags(cmd);
    return cmd;
  }

  std::vector<std::string> link_command(const BuildRecipe& r, const std::vector<std::string>& inputs) const override {
    const std::string kernels = toolchain().lib_dir + "/libfluidc_cuda_kernels.a";
    std::error_code ec;
    if (!std::filesystem::exists(kernels, ec))
      user_error(fmt::format("--target cuda: {} is missing: this fluidc was configured without the CUDA runtime "
                             "(FLUIDC_CUDA=OFF, or no nvcc was found); `fluidc emit --target cuda` still works",
                             kernels));
    std::vector<std::string> cmd = nvcc_flags(r);
    cmd.insert(cmd.end(), inputs.begin(), inputs.end());
    cmd.insert(cmd.end(), {"-o", r.output, "-L" + toolchain().lib_dir});
    if (r.coll) {
      const std::string nccl = toolchain().lib_dir + "/libfluidc_coll_nccl.a";
      if (!std::filesystem::exists(nccl, ec))
        user_error(fmt::format("--target cuda: {} is missing: this fluidc was configured without NCCL or MPI, so "
                               "it cannot build collective programs for CUDA (docs/distributed.md)",
                               nccl));
      cmd.insert(cmd.end(), std::begin(kCollLibs), std::end(kCollLibs));
    }
    cmd.insert(cmd.end(), std::begin(kLibs), std::end(kLibs));
    if (r.coll) cmd.insert(cmd.end(), std::begin(kCollSystemLibs), std::end(kCollSystemLibs));
    append_user_flags(cmd);
    return cmd;
  }

  std::string cmake_lists(const BuildRecipe& r) const override {
    const Toolchain tc = toolchain();
    const char* use = r.library ? "PUBLIC" : "PRIVATE";
    return fmt::format(
        "# MACHINE GENERATED by fluidc {}: builds the emitted CUDA program (nvcc, cuBLAS).\n"
        "cmake_minimum_required(VERSION 3.25)\n"
        "project(fluidc_model LANGUAGES CXX CUDA)\n"
        "set(CMAKE_CXX_STANDARD 20)\n"
        "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES 80 90)\nendif()\n"
        "find_package(CUDAToolkit REQUIRED)\n"
        "find_library(FLUIDC_CUDNN_LIBRARY cudnn HINTS ${{CUDAToolkit_LIBRARY_DIR}} REQUIRED)\n"
        "{}"
        "set(FLUIDC_INCLUDE_DIR \"{}\" CACHE PATH \"fluidc runtime headers\")\n"
        "set(FLUIDC_LIB_DIR \"{}\" CACHE PATH \"fluidc runtime libraries\")\n"
        "{}(model {}{})\n"
        "target_include_directories(model {} ${{FLUIDC_INCLUDE_DIR}})\n"
        "target_compile_options(model PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wa,-I${{CMAKE_CURRENT_SOURCE_DIR}}>)\n"
        "# C++20 for the runtime headers, as a flag: CMake knows no CUDA20 dialect for nvcc 13.\n"
        "target_compile_options(model PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)\n"
        "target_link_directories(model {} ${{FLUIDC_LIB_DIR}})\n"
        "target_link_libraries(model {} {}fluidc_cuda_kernels fluidc_cuda_runtime fluidc_kernels fluidc_runtime "
        "CUDA::cublas ${{FLUIDC_CUDNN_LIBRARY}} CUDA::cudart {}pthread)\n",
        kFluidcVersion,
        r.coll ? "find_library(FLUIDC_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)\n" : "",
        tc.include_dir, tc.lib_dir, r.library ? "add_library" : "add_executable",
        r.library ? "STATIC " : "", fmt::join(r.sources, " "), use, use, use,
        // collective ops: runtime/coll's NCCL and MPI parts, then NCCL and MPI
        r.coll ? "fluidc_coll_nccl fluidc_coll " : "", r.coll ? "${FLUIDC_NCCL_LIBRARY} mpi " : "");
  }

  std::vector<std::vector<std::string>> object_commands(const BuildRecipe& r,
                                                        std::vector<std::string>* objects) const override {
    std::vector<std::vector<std::string>> cmds;
    for (const auto& s : r.sources) {
      objects->push_back(r.source_dir + "/" + s + ".o");
      cmds.push_back(object_command(r, s, objects->back()));
    }
    return cmds;
  }

  std::vector<std::string> runtime_archives() const override {
    const Toolchain tc = toolchain();
    return {tc.lib_dir + "/libfluidc_cuda_kernels.a", tc.lib_dir + "/libfluidc_cuda_runtime.a",
            tc.lib_dir + "/libfluidc_kernels.a", tc.lib_dir + "/libfluidc_runtime.a"};
  }

  // An op without a CUDA kernel: its CPU code between the copies of its
  // tensors (runtime/cuda/host_ops.h). An op that runs a sub-block copies
  // only its inputs down: its outputs were computed by the block's own ops.
  void emit_on_host(EmitCtx& c, const char* why) const {
    const std::vector<std::string> ins = tensors_of(c, true);
    c.body() << fmt::format("  {{  // {}: {}, runs on the host\n", c.op().type(), why);
    if (!ins.empty()) c.body() << fmt::format("  fluidc::cu::to_host({});\n", fmt::join(ins, ", "));
    on_host_ = true;
    emit_cpu_code(c);
    on_host_ = false;
    const std::vector<std::string> outs = c.def().has(ops::kOwnsBlock) ? std::vector<std::string>{} : tensors_of(c, false);
    if (!outs.empty()) c.body() << fmt::format("  fluidc::cu::to_device({});\n", fmt::join(outs, ", "));
    c.body() << "  }\n";
  }

  static void emit_cpu_code(EmitCtx& c) {
    if (c.def().emit_cpu) c.def().emit_cpu(c);
    else c.kernel_call();
  }

  std::string archiver() const override {
    const char* ar = std::getenv("AR");
    return ar && *ar ? ar : "ar";
  }

 private:
  mutable bool on_host_ = false;  ///< emit_on_host is writing: kernel_call() means the CPU kernel
};

}  // namespace

const Target& cuda_target() {
  static const CudaTarget target;
  return target;
}

}  // namespace fluidc
