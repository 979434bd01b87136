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
#include "compiler/codegen/target.h"
#include "compiler/driver/pipeline.h"
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

// main and startup after the training passes (`--train`, `fluidc opt`).
// The input is verified first, so problems are reported against it.
std::pair<Program, Program> transpile(const BuildOptions& o) {
  Program main = load_checked(o.main_path).program;
  pb::ProgramDesc startup;
  if (!o.startup_path.empty()) startup = load_checked(o.startup_path).program.desc();
  pb::ProgramDesc desc = main.desc();
  make_trainable(desc, startup, o.main_path, o.train_options);
  std::string startup_origin = o.startup_path.empty() ? "<startup>" : o.startup_path;
  return {Program::from_desc(std::move(desc), o.main_path), Program::from_desc(std::move(startup), startup_origin)};
}

Prepared prepare(const BuildOptions& o) {
  std::optional<CheckedProgram> startup;
  std::optional<CheckedProgram> main_checked;
  if (o.train) {
    auto [m, s] = transpile(o);
    main_checked.emplace(check_program(std::move(m)));
    startup.emplace(check_program(std::move(s)));
  } else {
    main_checked.emplace(load_checked(o.main_path));
    if (!o.startup_path.empty()) startup.emplace(load_checked(o.startup_path));
  }
  CheckedProgram& main = *main_checked;
  Diagnostics diags;
  // With --train the loss is the one the autodiff pass seeded.
  ProgramInfo info = analyze_program(main.program, o.train ? "" : o.loss, diags);
  for (const auto& name : o.fetch) {
    const pb::VarDesc* v = main.program.find_var(0, name);
    if (!v || !is_dense_tensor(*v))
      diags.error(main.program.loc(0, -1, name), "--fetch names no tensor variable of block 0");
    else if (std::find(info.fetches.begin(), info.fetches.end(), name) == info.fetches.end())
      info.fetches.push_back(name);
  }
  check_dataflow(main.program, info, diags);
  diags.throw_if_errors();
  Prepared p;
  if (!o.params_path.empty()) p.params_blob = load_params_blob(o, main.program, info);
  EmitOptions eo;
  eo.main_name = fs::path(o.main_path).filename().string();
  eo.startup_name = fs::path(o.startup_path).filename().string();
  eo.cpp_namespace = o.cpp_namespace;
  eo.embed_params = !p.params_blob.empty();
  eo.fuse = o.fuse;
  eo.emit_main = o.emit_main;
  eo.types = &main.types;
  p.program = emit_program(target(), main.program, startup ? &startup->program : nullptr, info, eo);
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
  if (o.output.empty()) user_error("fluidc build needs -o OUT");
  if (!o.emit_main) user_error("--no-main makes sources to link into other code: use `fluidc emit`");
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
  if (o.output.empty()) user_error("fluidc opt needs -o OUT.pdmodel (or .pbtxt)");
  auto [main, startup] = transpile(o);
  check_program(main);  // the passes' output must verify like any input
  main.save(o.output);
  bool touches_startup = std::find(o.train_options.passes.begin(), o.train_options.passes.end(), "optimizer") !=
                         o.train_options.passes.end();
  if (touches_startup) {
    if (o.startup_out.empty())
      user_error("the optimizer pass adds state to the startup program: give --startup-out FILE");
    startup.save(o.startup_out);
  }
}

void emit_sources(const BuildOptions& o) {
  if (o.output.empty()) user_error("fluidc emit needs -o DIR");
  Prepared p = prepare(o);
  fs::path dir = o.output;
  write_text(dir / "CMakeLists.txt", target().cmake_lists(write_sources(p, dir, o)));
}

}  // namespace fluidc
