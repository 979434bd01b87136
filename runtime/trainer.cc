// runtime/trainer.cc - the driver of trainer binaries: batches from .npy data, steps, logging, checkpoints.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "runtime/atomic_file.h"
#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/finite_check.h"
#include "runtime/lod.h"
#include "runtime/npy.h"
#include "runtime/op_profile.h"
#include "runtime/parallel.h"
#include "runtime/tensor_record.h"
#include "runtime/train_progress.h"

namespace fluidc::rt {
namespace {

// Steps per second with four significant digits and never an exponent (a
// slow ResNet step at "2.1 steps/s" hid 5% differences; bench/ parses these).
std::string rate_text(double rate) {
  const int decimals = rate >= 1000 ? 0 : rate >= 100 ? 1 : rate >= 10 ? 2 : 3;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, rate);
  return buf;
}

void print_help(const ModelInfo& m, const char* argv0) {
  std::printf(
      "usage: %s --data NAME=FILE.npy ... [--lod NAME=L0.npy[,L1.npy]] [--batch-size N] [--epochs N | --steps N]\n"
      "          [--params FILE|DIR | --resume FILE] [--save FILE [--save-every N]] [--save-dir DIR] [--seed N]\n"
      "          [--no-shuffle] [--log-every N] [--losses-out FILE.npy] [--threads N] [--check-nan]\n"
      "          [--profile]\n\n"
      "Trainer compiled by fluidc %s from %s.\n\n"
      "  --data NAME=FILE    training data for each input, one sample per row (axis 0)\n"
      "%s"
      "  --batch-size N      rows per step (default 32); the last batch of an epoch may be smaller;\n"
      "                      with --lod, whole sequences per step (dense inputs: one row each)\n"
      "  --epochs N          passes over the data (default 1)\n"
      "  --steps N           stop after N steps instead (may span several epochs); with --resume,\n"
      "                      both count from the start of the first run\n"
      "  --params FILE|DIR   start from these weights (combined .pdiparams or per-variable dir)\n"
      "                      instead of the startup program's initialisation\n"
      "  --resume FILE       continue from a checkpoint written by --save, at the step it was\n"
      "                      saved (mid-epoch, same batches) when FILE.progress is beside it\n"
      "  --save FILE         write every persistable (Paddle's combined format, sorted by name)\n"
      "                      atomically at the end, and the step reached to FILE.progress;\n"
      "                      never when the loss or a persistable is NaN or Inf\n"
      "  --save-every N      also save every N steps\n"
      "  --save-dir DIR      also write one file per persistable into DIR (Paddle's save_vars layout),\n"
      "                      which inference binaries of the same model read by name\n"
      "  --seed N            seed for shuffling and random initialisers (default 0)\n"
      "  --no-shuffle        take rows in file order\n"
      "  --log-every N       print step, loss and steps/s every N steps (default 10)\n"
      "  --losses-out FILE   write every step's loss as a float32 .npy\n"
      "  --shard I/N         take batches I, I+N, I+2N... of each epoch (trainer I of N; distributed\n"
      "                      binaries set it from PADDLE_TRAINER_ID and PADDLE_TRAINERS_NUM)\n"
      "%s%s%s"
      "  --version           compiler version and program checksum\n\n",
      argv0, m.fluidc_version, m.program, kLodHelp, kThreadsHelp, kCheckNanHelp, kProfileHelp);
  std::printf("inputs:\n");
  for (int i = 0; i < m.num_feeds; ++i) std::printf("  %s  %s\n", m.feeds[i].name, declared_str(m.feeds[i]).c_str());
  std::printf("loss: %s\ntrained parameters: %d, persistables: %d\n", m.loss ? m.loss->name : "?", m.num_parameters,
              m.num_persistables);
}

// Copies rows `rows` of `src` into `dst` (shape [rows.size(), src dims 1..]).
void gather_rows(const Tensor& src, const std::vector<int64_t>& order, int64_t begin, int64_t count, Tensor& dst) {
  Shape s = src.shape();
  s[0] = count;
  dst.resize(s, src.dtype());
  const size_t row_bytes = src.numel() ? src.nbytes() / static_cast<size_t>(src.dim(0)) : 0;
  const char* from = static_cast<const char*>(src.raw());
  char* to = static_cast<char*>(dst.raw());
  for (int64_t r = 0; r < count; ++r) std::memcpy(to + r * row_bytes, from + order[begin + r] * row_bytes, row_bytes);
}

// The run's counts, parsed and multiplied with overflow checks.
struct StepPlan {
  int64_t rows = 0, batch = 0, per_epoch = 0, steps = 0, first_step = 0, log_every = 10, save_every = 0;
  int64_t shard = 0, shards = 1;  ///< --shard I/N: this trainer takes batches I, I+N, ... of each epoch
};

// --shard I/N (set by distributed binaries from PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM).
void parse_shard(const Flags& flags, StepPlan& p) {
  if (!flags.has("shard")) return;
  const std::string v = flags.get("shard");
  long long i = -1, n = -1;
  char tail = 0;
  if (std::sscanf(v.c_str(), "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
    fail("--shard expects I/N with 0 <= I < N, got '" + v + "'");
  p.shard = i, p.shards = n;
}

StepPlan plan_steps(const Flags& flags, int64_t rows) {
  StepPlan p;
  p.rows = rows;
  p.batch = flags.get_int("batch-size", 32);
  if (p.batch < 1) fail("--batch-size must be at least 1");
  p.per_epoch = rows / p.batch + (rows % p.batch != 0);
  parse_shard(flags, p);
  if (p.shards > 1) {
    // Every trainer takes the same number of batches per epoch (a sync step needs them all).
    if (p.per_epoch < p.shards)
      fail("--shard " + std::to_string(p.shard) + "/" + std::to_string(p.shards) + ": the data has " +
           std::to_string(p.per_epoch) + " batches per epoch, fewer than the " + std::to_string(p.shards) + " trainers");
    p.per_epoch /= p.shards;
  }
  if (flags.has("steps") && flags.has("epochs")) fail("give --steps or --epochs, not both");
  if (flags.has("steps")) {
    p.steps = flags.get_int("steps", 0);
  } else {
    const long long epochs = flags.get_int("epochs", 1);
    long long steps = 0;
    if (__builtin_mul_overflow(static_cast<long long>(p.per_epoch), epochs, &steps))
      fail("--epochs " + std::to_string(epochs) + " is too many: " + std::to_string(p.per_epoch) +
           " steps per epoch times that does not fit in 64 bits");
    p.steps = steps;
  }
  p.log_every = std::max<long long>(1, flags.get_int("log-every", 10));
  p.save_every = flags.get_int("save-every", 0);
  if (p.save_every > 0 && !flags.has("save")) fail("--save-every needs --save FILE");
  return p;
}

// Output paths are checked before the first step: a typo must not cost a
// long run its results.
void check_outputs(const Flags& flags) {
  for (const char* flag : {"save", "losses-out"})
    if (flags.has(flag)) check_writable_target(flags.get(flag));
  if (flags.has("save")) check_writable_target(progress_path(flags.get("save")));
  if (flags.has("save-dir")) {
    const std::string dir = flags.get("save-dir");
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) fail("--save-dir " + dir + ": exists and is not a directory");
      if (::access(dir.c_str(), W_OK | X_OK) != 0)
        fail("--save-dir " + dir + ": directory is not writable: " + std::strerror(errno));
    } else {
      check_writable_target(dir);  // its parent must exist and be writable
    }
  }
}

// Training data: one array per feed, all with the same number of rows (of
// top-level sequences, for a LoD input), all finite (a NaN in the data would
// train silently into NaN weights).
int64_t load_data(const ModelInfo& m, const Flags& flags, std::vector<Tensor>& data) {
  const std::vector<std::string> files = files_for_inputs(m, flags, "data");
  const auto lod_files = lod_files_for_inputs(m, flags);
  data.resize(m.num_feeds);
  int64_t rows = -1;
  for (int i = 0; i < m.num_feeds; ++i) {
    const VarBinding& b = m.feeds[i];
    read_npy(files[i], data[i]);
    check_against_declared(b, data[i], files[i], true);
    if (data[i].rank() == 0) fail("'" + std::string(b.name) + "' from " + files[i] + ": needs a row axis");
    if (!lod_files[i].empty()) read_lod_npy(lod_files[i], data[i], "'" + std::string(b.name) + "'");
    const int64_t n = top_level_count(data[i]);
    if (rows >= 0 && n != rows)
      fail("--data arrays differ in rows (sequences, for a --lod input): '" + std::string(b.name) + "' has " +
           std::to_string(n) + ", the first input has " + std::to_string(rows));
    rows = n;
    check_finite(data[i], "'" + std::string(b.name) + "' from " + files[i]);
  }
  if (rows <= 0) fail("training data has no rows");
  return rows;
}

// Writes --save (and its progress file) and --save-dir, after checking that
// every persistable is finite: a diverged run never replaces a good
// checkpoint.
void save_state(Model& model, const Flags& flags, const TrainProgress& progress) {
  const ModelInfo& m = model.info();
  model.sync_to_host();  // a device model's persistables live on the device during training
  std::vector<const Tensor*> state;
  for (int i = 0; i < m.num_persistables; ++i) {
    check_finite(model.tensor(m.persistables[i]), "not saving after step " + std::to_string(progress.step) + ": '" +
                                                std::string(m.persistables[i].name) + "'");
    state.push_back(&model.tensor(m.persistables[i]));
  }
  const auto names = binding_names(m.persistables, m.num_persistables);
  if (flags.has("save")) {
    write_combined_params(flags.get("save"), names, state);
    write_progress(flags.get("save"), progress);
  }
  if (flags.has("save-dir")) write_param_dir(flags.get("save-dir"), names, state);
}

}  // namespace

int run_trainer(Model& model, int argc, char** argv) {
  const ModelInfo& m = model.info();
  if (wants_help(argc, argv)) {
    print_help(m, argv[0]);
    return 0;
  }
  Flags flags(argc, argv,
              {"data", "batch-size", "epochs", "steps", "params", "resume", "save", "save-dir", "save-every", "seed",
               "log-every", "losses-out", "threads", "lod", "shard"},
              {"data", "lod"}, {"no-shuffle", "check-nan", "profile"});
  apply_threads_flag(flags);
  // Before the startup program, whose ops are checked too; an error stops
  // the run before save_state, so no checkpoint is written or replaced.
  model.set_check_nan(flags.has("check-nan"));
  if (!m.loss) fail("this trainer has no loss variable");
  if (flags.has("params") && flags.has("resume")) fail("give --params or --resume, not both");
  check_outputs(flags);

  std::vector<Tensor> data;
  const int64_t rows = load_data(m, flags, data);
  StepPlan plan = plan_steps(flags, rows);
  TrainProgress progress;
  progress.rows = rows, progress.batch = plan.batch, progress.shuffle = !flags.has("no-shuffle");
  progress.seed = static_cast<uint64_t>(flags.get_int("seed", 0));
  std::mt19937_64 rng(progress.seed);

  initialize_state(model, flags);
  TrainProgress saved;
  if (flags.has("resume") && read_progress(flags.get("resume"), &saved)) {
    if (saved.same_order_as(progress)) plan.first_step = saved.step;
    else std::printf("note: the data, --batch-size, --seed or --no-shuffle differ from the run that wrote %s: "
                     "the data order starts afresh\n", flags.get("resume").c_str());
  }

  std::printf("training %s: %lld rows, batch %lld, %lld steps (%lld per epoch)%s, %d thread%s\n", m.program,
              static_cast<long long>(rows), static_cast<long long>(plan.batch), static_cast<long long>(plan.steps),
              static_cast<long long>(plan.per_epoch), progress.shuffle ? ", shuffled" : "", num_threads(),
              num_threads() == 1 ? "" : "s");
  if (plan.first_step > 0)
    std::printf("resuming at step %lld (epoch %lld)\n", static_cast<long long>(plan.first_step),
                static_cast<long long>(plan.first_step / plan.per_epoch + 1));
  std::fflush(stdout);
  std::vector<int64_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  // Replay the shuffles of the epochs already begun, so a resumed run draws
  // exactly the batches the interrupted one would have.
  if (progress.shuffle)
    for (int64_t e = 0; e * plan.per_epoch < plan.first_step; ++e) std::shuffle(order.begin(), order.end(), rng);
  const bool keep_losses = flags.has("losses-out");
  std::vector<float> losses;  // grows as it goes: --steps may be huge
  double loss = 0;
  auto interval_start = std::chrono::steady_clock::now();
  const auto run_start = interval_start;
  g_profile_ops = flags.has("profile");  // after the startup program and any --params: only steps are timed
  int64_t interval_steps = 0;
  for (int64_t step = plan.first_step; step < plan.steps; ++step) {
    const int64_t in_epoch = step % plan.per_epoch;
    if (in_epoch == 0 && progress.shuffle) std::shuffle(order.begin(), order.end(), rng);
    const int64_t begin = (in_epoch * plan.shards + plan.shard) * plan.batch, count = std::min(plan.batch, rows - begin);
    for (int i = 0; i < m.num_feeds; ++i) {
      if (data[i].lod()) gather_sequences(data[i], order, begin, count, model.tensor(m.feeds[i]));
      else if (!model.gather_feed(i, data[i], order.data() + begin, count))
        gather_rows(data[i], order, begin, count, model.tensor(m.feeds[i]));
    }
    model.run();
    end_ops();
    loss = scalar_value(model.tensor(*m.loss), m.loss->name);
    if (!std::isfinite(loss))
      fail("step " + std::to_string(step + 1) + ": the loss '" + m.loss->name + "' is " + std::to_string(loss) +
           "; stopping without saving (any earlier checkpoint is kept)");
    if (keep_losses) losses.push_back(static_cast<float>(loss));
    ++interval_steps;
    if ((step + 1) % plan.log_every == 0 || step + 1 == plan.steps) {
      auto now = std::chrono::steady_clock::now();
      double secs = std::chrono::duration<double>(now - interval_start).count();
      std::printf("step %lld/%lld  epoch %lld  loss %.6f  %s steps/s\n", static_cast<long long>(step + 1),
                  static_cast<long long>(plan.steps), static_cast<long long>(step / plan.per_epoch + 1), loss,
                  rate_text(secs > 0 ? interval_steps / secs : 0.0).c_str());
      std::fflush(stdout);
      interval_start = now;
      interval_steps = 0;
    }
    if (plan.save_every > 0 && (step + 1) % plan.save_every == 0 && step + 1 < plan.steps) {
      progress.step = step + 1;
      save_state(model, flags, progress);
    }
  }
  const int64_t done = std::max<int64_t>(0, plan.steps - plan.first_step);
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  std::printf("done: %lld steps in %.3f s (%s steps/s), final loss %.6f\n", static_cast<long long>(done), total,
              rate_text(total > 0 ? done / total : 0.0).c_str(), loss);
  if (g_profile_ops) print_op_profile(stdout, done, "step");
  if (keep_losses) {
    Tensor t;
    t.resize(Shape{static_cast<int64_t>(losses.size())}, DType::kFP32);
    std::copy(losses.begin(), losses.end(), t.data<float>());
    write_npy(flags.get("losses-out"), t);
  }
  progress.step = std::max(plan.first_step, plan.steps);
  save_state(model, flags, progress);
  if (flags.has("save")) std::printf("saved %d persistables to %s\n", m.num_persistables, flags.get("save").c_str());
  if (flags.has("save-dir"))
    std::printf("saved %d persistables, one file each, to %s/\n", m.num_persistables, flags.get("save-dir").c_str());
  return 0;
}

}  // namespace fluidc::rt
