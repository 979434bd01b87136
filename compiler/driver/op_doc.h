// compiler/driver/op_doc.h - `fluidc ops`: the op table as a plain listing or as docs/ops.md.
#pragma once

namespace fluidc {

/// The supported ops with their grad op and whether a CPU and CUDA path exist.
void print_op_table();

/// The same facts as Markdown (docs/ops.md): forward ops by family, each
/// with its slots, gradient op, targets, fusability and attributes.
void print_op_table_markdown();

}  // namespace fluidc
