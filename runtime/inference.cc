// runtime/inference.cc - the driver of inference binaries: feed .npy files, run once, write fetches.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/lod.h"
#include "runtime/npy.h"
#include "runtime/op_profile.h"
#include "runtime/top_k.h"
#include "runtime/var_file_name.h"

namespace fluidc::rt {
namespace {

void print_help(const ModelInfo& m, const char* argv0) {
  std::printf(
      "usage: %s [--params FILE|DIR] --feed NAME=FILE.npy ... [--lod NAME=L0.npy[,L1.npy]] [--fetch-dir DIR]\n"
      "          [--repeat N] [--threads N]\n"
      "          [--top K [--labels FILE]] [--check-nan] [--profile]\n\n"
      "Inference binary compiled by fluidc %s from %s.\n\n"
      "  --params FILE|DIR   parameters: a combined file (.pdiparams) or a directory with one\n"
      "                      file per variable%s\n"
      "  --feed NAME=FILE    a NumPy .npy array for each input (checked against its declared\n"
      "                      dtype and shape; -1 dims take any size)\n"
      "%s"
      "  --fetch-dir DIR     write each result as DIR/NAME.npy ('/' in NAME becomes '_';\n"
      "                      docs/security.md), and a sequence result's offsets as\n"
      "                      DIR/NAME.lod0.npy, ...\n"
      "  --repeat N          run N times and report the median latency (benchmarking)\n"
      "  --top K             print each result row's K largest entries (a classifier's best\n"
      "                      classes) as index (value)\n"
      "  --labels FILE       with --top: names for the indices, one per line\n"
      "%s%s%s"
      "  --version           compiler version and program checksum\n\n",
      argv0, m.fluidc_version, m.program,
      m.embedded_params ? "; default: the params embedded at build time" : "", kLodHelp, kThreadsHelp, kCheckNanHelp,
      kProfileHelp);
  std::printf("inputs:\n");
  for (int i = 0; i < m.num_feeds; ++i) std::printf("  %s  %s\n", m.feeds[i].name, declared_str(m.feeds[i]).c_str());
  std::printf("outputs:\n");
  for (int i = 0; i < m.num_fetches; ++i)
    std::printf("  %s  %s\n", m.fetches[i].name, declared_str(m.fetches[i]).c_str());
}

}  // namespace

int run_inference(Model& model, int argc, char** argv) {
  const ModelInfo& m = model.info();
  if (wants_help(argc, argv)) {
    print_help(m, argv[0]);
    return 0;
  }
  Flags flags(argc, argv, {"params", "feed", "lod", "fetch-dir", "repeat", "threads", "top", "labels"}, {"feed", "lod"},
              {"check-nan", "profile"});
  const long long top = flags.get_int("top", 0);
  if (flags.has("top") && (top < 1 || top > 1000000)) fail("--top must be between 1 and 1000000");
  if (flags.has("labels") && top == 0) fail("--labels names the classes --top prints: give --top K too");
  const std::vector<std::string> labels = flags.has("labels") ? read_labels(flags.get("labels")) : std::vector<std::string>{};
  apply_threads_flag(flags);
  model.set_check_nan(flags.has("check-nan"));
  const std::vector<std::string> files = files_for_inputs(m, flags, "feed");
  const auto lod_files = lod_files_for_inputs(m, flags);
  for (int i = 0; i < m.num_feeds; ++i) {
    Tensor& feed = model.tensor(m.feeds[i]);
    read_npy(files[i], feed);
    check_against_declared(m.feeds[i], feed, files[i], false);
    feed.clear_lod();
    if (!lod_files[i].empty()) read_lod_npy(lod_files[i], feed, "'" + std::string(m.feeds[i].name) + "'");
  }
  initialize_state(model, flags);
  long long repeat = flags.get_int("repeat", 1);
  if (repeat < 1) fail("--repeat must be at least 1");
  g_profile_ops = flags.has("profile");  // after the parameters' load: only runs are timed
  std::vector<double> ms;
  for (long long r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    model.run();
    end_ops();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (repeat > 1) {
    std::sort(ms.begin(), ms.end());
    std::printf("latency over %lld runs: median %.4f ms, min %.4f ms, max %.4f ms\n", repeat, ms[ms.size() / 2],
                ms.front(), ms.back());
  }
  if (g_profile_ops) print_op_profile(stdout, repeat, "run");
  std::string dir = flags.get("fetch-dir");
  if (!dir.empty()) mkdir(dir.c_str(), 0755);  // an existing directory is fine; write errors say the rest
  for (int i = 0; i < m.num_fetches; ++i) {
    const VarBinding& b = m.fetches[i];
    print_summary(b.name, model.tensor(b));
    if (top > 0) print_top_k(b.name, model.tensor(b), static_cast<int>(top), labels);
    if (!dir.empty()) write_npy(dir + "/" + var_file_name(b.name, ".npy"), model.tensor(b));
    if (!dir.empty()) write_lod_npy(dir + "/" + var_file_name(b.name), model.tensor(b));
  }
  return 0;
}

}  // namespace fluidc::rt
