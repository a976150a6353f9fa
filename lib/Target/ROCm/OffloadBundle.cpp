//===- OffloadBundle.cpp - Code objects of several chips in one file ------===//
#include "OffloadBundle.h"

#include "llvm/Support/MathExtras.h"

#include <cstdint>

std::string tlc::writeOffloadBundle(
    const std::vector<std::pair<std::string, std::string>> &codeObjects) {
  struct Entry {
    std::string id;
    const std::string *bytes;
    uint64_t offset = 0;
  };
  static const std::string empty;
  std::vector<Entry> entries = {{"host-x86_64-unknown-linux-gnu", &empty}};
  for (const auto &[arch, bytes] : codeObjects)
    entries.push_back({"hipv4-amdgcn-amd-amdhsa--" + arch, &bytes});
  // Header: magic, count, then per entry offset, size, ID length and ID.
  uint64_t headerSize = 24 + 8;
  for (const Entry &e : entries)
    headerSize += 8 * 3 + e.id.size();
  uint64_t end = headerSize;
  for (Entry &e : entries) {
    if (e.bytes->empty()) {
      e.offset = end;
      continue;
    }
    e.offset = llvm::alignTo(end, 4096);
    end = e.offset + e.bytes->size();
  }
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  auto put64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xff)); // little endian
  };
  put64(entries.size());
  for (const Entry &e : entries) {
    put64(e.offset);
    put64(e.bytes->size());
    put64(e.id.size());
    out += e.id;
  }
  for (const Entry &e : entries) {
    if (e.bytes->empty())
      continue;
    out.resize(e.offset, '\0');
    out += *e.bytes;
  }
  return out;
}
