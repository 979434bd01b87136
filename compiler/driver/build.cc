// compiler/driver/build.cc - emit the program's source and have the target's toolchain build it.
#include "compiler/driver/build.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "compiler/codegen/cpu_emitter.h"
#include "compiler/driver/frontend.h"
#include "compiler/codegen/target.h"
#include "compiler/driver/pipeline.h"
#include "compiler/driver/usage.h"
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
};

// The one target there is so far; a --target option would choose here.
const Target& target() { return cpu_target(); }

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
    bool ok = static_cast<int>(t.dtype()) == td->data_type() && t.rank() == td->dims_size();
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
  if (!o.startup_path.empty()) in.startup.emplace(load_checked(o.startup_path).program);
  return in;
}

Prepared prepare(const BuildOptions& o) {
  Loaded in = load_inputs(o);
  PipelineResult r = run_pipeline(in.main, in.startup, pipeline_options(o, false));
  Prepared p;
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
  r.sources.push_back(target().source_file());
  write_text(dir / r.sources.back(), p.program.source);
  if (!p.params_blob.empty()) {
    write_text(dir / "params.bin", p.params_blob);
    for (const auto& [name, text] : target().params_files(p.program.params_symbol)) {
      write_text(dir / name, text);
      r.sources.push_back(name);
    }
  }
  return r;
}

int run_command(const std::vector<std::string>& argv, bool verbose) {
  if (verbose) fmt::print(stderr, "{}\n", fmt::join(argv, " "));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0)
    user_error(fmt::format("cannot run the C++ compiler '{}' (set $CXX to choose another)", argv[0]));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

void build_executable(const BuildOptions& o) {
  if (o.output.empty()) usage_error("fluidc build needs -o OUT");
  if (!o.emit_main) usage_error("--no-main makes sources to link into other code: use `fluidc emit`");
  Prepared p = prepare(o);
  fs::path dir;
  bool temp = o.save_temps.empty();
  if (temp) {
    std::string tmpl = (fs::temp_directory_path() / "fluidc-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) user_error("cannot create a temporary directory");
    dir = tmpl;
  } else {
    dir = o.save_temps;
  }
  BuildRecipe recipe = write_sources(p, dir, o);
  recipe.output = fs::absolute(o.output).string();
  int rc = run_command(target().compile_command(recipe), o.verbose);
  if (temp) fs::remove_all(dir);
  if (rc != 0)
    internal_error(fmt::format("the C++ compiler failed on generated code (exit {}); rerun with --save-temps DIR -v "
                               "to keep the sources and see the command",
                               rc));
}

void optimize_program(const BuildOptions& o) {
  if (o.output.empty()) usage_error("fluidc opt needs -o OUT.pdmodel (or .pbtxt)");
  Loaded in = load_inputs(o);
  PipelineOptions po = pipeline_options(o, true);
  bool touches_startup = std::find(po.passes.begin(), po.passes.end(), "optimizer") != po.passes.end();
  if (touches_startup && o.startup_out.empty())
    usage_error("the optimizer pass adds state to the startup program: give --startup-out FILE");
  PipelineResult r = run_pipeline(in.main, in.startup, po);
  r.main.save(o.output);
  if (touches_startup) r.startup->save(o.startup_out);
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
