// compiler/ir/sha256.h - SHA-256 of a byte string, for the stamp on generated code.
#pragma once

#include <string>
#include <string_view>

namespace fluidc {

/// Lower-case hex SHA-256 digest of `data` (FIPS 180-4).
std::string sha256_hex(std::string_view data);

}  // namespace fluidc
