// compiler/codegen/target.h - what code generation and the build driver ask of a target (CPU now, CUDA next).
//
// The emitter (cpu_emitter.cc) owns what every target shares: one class per
// program, a member per variable, a method per block, the ops in program
// order, the description table the runtime reads. A Target supplies what
// differs: the prologue (headers, namespaces), how a variable is stored, how
// an op's kernel is called, and the recipe that builds the sources. A CUDA
// target would store device tensors, call kernels with a stream and build
// with nvcc, behind the same five questions.
#pragma once

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fluidc {

class EmitCtx;
namespace ops {
struct OpDef;
}

/// What a target's build recipe needs to know about one generated program.
struct BuildRecipe {
  std::string source_dir;             ///< where the generated files lie
  std::vector<std::string> sources;   ///< file names in source_dir, compiled and linked together
  std::string output;                 ///< the executable (absolute path); unused by cmake_lists
  int opt_level = 2;
  /// The sources have no main() (`--no-main`): cmake_lists makes a static
  /// library for other code to link instead of an executable.
  bool library = false;
  /// The program holds communication ops: link runtime/dist and gRPC (no other binary does).
  bool dist = false;
  /// The program holds collective ops: link runtime/coll and MPI (no other binary does).
  bool coll = false;
};

class Target {
 public:
  virtual ~Target() = default;
  /// "cpu", "cuda": shown in diagnostics.
  virtual const char* name() const = 0;

  // ---- code generation -------------------------------------------------
  /// File name of the generated program source ("model.cc").
  virtual const char* source_file() const = 0;
  /// Everything between the banner and the program's namespace: #includes
  /// (kernels/<family>.h for each family used) and nothing stateful.
  virtual void emit_prologue(std::ostream& out, const std::set<std::string>& kernel_families) const = 0;
  /// using-declarations at the top of the program's namespace, which the
  /// op hooks' code relies on (`k::`, `Tensor`, `g_current_op`).
  virtual void emit_namespace_prologue(std::ostream& out) const = 0;
  /// The C++ type of a variable's storage member.
  virtual const char* storage_type(bool tensor_array) const = 0;
  /// One op's code in this target's kernel calling convention (the op's
  /// own emit hook for this target when it has one).
  virtual void emit_op(EmitCtx& c) const = 0;
  /// The generic call of the op in `c`, which emit hooks fall back to
  /// through EmitCtx::kernel_call(): on the CPU `k::<type>(inputs...,
  /// outputs..., attrs);` (required slots by reference, optional ones by
  /// pointer, duplicable ones as an array plus count).
  virtual void emit_kernel_call(EmitCtx& c) const = 0;

  // ---- build recipe ----------------------------------------------------
  /// Files written beside the source that place combined params (already
  /// written as params.bin) in the binary under `symbol`; (name, text) pairs.
  virtual std::vector<std::pair<std::string, std::string>> params_files(const std::string& symbol) const = 0;
  /// argv that compiles and links the recipe's sources into its output: the
  /// link command given every source (for every target so far).
  std::vector<std::string> compile_command(const BuildRecipe& recipe) const {
    std::vector<std::string> inputs;
    for (const auto& s : recipe.sources) inputs.push_back(recipe.source_dir + "/" + s);
    return link_command(recipe, inputs);
  }
  /// argv that compiles one source of the recipe (a file name in
  /// source_dir) into the object file `object`, for builds that compile
  /// several translation units in parallel...
  virtual std::vector<std::string> object_command(const BuildRecipe& recipe, const std::string& source,
                                                  const std::string& object) const = 0;
  /// ...and the argv that links them: `inputs` are paths of objects and of
  /// sources still to compile (params.S), with the flags compile_command uses.
  virtual std::vector<std::string> link_command(const BuildRecipe& recipe,
                                                const std::vector<std::string>& inputs) const = 0;
  /// A CMakeLists.txt that builds the same sources into `model` (an
  /// executable, or a static library when recipe.library).
  virtual std::string cmake_lists(const BuildRecipe& recipe) const = 0;
  /// `--emit lib`: argv per source that compiles it into `objects[i]` (an
  /// object file beside it), with the flags compile_command uses.
  virtual std::vector<std::vector<std::string>> object_commands(const BuildRecipe& recipe,
                                                                std::vector<std::string>* objects) const = 0;
  /// `--emit lib`: the runtime's archives whose members a library carries,
  /// and the archiver that merges them ($AR, else ar).
  virtual std::vector<std::string> runtime_archives() const = 0;
  virtual std::string archiver() const = 0;

  // ---- hooks with the CPU target's answers as defaults -------------------
  /// The base class of the generated Model and the names of the methods
  /// that run block 0 of the main and the startup program. A device target
  /// puts its own base between (it wraps run() in copies to and from the
  /// device) and has the generated class override other names.
  virtual const char* model_base_class() const { return "fluidc::rt::Model"; }
  virtual const char* run_method() const { return "run"; }
  virtual const char* startup_method() const { return "startup"; }
  /// What the generated main() calls (with argc, argv, model_info()).
  virtual const char* main_function() const { return "fluidc::rt::run_model_main"; }
  /// ...in a program with collective ops (family "coll"): it joins the MPI job first.
  virtual const char* collective_main_function() const { return "fluidc::coll::run_coll_main"; }
  /// Whether the target compiles this op of the main program (the driver
  /// lists every op type it does not, at once, before emitting anything).
  virtual bool supports(const ops::OpDef&) const { return true; }
  /// The statement that frees a tensor member no later op reads (after the
  /// load-time ops: folded constants' temporaries).
  virtual std::string release_statement(const std::string& member) const { return member + " = Tensor();"; }
  /// Whether a supported op runs its CPU kernel on the host rather than on
  /// the target's device (the driver names these op types in a note).
  virtual bool runs_on_host(const ops::OpDef&) const { return false; }
  /// Whether the fuse pass's chains and the memory plan apply (the CPU
  /// emitter writes both as host loops and host arenas).
  virtual bool uses_host_plans() const { return true; }
  /// A compiler the target's commands always run as a process (nvcc), or ""
  /// when they are C++ compiles that the driver may give to the compiler it
  /// chooses (the embedded Clang, --cxx, $CXX; compiler/driver/compile_exec.h).
  virtual std::string own_compiler() const { return ""; }
};

/// The generic kernel call `NS<type>(inputs..., outputs..., attrs);` of the
/// op in `c`, with tensors of C++ type `tensor_type`: required slots by
/// reference, optional ones by pointer, duplicable ones as an array plus
/// count. The CPU target writes it with ("k::", "Tensor"); others reuse it.
void emit_generic_kernel_call(EmitCtx& c, const std::string& ns, const std::string& tensor_type);

/// The CPU target: C++ over kernels/*.h, clang++ (or $CXX).
const Target& cpu_target();
/// The CUDA target: model.cu over kernels/cuda/*.h, built by nvcc (docs/cuda.md).
const Target& cuda_target();

}  // namespace fluidc
