// runtime/train_progress.cc - the `<checkpoint>.progress` text file: read, validated, written atomically.
#include "runtime/train_progress.h"

#include <sys/stat.h>

#include <map>
#include <sstream>

#include "runtime/atomic_file.h"
#include "runtime/error.h"

namespace fluidc::rt {
namespace {

constexpr const char* kMagic = "fluidc-train-progress 1";

}  // namespace

std::string progress_path(const std::string& checkpoint) { return checkpoint + ".progress"; }

void write_progress(const std::string& checkpoint, const TrainProgress& p) {
  std::ostringstream s;
  s << kMagic << "\nstep " << p.step << "\nrows " << p.rows << "\nbatch " << p.batch << "\nseed " << p.seed
    << "\nshuffle " << (p.shuffle ? 1 : 0) << "\n";
  write_file_atomically(progress_path(checkpoint), s.str());
}

bool read_progress(const std::string& checkpoint, TrainProgress* p) {
  const std::string path = progress_path(checkpoint);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  std::istringstream in(read_file(path));
  std::string line;
  if (!std::getline(in, line) || line != kMagic) fail(path + ": not a fluidc progress file");
  std::map<std::string, long long> v;
  for (std::string key; in >> key;) {
    long long x;
    if (!(in >> x) || x < 0) fail(path + ": malformed value for '" + key + "'");
    v[key] = x;
  }
  for (const char* key : {"step", "rows", "batch", "seed", "shuffle"})
    if (!v.count(key)) fail(path + ": missing '" + std::string(key) + "'");
  p->step = v["step"], p->rows = v["rows"], p->batch = v["batch"];
  p->seed = static_cast<uint64_t>(v["seed"]), p->shuffle = v["shuffle"] != 0;
  return true;
}

}  // namespace fluidc::rt
