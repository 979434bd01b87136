// kernels/coll.h - the collective ops have no kernel of their own: their generated code calls runtime/coll (MPI).
#pragma once

#include "runtime/coll/coll.h"
