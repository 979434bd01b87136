// compiler/ops/io.cc - feed and fetch: where a program's inputs enter and its results leave.
#include "compiler/ops/registry.h"

namespace fluidc::ops {

// The generated binary binds fed tensors and fetched results directly to the
// program's variables, so these ops emit no kernel call (see codegen).
void add_io_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "feed",
               .family = "",
               .inputs = {{"X", false, false, pb::VarType::FEED_MINIBATCH}},
               .outputs = {{"Out"}},
               .attrs = {{"col", pb::INT, true, false}},
               .traits = kFeed | kSideEffect});
  t.push_back({.type = "fetch",
               .family = "",
               .inputs = {{"X"}},
               .outputs = {{"Out", false, false, pb::VarType::FETCH_LIST}},
               .attrs = {{"col", pb::INT, true, false}},
               .traits = kFetch | kSideEffect});
}

}  // namespace fluidc::ops
