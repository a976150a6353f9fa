// Compares the device binary that a generated GPU stub embeds (the first
// `const char tlc_binary_NAME[] = "..." "...";` of NAME.cpp, printable
// characters as they are and the others as three-digit octal escapes) with
// a file, byte for byte: embedded-binary STUB.cpp FILE.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

static std::string slurp(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The bytes of the adjacent string literals from `at` to the `;` after
/// them; false on anything else.
static bool decode(const std::string &stub, size_t at, std::string &bytes) {
  auto skipSpace = [&] {
    while (at < stub.size() && (stub[at] == ' ' || stub[at] == '\n'))
      ++at;
  };
  skipSpace();
  while (at < stub.size() && stub[at] == '"') {
    for (++at; at < stub.size() && stub[at] != '"'; ++at) {
      if (stub[at] != '\\') {
        bytes.push_back(stub[at]);
        continue;
      }
      if (at + 3 >= stub.size())
        return false;
      int value = 0;
      for (int d = 1; d <= 3; ++d) {
        char c = stub[at + d];
        if (c < '0' || c > '7')
          return false;
        value = value * 8 + (c - '0');
      }
      bytes.push_back(static_cast<char>(value));
      at += 3;
    }
    ++at; // the closing quote
    skipSpace();
  }
  return at < stub.size() && stub[at] == ';';
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  std::string stub = slurp(argv[1]), file = slurp(argv[2]);
  size_t begin = stub.find("const char tlc_binary_");
  std::string embedded;
  if (begin == std::string::npos ||
      (begin = stub.find('=', begin)) == std::string::npos ||
      !decode(stub, begin + 1, embedded)) {
    std::printf("no embedded binary\n");
    return 1;
  }
  bool same = embedded == file;
  std::printf("embedded %zu bytes, file %zu bytes: %s\n", embedded.size(),
              file.size(), same ? "identical" : "different");
  return same ? 0 : 1;
}
