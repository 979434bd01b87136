// runtime/trainer.cc - the driver of trainer binaries: batches from .npy data, steps, logging, checkpoints.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "runtime/driver_util.h"
#include "runtime/parallel.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/tensor_record.h"

namespace fluidc::rt {
namespace {

void print_help(const ModelInfo& m, const char* argv0) {
  std::printf(
      "usage: %s --data NAME=FILE.npy ... [--batch-size N] [--epochs N | --steps N]\n"
      "          [--params FILE|DIR | --resume FILE] [--save FILE] [--save-dir DIR] [--seed N] [--no-shuffle]\n"
      "          [--log-every N] [--losses-out FILE.npy] [--threads N]\n\n"
      "Trainer compiled by fluidc %s from %s.\n\n"
      "  --data NAME=FILE    training data for each input, one sample per row (axis 0)\n"
      "  --batch-size N      rows per step (default 32); the last batch of an epoch may be smaller\n"
      "  --epochs N          passes over the data (default 1)\n"
      "  --steps N           stop after N steps instead (may span several epochs)\n"
      "  --params FILE|DIR   start from these weights (combined .pdiparams or per-variable dir)\n"
      "                      instead of the startup program's initialisation\n"
      "  --resume FILE       continue from a checkpoint written by --save\n"
      "  --save FILE         write every persistable (Paddle's combined format, sorted by name)\n"
      "                      atomically at the end\n"
      "  --save-dir DIR      also write one file per persistable into DIR (Paddle's save_vars layout),\n"
      "                      which inference binaries of the same model read by name\n"
      "  --seed N            seed for shuffling and random initialisers (default 0)\n"
      "  --no-shuffle        take rows in file order\n"
      "  --log-every N       print step, loss and steps/s every N steps (default 10)\n"
      "  --losses-out FILE   write every step's loss as a float32 .npy\n"
      "%s"
      "  --version           compiler version and program checksum\n\n",
      argv0, m.fluidc_version, m.program, kThreadsHelp);
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

}  // namespace

int run_trainer(Model& model, int argc, char** argv) {
  const ModelInfo& m = model.info();
  if (wants_help(argc, argv)) {
    print_help(m, argv[0]);
    return 0;
  }
  Flags flags(argc, argv,
              {"data", "batch-size", "epochs", "steps", "params", "resume", "save", "save-dir", "seed", "log-every",
               "losses-out", "threads"},
              {"data"}, {"no-shuffle"});
  apply_threads_flag(flags);
  if (!m.loss) fail("this trainer has no loss variable");
  if (flags.has("params") && flags.has("resume")) fail("give --params or --resume, not both");

  // Training data: one array per feed, all with the same number of rows.
  const std::vector<std::string> files = files_for_inputs(m, flags, "data");
  std::vector<Tensor> data(m.num_feeds);
  int64_t rows = -1;
  for (int i = 0; i < m.num_feeds; ++i) {
    const VarBinding& b = m.feeds[i];
    read_npy(files[i], data[i]);
    check_against_declared(b, data[i], files[i], true);
    if (data[i].rank() == 0) fail("'" + std::string(b.name) + "' from " + files[i] + ": needs a row axis");
    if (rows >= 0 && data[i].dim(0) != rows)
      fail("--data arrays differ in rows: '" + std::string(b.name) + "' has " + std::to_string(data[i].dim(0)) +
           ", the first input has " + std::to_string(rows));
    rows = data[i].dim(0);
  }
  if (rows <= 0) fail("training data has no rows");

  const int64_t batch = flags.get_int("batch-size", 32);
  if (batch < 1) fail("--batch-size must be at least 1");
  const int64_t per_epoch = (rows + batch - 1) / batch;
  const int64_t steps = flags.has("steps") ? flags.get_int("steps", 0) : per_epoch * flags.get_int("epochs", 1);
  const int64_t log_every = std::max<long long>(1, flags.get_int("log-every", 10));
  const bool shuffle = !flags.has("no-shuffle");
  std::mt19937_64 rng(static_cast<uint64_t>(flags.get_int("seed", 0)));

  initialize_state(model, flags);

  std::printf("training %s: %lld rows, batch %lld, %lld steps (%lld per epoch)%s, %d thread%s\n", m.program,
              static_cast<long long>(rows), static_cast<long long>(batch), static_cast<long long>(steps),
              static_cast<long long>(per_epoch), shuffle ? ", shuffled" : "", num_threads(),
              num_threads() == 1 ? "" : "s");
  std::fflush(stdout);
  std::vector<int64_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> losses;
  losses.reserve(steps);
  auto interval_start = std::chrono::steady_clock::now();
  const auto run_start = interval_start;
  int64_t interval_steps = 0;
  for (int64_t step = 0; step < steps; ++step) {
    const int64_t in_epoch = step % per_epoch;
    if (in_epoch == 0 && shuffle) std::shuffle(order.begin(), order.end(), rng);
    const int64_t begin = in_epoch * batch, count = std::min(batch, rows - begin);
    for (int i = 0; i < m.num_feeds; ++i) gather_rows(data[i], order, begin, count, model.tensor(m.feeds[i]));
    model.run();
    g_current_op = nullptr;
    const double loss = scalar_value(model.tensor(*m.loss), m.loss->name);
    losses.push_back(static_cast<float>(loss));
    ++interval_steps;
    if ((step + 1) % log_every == 0 || step + 1 == steps) {
      auto now = std::chrono::steady_clock::now();
      double secs = std::chrono::duration<double>(now - interval_start).count();
      std::printf("step %lld/%lld  epoch %lld  loss %.6f  %.1f steps/s\n", static_cast<long long>(step + 1),
                  static_cast<long long>(steps), static_cast<long long>(step / per_epoch + 1), loss,
                  secs > 0 ? interval_steps / secs : 0.0);
      std::fflush(stdout);
      interval_start = now;
      interval_steps = 0;
    }
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  std::printf("done: %lld steps in %.3f s (%.1f steps/s), final loss %.6f\n", static_cast<long long>(steps), total,
              total > 0 ? steps / total : 0.0, losses.empty() ? 0.0 : losses.back());
  if (flags.has("losses-out")) {
    Tensor t;
    t.resize(Shape{static_cast<int64_t>(losses.size())}, DType::kFP32);
    std::copy(losses.begin(), losses.end(), t.data<float>());
    write_npy(flags.get("losses-out"), t);
  }
  std::vector<const Tensor*> state;
  for (int i = 0; i < m.num_persistables; ++i) state.push_back(&model.tensor(m.persistables[i]));
  const auto names = binding_names(m.persistables, m.num_persistables);
  if (flags.has("save")) {
    write_combined_params(flags.get("save"), names, state);
    std::printf("saved %d persistables to %s\n", m.num_persistables, flags.get("save").c_str());
  }
  if (flags.has("save-dir")) {
    write_param_dir(flags.get("save-dir"), names, state);
    std::printf("saved %d persistables, one file each, to %s/\n", m.num_persistables, flags.get("save-dir").c_str());
  }
  return 0;
}

}  // namespace fluidc::rt
