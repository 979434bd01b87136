// runtime/train_progress.h - where a training run stands, saved beside its checkpoint so --resume continues mid-epoch.
#pragma once

#include <cstdint>
#include <string>

namespace fluidc::rt {

/// What a trainer needs to continue the data order exactly where a run
/// stopped: the steps taken and the settings that define the order. Saved
/// as a small text file `<checkpoint>.progress` next to every checkpoint
/// (atomically, after the checkpoint itself).
struct TrainProgress {
  int64_t step = 0;   ///< steps completed
  int64_t rows = 0;   ///< rows of the training data
  int64_t batch = 0;  ///< --batch-size
  uint64_t seed = 0;  ///< --seed (the shuffle order)
  bool shuffle = true;

  /// True when `o` would draw batches in the same order as this run.
  bool same_order_as(const TrainProgress& o) const {
    return rows == o.rows && batch == o.batch && seed == o.seed && shuffle == o.shuffle;
  }
};

/// The progress file of checkpoint `checkpoint`.
std::string progress_path(const std::string& checkpoint);
void write_progress(const std::string& checkpoint, const TrainProgress& p);
/// Reads the progress saved beside `checkpoint`; false when there is none
/// (a checkpoint from Paddle, or from before this file existed). A file that
/// exists but is malformed is an Error.
bool read_progress(const std::string& checkpoint, TrainProgress* p);

}  // namespace fluidc::rt
