"""stub-spirv-header.py DIR: for each Vulkan stub DIR/*.cpp, the SPIR-V
version of each embedded kernel binary (a uint32_t array) and whether it
declares the CooperativeMatrixKHR capability (6022)."""
import glob
import re
import sys

OP_CAPABILITY = 17
COOPERATIVE_MATRIX_KHR = 6022

for path in sorted(glob.glob(sys.argv[1] + "/*.cpp")):
    text = open(path).read()
    for m in re.finditer(r"const uint32_t (tlc_binary_\w+)\[\] = \{([^}]*)\}",
                         text):
        words = [int(w.strip().rstrip("uU"), 0)
                 for w in m.group(2).split(",") if w.strip()]
        capabilities = []
        at = 5  # after the header: magic, version, generator, bound, schema
        while at < len(words):
            count, opcode = words[at] >> 16, words[at] & 0xFFFF
            if opcode == OP_CAPABILITY:
                capabilities.append(words[at + 1])
            if count == 0:
                break
            at += count
        print("%s SPIR-V 1.%d %s" % (
            m.group(1), (words[1] >> 8) & 0xFF,
            "CooperativeMatrixKHR" if COOPERATIVE_MATRIX_KHR in capabilities
            else "no-cooperative-matrix"))
