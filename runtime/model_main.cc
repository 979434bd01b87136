// runtime/model_main.cc - entry point of generated binaries: dispatch, state init, error reporting.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <sys/stat.h>

#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/parallel.h"
#include "runtime/tensor_record.h"

namespace fluidc::rt {

thread_local constinit const OpSite* g_current_op = nullptr;

std::vector<std::string> binding_names(const VarBinding* b, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(b[i].name);
  return out;
}

std::vector<Tensor*> binding_tensors(Model& m, const VarBinding* b, int n) {
  std::vector<Tensor*> out;
  for (int i = 0; i < n; ++i) out.push_back(&m.tensor(b[i]));
  return out;
}

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

std::vector<std::string> files_for_inputs(const ModelInfo& m, const Flags& flags, const std::string& flag) {
  auto given = flags.pairs(flag);
  for (const auto& [name, file] : given) {
    bool known = false;
    for (int i = 0; i < m.num_feeds; ++i) known |= name == m.feeds[i].name;
    if (!known) fail("--" + flag + " names '" + name + "', which is not an input of this program (see --help)");
  }
  std::vector<std::string> files;
  for (int i = 0; i < m.num_feeds; ++i) {
    auto it = given.find(m.feeds[i].name);
    if (it == given.end())
      fail("missing --" + flag + " " + m.feeds[i].name + "=FILE.npy (" + declared_str(m.feeds[i]) + ")");
    files.push_back(it->second);
  }
  return files;
}

std::string declared_str(const VarBinding& b) {
  return std::string(dtype_name(b.dtype)) + Shape::from(b.dims, b.rank).str();
}

void check_against_declared(const VarBinding& b, const Tensor& t, const std::string& source, bool skip_first_dim) {
  auto mismatch = [&](const std::string& what) {
    fail("'" + std::string(b.name) + "' from " + source + ": " + what + ": expected " + declared_str(b) + ", got " +
         dtype_name(t.dtype()) + t.shape().str());
  };
  if (t.dtype() != b.dtype && !(b.integer_storage && is_integer(t.dtype()))) mismatch("wrong dtype");
  if (t.rank() != b.rank) mismatch("wrong rank");
  for (int i = skip_first_dim ? 1 : 0; i < b.rank; ++i)
    if (b.dims[i] >= 0 && b.dims[i] != t.dim(i)) mismatch("wrong size of dim " + std::to_string(i));
}

namespace {

/// Reads bytes where they lie, for the params embedded in the binary: an
/// istringstream would copy them twice first (measured: two thirds of a
/// batch-1 inference's 1200 page faults, ~3 ms of its start). Seekable, as
/// load_combined rewinds for its second attempt.
class MemoryStreambuf : public std::streambuf {
 public:
  MemoryStreambuf(const char* data, size_t size) {
    char* p = const_cast<char*>(data);  // the get area is only read
    setg(p, p, p + size);
  }

 protected:
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    const off_type base = dir == std::ios_base::beg ? 0 : dir == std::ios_base::cur ? gptr() - eback() : egptr() - eback();
    if (base + off < 0 || base + off > egptr() - eback()) return pos_type(off_type(-1));
    setg(eback(), eback() + base + off, egptr());
    return pos_type(base + off);
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }
};

bool is_directory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A combined file holds either every persistable (a checkpoint) or only
// the parameters (an inference export); try the full list first.
void load_combined(Model& model, std::istream* stream, const std::string& path) {
  const ModelInfo& m = model.info();
  // Read into scratch tensors so a failed attempt leaves the state as the
  // startup program made it.
  auto attempt = [&](const VarBinding* b, int n) {
    std::vector<Tensor> scratch(n);
    std::vector<Tensor*> outs;
    for (auto& t : scratch) outs.push_back(&t);
    if (stream) {
      stream->clear();
      stream->seekg(0);
      read_combined_params(*stream, path, binding_names(b, n), outs);
    } else {
      read_combined_params(path, binding_names(b, n), outs);
    }
    for (int i = 0; i < n; ++i) model.tensor(b[i]) = std::move(scratch[i]);
  };
  try {
    attempt(m.persistables, m.num_persistables);
  } catch (const Error& all_error) {
    if (m.num_parameters == 0 || m.num_parameters == m.num_persistables) throw;
    try {
      attempt(m.parameters, m.num_parameters);
    } catch (const Error&) {
      fail(std::string(all_error.what()) + " (it does not hold just the " + std::to_string(m.num_parameters) +
           " parameters either)");
    }
  }
}

}  // namespace

void load_params_from(Model& model, const std::string& path) {
  const ModelInfo& m = model.info();
  if (is_directory(path))
    read_param_dir(path, binding_names(m.persistables, m.num_persistables),
                   binding_tensors(model, m.persistables, m.num_persistables));
  else
    load_combined(model, nullptr, path);
}

void load_embedded_params(Model& model) {
  const ModelInfo& m = model.info();
  if (!m.embedded_params) return;
  MemoryStreambuf buf(reinterpret_cast<const char*>(m.embedded_params), m.embedded_params_size);
  std::istream in(&buf);
  load_combined(model, &in, "the params embedded at build time");
}

void apply_threads_flag(const Flags& flags) {
  if (!flags.has("threads")) return;
  const long long n = flags.get_int("threads", 1);
  if (n < 1) fail("--threads must be at least 1");
  set_num_threads(static_cast<int>(n));
}

void initialize_state(Model& model, const Flags& flags) {
  const ModelInfo& m = model.info();
  if (m.has_startup) model.startup();
  g_current_op = nullptr;  // errors below are about --params, not the startup program's last op
  std::string source;
  if (flags.has("resume")) {
    source = flags.get("resume");
    read_combined_params(source, binding_names(m.persistables, m.num_persistables),
                         binding_tensors(model, m.persistables, m.num_persistables));
  } else if (flags.has("params")) {
    source = flags.get("params");
    if (is_directory(source))
      read_param_dir(source, binding_names(m.persistables, m.num_persistables),
                     binding_tensors(model, m.persistables, m.num_persistables));
    else
      load_combined(model, nullptr, source);
  } else if (m.embedded_params) {
    source = "the params embedded at build time";
    MemoryStreambuf buf(reinterpret_cast<const char*>(m.embedded_params), m.embedded_params_size);
    std::istream in(&buf);
    load_combined(model, &in, source);
  }
  for (int i = 0; i < m.num_persistables; ++i) {
    const VarBinding& b = m.persistables[i];
    const Tensor& t = model.tensor(b);
    if (!t.initialized())
      fail("persistable '" + std::string(b.name) + "' (" + declared_str(b) + ") has no value: " +
           (m.has_startup ? "neither the startup program nor --params sets it"
                      : "give --params FILE|DIR (this binary was built without a startup program)"));
    check_against_declared(b, t, source.empty() ? "the startup program" : source, false);
  }
  model.parameters_changed();
}

void print_summary(const std::string& label, const Tensor& t) {
  if (!t.initialized()) fail("result '" + label + "' was never computed");
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    double v;
    switch (t.dtype()) {
      case DType::kFP32: v = t.data<float>()[i]; break;
      case DType::kFP64: v = t.data<double>()[i]; break;
      case DType::kInt32: v = t.data<int32_t>()[i]; break;
      case DType::kInt64: v = static_cast<double>(t.data<int64_t>()[i]); break;
      case DType::kBool: v = t.data<bool>()[i]; break;
      default: v = NAN;
    }
    lo = std::fmin(lo, v), hi = std::fmax(hi, v), sum += v;
  }
  if (n == 0) {
    std::printf("%s: %s %s  (empty)\n", label.c_str(), dtype_name(t.dtype()), t.shape().str().c_str());
    return;
  }
  std::printf("%s: %s %s  min %.6g  max %.6g  mean %.6g\n", label.c_str(), dtype_name(t.dtype()),
              t.shape().str().c_str(), lo, hi, sum / n);
}

double scalar_value(const Tensor& t, const std::string& name) {
  if (!t.initialized()) fail("'" + name + "' was never computed");
  if (t.numel() != 1) fail("'" + name + "' should hold one value but has shape " + t.shape().str());
  switch (t.dtype()) {
    case DType::kFP32: return t.data<float>()[0];
    case DType::kFP64: return t.data<double>()[0];
    default: fail("'" + name + "' is " + dtype_name(t.dtype()) + ", not a float");
  }
}

int run_model_main(int argc, char** argv, const ModelInfo& m) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("%s: compiled by fluidc %s from %s (sha256 %s)\n", argv[0], m.fluidc_version, m.program,
                  m.program_sha256);
      return 0;
    }
  try {
    std::unique_ptr<Model> model(m.create());
    return m.is_trainer ? run_trainer(*model, argc, argv) : run_inference(*model, argc, argv);
  } catch (const Error& e) {
    if (g_current_op)
      std::fprintf(stderr, "%s: error: block %d, op %d (%s): %s\n", argv[0], g_current_op->block, g_current_op->op,
                   g_current_op->type, e.what());
    else
      std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", argv[0]);
    return 1;
  } catch (const std::exception& e) {
    // Not bad input: a bug in fluidc or its runtime. A distinct exit code
    // lets scripts tell the two apart.
    std::fprintf(stderr, "%s: internal error (a fluidc bug, please report it): %s\n", argv[0], e.what());
    return 3;
  } catch (...) {
    std::fprintf(stderr, "%s: internal error (a fluidc bug, please report it): unknown exception\n", argv[0]);
    return 3;
  }
}

}  // namespace fluidc::rt
