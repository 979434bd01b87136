// runtime/top_k.h - inference binaries' --top K: the K largest scores of each row, with optional labels.
#pragma once

#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// Reads a labels file: one label per line (trailing '\r' dropped), the
/// line's index is the class index. Throws Error when it cannot be read.
std::vector<std::string> read_labels(const std::string& path);

/// Prints, for each row of `t` (its first dim; a rank-0 or rank-1 tensor is
/// one row), the `k` largest entries of the row in decreasing order as
/// "index (value)", or "label (value)" when `labels` covers the index.
/// Float tensors only; others throw Error.
void print_top_k(const std::string& name, const Tensor& t, int k, const std::vector<std::string>& labels);

}  // namespace fluidc::rt
