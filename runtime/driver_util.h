// runtime/driver_util.h - pieces shared by the trainer and inference drivers.
#pragma once

#include <string>
#include <vector>

#include "runtime/cli.h"
#include "runtime/model.h"

namespace fluidc::rt {

/// Checks a tensor given for `binding` (a feed, or a loaded persistable)
/// against its declared dtype, rank and fixed dims. `source` names where the
/// tensor came from ("x.npy"). When `batch_free` the first dim may differ
/// (it is sliced into batches). Throws Error naming both.
void check_against_declared(const VarBinding& binding, const Tensor& t, const std::string& source,
                            bool skip_first_dim);

/// Initialises the model's state: runs the startup program when there is
/// one, then loads --params (a combined file or a per-variable directory)
/// or the params embedded at build time. A combined file may hold every
/// persistable or only the parameters. Checks that every persistable ends
/// up holding a value of its declared type.
void initialize_state(Model& m, const Flags& flags);

/// The loading parts of initialize_state, for the library API
/// (runtime/library.h): `path` is a combined file (every persistable, or
/// only the parameters) or a per-variable directory; the embedded params
/// load nothing when the program has none. Neither checks the result.
void load_params_from(Model& m, const std::string& path);
void load_embedded_params(Model& m);

/// Applies --threads N (the kernels' thread count; see runtime/parallel.h).
void apply_threads_flag(const Flags& flags);

/// Help text of --threads, shared by both drivers.
inline constexpr const char* kThreadsHelp =
    "  --threads N         threads the GEMMs may use (default: the CPUs this process may run on,\n"
    "                      or $FLUIDC_NUM_THREADS)\n";

/// Help text of --check-nan, shared by both drivers.
inline constexpr const char* kCheckNanHelp =
    "  --check-nan         after every op, check its float outputs; stop at the first NaN or Inf,\n"
    "                      naming the op and the variable (slower; like Paddle's FLAGS_check_nan_inf)\n";

/// Names of a binding table, and an instance's tensors for it, for the
/// tensor_record API.
std::vector<std::string> binding_names(const VarBinding* b, int n);
std::vector<Tensor*> binding_tensors(Model& m, const VarBinding* b, int n);

/// True when argv asks for --help / -h (checked before flag parsing, so
/// help works next to otherwise invalid flags).
bool wants_help(int argc, char** argv);

/// Rejects NAME=FILE pairs of `flag` whose NAME is not one of the model's
/// inputs, and returns the file given for each input, in feed order.
/// A missing input is an Error naming it and its declared type.
std::vector<std::string> files_for_inputs(const ModelInfo& m, const Flags& flags, const std::string& flag);

/// "float32[-1, 13]" for a declared binding.
std::string declared_str(const VarBinding& b);

/// Prints "NAME: float32 [1, 10]  min .. max .. mean .." for a result.
void print_summary(const std::string& label, const Tensor& t);

/// Value of a 1-element (or 0-D) float tensor, e.g. a loss.
double scalar_value(const Tensor& t, const std::string& name);

/// The drivers, on one instance of the program.
int run_trainer(Model& m, int argc, char** argv);
int run_inference(Model& m, int argc, char** argv);

}  // namespace fluidc::rt
