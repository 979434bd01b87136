// compiler/codegen/lib_header.h - `--emit lib`: the typed class header (NAME.h) and its methods over the generated Model.
#pragma once

#include <map>
#include <string>

#include "compiler/analysis/program_info.h"
#include "compiler/ir/program.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc {

/// What names the library's class and where the generated program is.
struct LibSpec {
  std::string class_namespace;  ///< "a::b", or empty for the global namespace
  std::string class_name;       ///< "Mlp"
  std::string header_name;      ///< "mlp.h": what the methods' file includes
  std::string model_namespace;  ///< where the emitted class `Model` and model_info() are
  std::string program_name;     ///< shown in the header
  bool embedded_params = false;
};

struct LibSources {
  std::string header;  ///< NAME.h: standard headers only, a pimpl class
  std::string impl;    ///< the class's methods, over runtime/library.h
};

/// The header and the methods of the library class for `main` (the program
/// as the pipeline left it, with its ProgramInfo and inferred types).
/// Input and output accessors are named after the variables
/// (`input_<name>`, `output_<name>`, non-identifier characters as '_').
LibSources emit_library_sources(const Program& main, const ProgramInfo& info,
                                const std::map<std::string, TensorType>* types, const LibSpec& spec);

/// "NS::Name" or "Name" split and checked (each part a plain identifier,
/// not a keyword or reserved, not hiding `std` or `fluidc`); UserError
/// otherwise. Returns {namespace, name}.
std::pair<std::string, std::string> parse_class_name(const std::string& qualified);

/// The default class of library NAME: CamelCase of its parts ("fit_a_line"
/// -> "FitALine"), in namespace fluidc_models.
std::string default_class_name(const std::string& library_name);

}  // namespace fluidc
