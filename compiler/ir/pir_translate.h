// compiler/ir/pir_translate.h - a Paddle 3 PIR program as the ProgramDesc the rest of fluidc reads.
#pragma once

#include <string>

#include "compiler/ir/pir_json.h"
#include "compiler/ir/program.h"

namespace fluidc::pir {

/// Lowers a PIR inference program to a one-block ProgramDesc: parameters
/// become persistable variables (loaded from .pdiparams in name order, as
/// Paddle 3 saves them), pd_op.data a feed, pd_op.fetch a fetch whose
/// variable takes the fetch's name ("fetch_name_0"), constants used as
/// attributes fold into them, and each other op follows its rule in
/// pir_ops.cc. Unsupported ops are listed together in one UserError.
pb::ProgramDesc translate(const Program& pir, const std::string& origin);

}  // namespace fluidc::pir
