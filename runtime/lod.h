// runtime/lod.h - LoD (sequence offsets) checks, .npy offsets in and out, and whole-sequence batching.
//
// A LoD tensor of lod_level L carries L offset vectors (Tensor::lod()). Level
// l's offsets start at 0, never decrease, and end at the number of entries of
// level l+1 (its offsets minus one); the last level's end at the row count
// (dim 0). Feeds arrive as a data .npy plus one int64 .npy of offsets per
// level (`--lod NAME=L0.npy[,L1.npy]`); fetches of LoD tensors write
// NAME.lod0.npy, NAME.lod1.npy, ... beside NAME.npy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cli.h"
#include "runtime/model.h"
#include "runtime/tensor.h"

namespace fluidc::rt {

/// Checks `lod` against a tensor of `rows` rows; throws Error starting with
/// `what` and naming the level and offset that break the rule.
void check_lod(const Lod& lod, int64_t rows, const std::string& what);

/// Reads one offsets .npy per level (1-D integer arrays) into `t`'s LoD and
/// checks it against `t`'s rows. `files` outermost level first.
void read_lod_npy(const std::vector<std::string>& files, Tensor& t, const std::string& what);

/// Writes `t`'s LoD as `stem.lod<l>.npy` (int64), one per level; nothing for a
/// dense tensor.
void write_lod_npy(const std::string& stem, const Tensor& t);

/// The last level's offsets of `t`, the one sequence ops work on (Paddle's
/// rule); throws Error naming `op` and `slot` when `t` has no LoD or its
/// offsets do not match its rows.
const std::vector<uint64_t>& last_lod_level(const Tensor& t, const char* op, const char* slot);

/// Copies whole top-level sequences `order[begin .. begin+count)` of `src`
/// (rows and offsets, all levels renumbered) into `dst`: how the trainer
/// batches a LoD feed.
void gather_sequences(const Tensor& src, const std::vector<int64_t>& order, int64_t begin, int64_t count, Tensor& dst);

/// Number of top-level sequences of a LoD tensor (its rows when dense).
int64_t top_level_count(const Tensor& t);

/// The offsets files `--lod NAME=L0.npy[,L1.npy]` gives for each feed, in
/// feed order (empty: a dense feed). A NAME that is not an input, or more
/// levels than the feed's declared lod_level, is an Error.
std::vector<std::vector<std::string>> lod_files_for_inputs(const ModelInfo& m, const Flags& flags);

/// Help text of --lod, shared by both drivers.
inline constexpr const char* kLodHelp =
    "  --lod NAME=L0.npy[,L1.npy]  sequence offsets of a LoD input (int64, one file per level,\n"
    "                      outermost first; each starts at 0, never decreases, and ends at the\n"
    "                      next level's entry count or the data's row count)\n";

}  // namespace fluidc::rt
