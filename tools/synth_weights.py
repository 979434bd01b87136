"""Deterministic weights for real programs that came without any (test/tools/synth_params.cc
implements the same formula in C++; see the formula there). Pure integer arithmetic, so both
give bit-identical float32 values."""

import numpy as np

_MASK = (1 << 64) - 1


def fnv1a64(s):
    h = 1469598103934665603
    for c in s.encode():
        h = ((h ^ c) * 1099511628211) & _MASK
    return h


def _splitmix64(x):
    """Vectorised over a uint64 array (numpy wraps modulo 2^64)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def synth(name, dims, input=False, dtype="float32"):
    """float32 by the formula of test/tools/synth_params.cc; int8 (quantized
    weights) floor(255 u) - 127; int32/int64 (zero points) zeros."""
    n = int(np.prod(dims)) if len(dims) else 1
    with np.errstate(over="ignore"):
        idx = np.arange(n, dtype=np.uint64) + np.uint64(fnv1a64(name))
        u = (_splitmix64(idx) >> np.uint64(40)).astype(np.float64) / 16777216.0
    if dtype == "int8":
        return (np.floor(255.0 * u) - 127.0).astype(np.int8).reshape(dims)
    if dtype in ("int32", "int64"):
        return np.zeros(dims, dtype=dtype)
    if input:
        v = u
    elif len(dims) >= 2:
        scale = np.sqrt(3.0 / (n // dims[0]))
        v = (2.0 * u - 1.0) * scale
    else:
        v = 0.5 + u
    return v.astype(np.float32).reshape(dims)
