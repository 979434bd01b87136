// transpilers/strip_inference.h - turns an exported inference program back into a forward program to train.
#pragma once

#include "compiler/ir/program.h"

namespace fluidc {

/// Removes block 0's feed and fetch ops (ops with the kFeed / kFetch traits:
/// a trainer binds data by variable name) and sets every `is_test`
/// attribute to false, which is what changes behaviour for training
/// (dropout, batch_norm, while). A forward program passes through unchanged.
void strip_inference(pb::ProgramDesc& prog);

}  // namespace fluidc
