// runtime/var_file_name.h - the one rule for turning a program variable's name into a file name.
//
// Variable names come from the program file, which is untrusted input
// (docs/security.md). Wherever a name becomes a file inside a directory
// the user chose (--save-dir, --fetch-dir, a per-variable --params
// directory), it goes through var_file_name(), so no name can reach outside
// that directory.
#pragma once

#include <string>

namespace fluidc::rt {

/// The file name of variable `name` inside a directory: every '/' becomes
/// '_' (Paddle's save_vars would create subdirectories; a name can then
/// never climb out with "../"), and a name that is empty, ".", "..", or
/// holds a control character (the verifier refuses those) throws
/// rt::Error. `suffix` is appended (".npy" for fetches).
std::string var_file_name(const std::string& name, const char* suffix = "");

}  // namespace fluidc::rt
