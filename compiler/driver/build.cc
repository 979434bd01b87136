// compiler/driver/build.cc - emit the program's source and have the target's toolchain build it.
#include "compiler/driver/build.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "compiler/codegen/cpu_emitter.h"
#include "compiler/codegen/lib_header.h"
#include "compiler/driver/frontend.h"
#include "compiler/codegen/target.h"
#include "compiler/driver/compile_exec.h"
#include "compiler/driver/embedded_clang.h"
#include "compiler/driver/pch_cache.h"
#include "compiler/driver/pipeline.h"
#include "compiler/driver/usage.h"
#include "compiler/ops/registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/version.h"
#include "runtime/error.h"
#include "runtime/tensor_record.h"

extern char** environ;

namespace fluidc {
namespace {

namespace fs = std::filesystem;

struct Prepared {
  EmittedProgram program;
  std::string params_blob;  ///< combined params to embed; empty when none
  LibSources lib;           ///< `--emit lib`: the class header and its methods
  bool dist = false;        ///< holds communication ops: links runtime/dist and gRPC
  bool coll = false;        ///< holds collective ops (family "coll"): links runtime/coll and MPI
};

// The target of the build in progress: --target, chosen in prepare().
const Target* g_target = &cpu_target();
const Target& target() { return *g_target; }

// --target cuda: every op type of the main program the target cannot
// compile, each at its first use, in one error (the startup program runs
// on the host kernels).
void check_target_support(const Program& main) {
  Diagnostics diags;
  std::set<std::string> seen, on_host;
  for (int b = 0; b < main.num_blocks(); ++b)
    for (int i = 0; i < main.block(b).ops_size(); ++i) {
      const std::string& type = main.block(b).ops(i).type();
      const ops::OpDef* def = ops::find_op(type);
      if (def && target().supports(*def) && target().runs_on_host(*def)) on_host.insert(type);
      if (!def || target().supports(*def) || !seen.insert(type).second) continue;
      diags.error(main.loc(b, i), fmt::format("op '{}' has no {} kernel yet (docs/cuda.md lists the ones there are)", type,
                                              target().name()));
    }
  diags.throw_if_errors();
  if (!on_host.empty())
    fmt::print(stderr, "fluidc: note: {} op type{} without a {} kernel run{} on the host, between copies (docs/cuda.md): {}\n",
               on_host.size(), on_host.size() == 1 ? "" : "s", target().name(), on_host.size() == 1 ? "s" : "",
               fmt::join(on_host, ", "));
}

// Loads `names` from a combined file or a directory into fresh tensors.
std::vector<rt::Tensor> read_params(const std::string& path, const std::vector<std::string>& names) {
  std::vector<rt::Tensor> tensors(names.size());
  std::vector<rt::Tensor*> outs;
  for (auto& t : tensors) outs.push_back(&t);
  if (fs::is_directory(path)) rt::read_param_dir(path, names, outs);
  else rt::read_combined_params(path, names, outs);
  return tensors;
}

// Validates --params against the program at build time and returns the
// combined blob to embed. The file may hold every persistable or only the
// parameters, as the runtime accepts.
std::string load_params_blob(const BuildOptions& o, const Program& main, const ProgramInfo& info) {
  std::vector<std::string> names = info.persistables;
  std::vector<rt::Tensor> tensors;
  try {
    tensors = read_params(o.params_path, names);
  } catch (const rt::Error& all_error) {
    if (info.parameters.empty() || info.parameters.size() == info.persistables.size())
      user_error(fmt::format("--params: {}", all_error.what()));
    names = info.parameters;
    try {
      tensors = read_params(o.params_path, names);
    } catch (const rt::Error&) {
      user_error(fmt::format("--params: {} (nor does it hold just the {} parameters)", all_error.what(),
                             info.parameters.size()));
    }
  }
  Diagnostics diags;
  for (size_t i = 0; i < names.size(); ++i) {
    const pb::VarDesc* v = main.find_var(0, names[i]);
    const auto* td = v ? tensor_desc(*v) : nullptr;
    if (!td) continue;
    const rt::Tensor& t = tensors[i];
    // A quantized weight (ProgramInfo::integer_storage) may hold integers under a float VarDesc.
    const bool dtype_ok = static_cast<int>(t.dtype()) == td->data_type() ||
                          (info.integer_storage.count(names[i]) && rt::is_integer(t.dtype()));
    bool ok = dtype_ok && t.rank() == td->dims_size();
    for (int d = 0; ok && d < td->dims_size(); ++d) ok = td->dims(d) < 0 || td->dims(d) == t.dim(d);
    if (!ok)
      diags.error(main.loc(0, -1, names[i]), fmt::format("--params {} holds {}{} but the program declares {}{}",
                                                         o.params_path, rt::dtype_name(t.dtype()), t.shape().str(),
                                                         dtype_str(td->data_type()), dims_str(td->dims())));
  }
  diags.throw_if_errors();
  std::ostringstream blob;
  for (size_t idx : rt::combined_params_order(names)) rt::write_tensor_record(blob, tensors[idx]);
  return blob.str();
}

// --memory-report and --max-memory, once the plan exists.
void check_memory(const BuildOptions& o, const PipelineResult& r) {
  const bool planned = std::find(r.ran.begin(), r.ran.end(), "memory-plan") != r.ran.end();
  if ((o.memory_report || o.max_memory >= 0) && !planned)
    usage_error("--memory-report and --max-memory need the memory plan (drop --no-memory-plan)");
  if (o.memory_report) fmt::print("{}", memory_report(r.memory, r.main));
  if (o.max_memory >= 0 && r.memory.fixed.size > o.max_memory)
    user_error(fmt::format("{}: the static memory plan needs {} bytes, over --max-memory {}\n{}", o.main_path,
                           r.memory.fixed.size, o.max_memory, memory_report(r.memory, r.main)));
}

// The passes a subcommand runs (see BuildOptions::passes).
PipelineOptions pipeline_options(const BuildOptions& o, bool opt) {
  PipelineOptions p = o.pipeline;
  auto has = [&](const std::string& pass) { return std::find(p.passes.begin(), p.passes.end(), pass) != p.passes.end(); };
  p.passes = o.passes;
  if (p.passes.empty() && (opt || o.train)) p.passes = {"autodiff", "optimizer"};
  // Inference rewrites (the pipeline skips them for a trainer program).
  if (o.passes.empty() && !opt && !o.train) p.passes = kInferenceRewrites;
  if (o.target != "cpu") std::erase(p.passes, "winograd");  // CPU kernels only
  if (!opt && o.fuse && !has("fuse")) p.passes.push_back("fuse");
  if (!o.fuse) std::erase(p.passes, "fuse");
  // memory-plan: on for build/emit, last (it reads the fusion plan).
  if (!opt && o.memory_plan && !has("memory-plan")) p.passes.push_back("memory-plan");
  if (!o.memory_plan) std::erase(p.passes, "memory-plan");
  // Training starts from a forward or exported inference program.
  if (has("autodiff") && !has("strip-inference")) p.passes.push_back("strip-inference");
  if (has("autodiff") && !o.pipeline.label.empty() && !has("loss")) p.passes.push_back("loss");
  return p;
}

struct Loaded {
  Program main;
  std::optional<Program> startup;
};

// The inputs, verified first so that problems are reported against them.
Loaded load_inputs(const BuildOptions& o) {
  CheckedProgram main = load_checked(o.main_path);
  fmt::print(stderr, "{}", main.diags.str());  // warnings (e.g. declared dims the inferred ones replace)
  Loaded in{std::move(main.program), std::nullopt};
  if (!o.startup_path.empty()) {
    CheckedProgram startup = load_checked(o.startup_path);
    fmt::print(stderr, "{}", startup.diags.str());
    in.startup.emplace(std::move(startup.program));
  }
  return in;
}

// `--emit lib`: NAME of DIR/libNAME.a.
std::string library_name(const std::string& output) {
  const std::string file = fs::path(output).filename().string();
  if (file.size() <= 5 || file.rfind("lib", 0) != 0 || file.substr(file.size() - 2) != ".a")
    usage_error(fmt::format("--emit lib writes a static archive: -o DIR/libNAME.a (got '{}')", output));
  return file.substr(3, file.size() - 5);
}

// `--emit lib`: the class the header declares and where the generated Model goes.
LibSpec library_spec(const BuildOptions& o) {
  LibSpec spec;
  const std::string name = library_name(o.output);
  std::tie(spec.class_namespace, spec.class_name) =
      parse_class_name(o.lib_class.empty() ? default_class_name(name) : o.lib_class);
  spec.header_name = name + ".h";
  // Beside the class, in a namespace of its own: two libraries of one program (say, with other
  // weights) link into one binary as long as their classes differ.
  spec.model_namespace = "fluidc_lib::" + (spec.class_namespace.empty() ? "" : spec.class_namespace + "::") +
                         spec.class_name;
  spec.program_name = fs::path(o.main_path).filename().string();
  return spec;
}

// Communication ops compile through their emit hooks: the parameter-server
// ops (family "dist") call runtime/dist (gRPC), the collective ops (family
// "coll") runtime/coll (MPI). One error lists every op with no hook, and
// one refuses a program that mixes the two modes (one main() each).
// Returns the families of the communication ops found.
std::set<std::string> check_communication(const Program& main, const std::optional<Program>& startup) {
  std::vector<std::string> found;
  std::set<std::string> families;
  auto scan = [&](const Program& p) {
    for (int b = 0; b < p.num_blocks(); ++b)
      for (int i = 0; i < p.block(b).ops_size(); ++i)
        if (const ops::OpDef* def = ops::find_op(p.block(b).ops(i).type()); def && def->has(ops::kCommunication)) {
          families.insert(def->family);
          if (!def->emit_cpu) found.push_back(p.loc(b, i).str());
        }
  };
  scan(main);
  if (startup) scan(*startup);
  if (families.count("dist") && families.count("coll"))
    user_error("the program holds both parameter-server ops (send, recv, listen_and_serv...) and collective ops "
               "(c_allreduce_sum, c_broadcast...): split it in one mode only (docs/distributed.md)");
  if (found.empty()) return families;
  user_error(fmt::format("cannot compile {} communication op{}: no runtime for {} in fluidc (docs/distributed.md):\n  {}",
                         found.size(), found.size() == 1 ? "" : "s", found.size() == 1 ? "it" : "them",
                         fmt::join(found, "\n  ")));
}

Prepared prepare(const BuildOptions& options) {
  g_target = options.target == "cuda" ? &cuda_target() : &cpu_target();
  BuildOptions o = options;
  if (!target().uses_host_plans()) {
    // The fusion plan and the memory plan are written as host loops and host arenas.
    if (o.memory_report || o.max_memory >= 0)
      usage_error("--memory-report and --max-memory: the CUDA target has no memory plan yet (docs/cuda.md)");
    if (o.emit_lib) usage_error("--emit lib: the CUDA target builds executables only so far (docs/cuda.md)");
    o.fuse = false;
    o.memory_plan = false;
  }
  Loaded in = load_inputs(o);
  const std::set<std::string> comm = check_communication(in.main, in.startup);  // the pass itself runs only in `fluidc opt`
  PipelineResult r = run_pipeline(in.main, in.startup, pipeline_options(o, false));
  check_target_support(r.main);
  Prepared p;
  p.dist = comm.count("dist") > 0;
  p.coll = comm.count("coll") > 0;
  if (!o.params_path.empty()) p.params_blob = load_params_blob(o, r.main, r.info);
  EmitOptions eo;
  eo.main_name = fs::path(o.main_path).filename().string();
  eo.startup_name = fs::path(o.startup_path).filename().string();
  eo.cpp_namespace = o.cpp_namespace;
  eo.embed_params = !p.params_blob.empty();
  eo.fusion = &r.fusion;
  eo.load_time = &r.load_time;
  eo.emit_main = o.emit_main;
  eo.types = &r.types;
  eo.memory = &r.memory;
  check_memory(o, r);
  p.program = emit_program(target(), r.main, r.startup ? &*r.startup : nullptr, r.info, eo);
  if (o.emit_lib) {
    LibSpec spec = library_spec(o);
    spec.embedded_params = eo.embed_params;
    p.lib = emit_library_sources(r.main, r.info, &r.types, spec);
  }
  return p;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) user_error(fmt::format("{}: cannot write", path.string()));
}

// Writes the program's files and returns the recipe that builds them.
BuildRecipe write_sources(const Prepared& p, const fs::path& dir, const BuildOptions& o) {
  fs::create_directories(dir);
  BuildRecipe r;
  r.source_dir = dir.string();
  r.opt_level = o.opt_level;
  r.library = !o.emit_main;
  r.dist = p.dist;
  r.coll = p.coll;
  r.sources.push_back(target().source_file());
  write_text(dir / r.sources.back(), p.program.source);
  for (const auto& [name, text] : p.program.shards) {
    write_text(dir / name, text);
    r.sources.push_back(name);
  }
  if (!p.params_blob.empty()) {
    write_text(dir / "params.bin", p.params_blob);
    for (const auto& [name, text] : target().params_files(p.program.params_symbol)) {
      write_text(dir / name, text);
      r.sources.push_back(name);
    }
  }
  return r;
}

// Where the generated sources go: --save-temps DIR, or a new temporary
// directory the caller removes.
fs::path sources_dir(const BuildOptions& o) {
  if (!o.save_temps.empty()) return o.save_temps;
  std::string tmpl = (fs::temp_directory_path() / "fluidc-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) user_error("cannot create a temporary directory");
  return tmpl;
}

// How many compiles may run at once: the CPUs this process may use.
size_t parallel_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

// Runs the commands, at most `jobs` at a time; the first failure's exit
// status (the others still finish), else 0.
int run_commands(const Compiler& compiler, const std::vector<std::vector<std::string>>& cmds, size_t jobs, bool verbose) {
  std::vector<pid_t> running;
  int rc = 0;
  auto wait_one = [&] {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) internal_error("lost track of a compile process");
    running.erase(std::remove(running.begin(), running.end(), pid), running.end());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (rc == 0) rc = code;
  };
  for (const auto& argv : cmds) {
    while (running.size() >= jobs) wait_one();
    running.push_back(start_compile(compiler, argv, verbose));
  }
  while (!running.empty()) wait_one();
  return rc;
}

// Builds the recipe: one compile-and-link command, or, when the program came
// in several translation units, each compiled in parallel and then linked.
// With a precompiled header (the embedded compiler; pch_cache.h), the generated C++ is always compiled to
// objects first, so that params.S, linked by the last command, is not handed a C++ header.
int compile_and_link(const Compiler& compiler, const Prepared& p, const BuildRecipe& recipe, bool verbose) {
  const std::string pch = precompiled_header(compiler, target(), recipe, verbose);
  if (p.program.shards.empty() && pch.empty()) return run_compile(compiler, target().compile_command(recipe), verbose);
  std::vector<std::vector<std::string>> compiles;
  std::vector<std::string> inputs;
  const size_t units = 1 + p.program.shards.size();  // model.cc, then the shards, lead recipe.sources
  for (size_t i = 0; i < recipe.sources.size(); ++i) {
    const std::string& source = recipe.sources[i];
    if (i >= units) {
      inputs.push_back(recipe.source_dir + "/" + source);  // compiled by the link command (params.S)
      continue;
    }
    inputs.push_back(recipe.source_dir + "/" + source + ".o");
    compiles.push_back(target().object_command(recipe, source, inputs.back()));
    if (!pch.empty()) use_precompiled_header(compiles.back(), pch);
  }
  if (int rc = run_commands(compiler, compiles, parallel_jobs(), verbose); rc != 0) return rc;
  return run_compile(compiler, target().link_command(recipe, inputs), verbose);
}

// run_command with standard input read from `input` (the archiver's MRI script).
int run_command_with_input(const std::vector<std::string>& argv, const std::string& input, bool verbose) {
  if (verbose) fmt::print(stderr, "{} < {}\n", fmt::join(argv, " "), input);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
  pid_t pid;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) user_error(fmt::format("cannot run the archiver '{}' (set $AR to choose another)", argv[0]));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// An MRI script names files unquoted: refuse paths it would misread.
const std::string& mri_path(const std::string& path) {
  if (path.find_first_of(" \t\n\r;*+,()'\"") != std::string::npos)
    user_error(fmt::format("--emit lib: the archiver cannot name the path '{}' (spaces or punctuation); "
                           "use --save-temps DIR or set $FLUIDC_HOME to a plain path",
                           path));
  return path;
}

}  // namespace

void build_executable(const BuildOptions& o) {
  if (o.emit_lib) return build_library(o);
  if (o.output.empty()) usage_error("fluidc build needs -o OUT");
  if (!o.emit_main) usage_error("--no-main makes sources to link into other code: use `fluidc emit`");
  Prepared p = prepare(o);
  // nvcc (the CUDA target) runs as itself; C++ goes to the compiler the options choose.
  const Compiler compiler = target().own_compiler().empty() ? choose_compiler(o.cxx) : Compiler{target().own_compiler()};
  const bool temp = o.save_temps.empty();
  const fs::path dir = sources_dir(o);
  BuildRecipe recipe = write_sources(p, dir, o);
  // Linked beside the destination and renamed over it: a failed build leaves
  // the previous binary whole, and -o may name a directory not made yet.
  const fs::path out = fs::absolute(o.output);
  fs::create_directories(out.parent_path());
  recipe.output = out.string() + ".partial";
  int rc = compile_and_link(compiler, p, recipe, o.verbose);
  if (temp) fs::remove_all(dir);
  if (rc != 0) {
    std::error_code ec;
    fs::remove(recipe.output, ec);
    internal_error(fmt::format("{} failed on generated code (exit {}); rerun with --save-temps DIR -v "
                               "to keep the sources and see the command",
                               compiler.describe(), rc));
  }
  fs::rename(recipe.output, out);
}

std::string server_path(const std::string& output, size_t server, bool startup) {
  const fs::path out(output);
  const std::string tag = fmt::format(".pserver{}{}", server, startup ? ".startup" : "");
  return (out.parent_path() / (out.stem().string() + tag + out.extension().string())).string();
}

int run_program(const BuildOptions& o, const std::vector<std::string>& program_args) {
  if (!embedded_clang_built()) user_error("fluidc run needs the embedded Clang, which this fluidc was built without");
  if (!o.params_path.empty())
    usage_error("fluidc run embeds no weights: pass them to the program after --, as --params FILE");
  Prepared p = prepare(o);
  const fs::path dir = sources_dir(BuildOptions{});
  BuildRecipe recipe = write_sources(p, dir, o);
  // model.cc (with main) and the shards of a long program, which lead recipe.sources.
  std::vector<std::vector<std::string>> compiles;
  for (size_t i = 0; i < 1 + p.program.shards.size(); ++i) {
    std::vector<std::string> args = target().object_command(recipe, recipe.sources[i], "/dev/null");
    args.erase(args.begin());  // the compiler's name
    // -fPIC, not the executable's PIE: the JIT places the code at no address known in advance, as a shared
    // library's (its target machine and libfluidc_runtime_jit.a are PIC too; embedded_jit.cc).
    args.push_back("-fPIC");
    if (o.verbose) fmt::print(stderr, "[fluidc run: ORC JIT] {}\n", fmt::join(args, " "));
    compiles.push_back(std::move(args));
  }
  std::vector<std::string> argv = {fs::path(o.main_path).filename().string()};
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  // The runtime built with emulated thread_locals first (compiler/driver/CMakeLists.txt), then the kernels'.
  std::vector<std::string> archives = target().runtime_archives();
  const std::string jit_runtime = (fs::path(archives.front()).parent_path() / "libfluidc_runtime_jit.a").string();
  if (!fs::exists(jit_runtime)) user_error(fmt::format("fluidc run: {} is missing", jit_runtime));
  archives.insert(archives.begin(), jit_runtime);
  const int rc = run_forked([&] { return run_embedded_jit(compiles, archives, argv); });
  fs::remove_all(dir);
  return rc;
}

void optimize_program(const BuildOptions& o) {
  if (o.output.empty()) usage_error("fluidc opt needs -o OUT.pdmodel (or .pbtxt)");
  Loaded in = load_inputs(o);
  PipelineOptions po = pipeline_options(o, true);
  bool touches_startup = std::find(po.passes.begin(), po.passes.end(), "optimizer") != po.passes.end();
  if (touches_startup && o.startup_out.empty())
    usage_error("the optimizer pass adds state to the startup program: give --startup-out FILE");
  const bool distributes = std::find(po.passes.begin(), po.passes.end(), "distribute") != po.passes.end();
  touches_startup |= distributes;
  if (distributes && o.startup_out.empty())
    usage_error("the distribute pass rewrites the startup program (trainers receive the parameters): give "
                "--startup-out FILE");
  PipelineResult r = run_pipeline(in.main, in.startup, po);
  r.main.save(o.output);
  if (touches_startup) r.startup->save(o.startup_out);
  for (size_t i = 0; i < r.servers.size(); ++i) {
    r.servers[i].main.save(server_path(o.output, i, false));
    r.servers[i].startup.save(server_path(o.output, i, true));
  }
  // A plan left from an earlier run would describe another program.
  const fs::path plan = o.output + kFusionPlanSuffix;
  if (std::find(r.ran.begin(), r.ran.end(), "fuse") != r.ran.end()) write_text(plan, fusion_plan_text(r.fusion, r.main));
  else fs::remove(plan);
  const fs::path memory = o.output + kMemoryPlanSuffix;
  if (std::find(r.ran.begin(), r.ran.end(), "memory-plan") != r.ran.end()) write_text(memory, memory_plan_text(r.memory, r.main));
  else fs::remove(memory);
}

void emit_sources(const BuildOptions& o) {
  if (o.output.empty()) usage_error("fluidc emit needs -o DIR");
  Prepared p = prepare(o);
  fs::path dir = o.output;
  write_text(dir / "CMakeLists.txt", target().cmake_lists(write_sources(p, dir, o)));
}

}  // namespace fluidc

namespace fluidc {

void build_library(const BuildOptions& o) {
  if (o.output.empty()) usage_error("fluidc build --emit lib needs -o DIR/libNAME.a");
  const std::string name = library_name(o.output);
  BuildOptions lo = o;
  lo.emit_main = false;
  lo.cpp_namespace = library_spec(o).model_namespace;
  Prepared p = prepare(lo);
  const bool temp = o.save_temps.empty();
  const fs::path dir = temp ? sources_dir(o) : fs::absolute(o.save_temps);
  BuildRecipe recipe = write_sources(p, dir, lo);
  write_text(dir / (name + ".h"), p.lib.header);
  write_text(dir / (name + "_lib.cc"), p.lib.impl);
  recipe.sources.push_back(name + "_lib.cc");
  auto failed = [&](const std::string& what, int rc) {
    if (temp) fs::remove_all(dir);
    internal_error(fmt::format("{} failed (exit {}); rerun with --save-temps DIR -v to keep the sources and see "
                               "the commands",
                               what, rc));
  };
  std::vector<std::string> objects;
  auto compiles = target().object_commands(recipe, &objects);
  const Compiler compiler = choose_compiler(o.cxx);
  // The precompiled header (pch_cache.h), made with the library's own (-fPIC) command, for the
  // generated program's sources: model.cc and its shards lead recipe.sources.
  auto library_command = [&](const BuildRecipe& r, const std::string& source, const std::string& object) {
    BuildRecipe one = r;
    one.sources = {source};
    std::vector<std::string> outs;
    std::vector<std::string> cmd = target().object_commands(one, &outs).front();
    std::replace(cmd.begin(), cmd.end(), outs.front(), object);
    return cmd;
  };
  if (const std::string pch = precompiled_header(compiler, target(), recipe, o.verbose, library_command); !pch.empty())
    for (size_t i = 0; i < 1 + p.program.shards.size(); ++i) use_precompiled_header(compiles[i], pch);
  if (int rc = run_commands(compiler, compiles, parallel_jobs(), o.verbose); rc != 0)
    failed(compiler.describe() + " on generated code", rc);
  // One archive: the program's objects, then every member of the runtime's archives (the linker
  // takes only the members the program needs).
  const fs::path archive = dir / fs::path(o.output).filename();
  fs::remove(archive);
  std::string script = "CREATE " + mri_path(archive.string()) + "\n";
  for (const auto& obj : objects) script += "ADDMOD " + mri_path(obj) + "\n";
  for (const auto& lib : target().runtime_archives()) {
    if (!fs::exists(lib)) user_error(fmt::format("--emit lib: the runtime archive {} is missing", lib));
    script += "ADDLIB " + mri_path(lib) + "\n";
  }
  script += "SAVE\nEND\n";
  write_text(dir / "archive.mri", script);
  if (int rc = run_command_with_input({target().archiver(), "-M"}, (dir / "archive.mri").string(), o.verbose); rc != 0)
    failed("the archiver", rc);
  // Into place: a copy beside the destination renamed over it, so a reader never sees half an archive.
  const fs::path out = fs::absolute(o.output);
  fs::create_directories(out.parent_path());
  const fs::path partial = out.string() + ".partial";
  fs::copy_file(archive, partial, fs::copy_options::overwrite_existing);
  fs::rename(partial, out);
  write_text(out.parent_path() / (name + ".h"), p.lib.header);
  if (temp) fs::remove_all(dir);
}

}  // namespace fluidc
