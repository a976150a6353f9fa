// Compares the device binary that a generated CUDA stub embeds (the first
// `const unsigned char tlc_binary_NAME[] = { 0x.., ... };` of NAME.cpp) with
// a file, byte for byte: embedded-binary STUB.cpp FILE.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static std::string slurp(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  std::string stub = slurp(argv[1]), file = slurp(argv[2]);
  size_t begin = stub.find("const unsigned char tlc_binary_");
  if (begin == std::string::npos ||
      (begin = stub.find('{', begin)) == std::string::npos) {
    std::printf("no embedded binary\n");
    return 1;
  }
  size_t end = stub.find("};", begin);
  std::string embedded;
  for (size_t at = stub.find("0x", begin); at < end;
       at = stub.find("0x", at + 2))
    embedded.push_back(
        static_cast<char>(std::strtoul(stub.c_str() + at, nullptr, 16)));
  bool same = embedded == file;
  std::printf("embedded %zu bytes, file %zu bytes: %s\n", embedded.size(),
              file.size(), same ? "identical" : "different");
  return same ? 0 : 1;
}
