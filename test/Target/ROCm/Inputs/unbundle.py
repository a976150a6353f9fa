"""Lists the entries of a clang offload bundle and writes each code object
to DIR/<arch>.co: unbundle.py BUNDLE DIR (test helper)."""
import os
import struct
import sys

data = open(sys.argv[1], "rb").read()
if data[:24] != b"__CLANG_OFFLOAD_BUNDLE__":
    sys.exit("not an offload bundle")
count = struct.unpack_from("<Q", data, 24)[0]
pos = 32
for _ in range(count):
    offset, size, id_len = struct.unpack_from("<QQQ", data, pos)
    pos += 24
    entry = data[pos:pos + id_len].decode()
    pos += id_len
    print("entry %s offset %d size %d aligned %s" %
          (entry, offset, size, offset % 4096 == 0))
    if size:
        with open(os.path.join(sys.argv[2], entry.split("--")[-1] + ".co"),
                  "wb") as f:
            f.write(data[offset:offset + size])
