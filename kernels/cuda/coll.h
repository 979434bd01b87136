// kernels/cuda/coll.h - what the CUDA target's code for the collective ops calls: NCCL in the main program, MPI on the host mirrors in the startup program.
#pragma once

#include "kernels/coll.h"
#include "runtime/coll/nccl_ops.h"
