// test/install/lib_project/embed.cc - includes the generated header and links the library archive.
#include "digits_lib.h"

int main() { return 0; }
