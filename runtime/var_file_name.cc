// runtime/var_file_name.cc - variable name -> file name inside a chosen directory, confined to it.
#include "runtime/var_file_name.h"

#include "runtime/error.h"

namespace fluidc::rt {

std::string var_file_name(const std::string& name, const char* suffix) {
  if (name.empty() || name == "." || name == "..")
    fail("variable name '" + name + "' cannot be used as a file name");
  std::string file = name;
  for (char& c : file) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) fail("variable name holds a control character; it cannot be used as a file name");
    if (c == '/') c = '_';
  }
  return file + suffix;
}

}  // namespace fluidc::rt
