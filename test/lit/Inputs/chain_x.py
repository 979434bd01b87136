# test/lit/Inputs/chain_x.py - input for the generated chain programs (tools/gen_scaling_programs.py).
# Writes a float32 .npy of shape [3, 8] with values spread over [-2, 2] (no NumPy).
import struct, sys
vals = [-2.0 + 4.0 * i / 23 for i in range(24)]
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 8), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<24f", *vals))
