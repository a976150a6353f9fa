//===- TuningDatabase.cpp - Reading tuning databases ----------------------===//
#include "tlc/Tune/TuningDatabase.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace tlc;
using namespace tlc::tune;
using llvm::StringRef;
namespace json = llvm::json;

namespace {

/// Checks the content of a parsed file; the first problem wins.
class DatabaseReader {
public:
  explicit DatabaseReader(StringRef fileName) : fileName(fileName) {}

  llvm::Expected<TuningDatabase> read(const json::Value &root) {
    TuningDatabase db;
    const json::Object *top = root.getAsObject();
    if (!top)
      return fail("", "expected an object with \"format\" and \"entries\"");
    for (const auto &[key, value] : *top)
      if (key != "format" && key != "entries")
        return fail(key.str(), "unknown key (expected \"format\" and "
                               "\"entries\")");
    std::optional<StringRef> format = top->getString("format");
    if (!format)
      return fail("format", std::string("missing or not a string; this tlc "
                                        "reads \"") +
                                kDatabaseFormat + "\"");
    if (*format != kDatabaseFormat)
      return fail("format", "\"" + format->str() +
                                "\" is not a format this "
                                "tlc reads (\"" +
                                kDatabaseFormat + "\")");
    const json::Array *entries = top->getArray("entries");
    if (!entries)
      return fail("entries", "missing or not an array");
    for (size_t i = 0; i < entries->size(); ++i) {
      TuningEntry entry;
      std::string path = "entries[" + std::to_string(i) + "]";
      entry.origin = fileName.str() + ": " + path;
      if (!readEntry((*entries)[i], path, entry))
        return std::move(*error);
      db.entries.push_back(std::move(entry));
    }
    return db;
  }

private:
  StringRef fileName;
  std::optional<llvm::Error> error;

  llvm::Error fail(const std::string &path, const std::string &message) {
    return llvm::createStringError(fileName.str() + ": " +
                                   (path.empty() ? "" : path + ": ") + message);
  }
  bool failEntry(const std::string &path, const std::string &message) {
    error.emplace(fail(path, message));
    return false;
  }

  bool readName(const json::Object &o, StringRef key, const std::string &path,
                std::string &out) {
    std::optional<StringRef> s = o.getString(key);
    if (!s || s->empty())
      return failEntry(path + "." + key.str(),
                       "missing or not a non-empty string");
    out = s->str();
    return true;
  }

  bool readTime(const json::Object &o, StringRef key, const std::string &path,
                double &out) {
    const json::Value *v = o.get(key);
    if (!v)
      return true;
    std::optional<double> d = v->getAsNumber();
    if (!d || !std::isfinite(*d) || *d < 0)
      return failEntry(path + "." + key.str(),
                       "expected a time in microseconds (a number >= 0)");
    out = *d;
    return true;
  }

  /// A value as -D spells it; strings (dtype names) where allowed.
  static bool valueText(const json::Value &v, std::string &text,
                        bool allowString) {
    if (std::optional<bool> b = v.getAsBoolean())
      text = *b ? "true" : "false";
    else if (std::optional<int64_t> i = v.getAsInteger())
      text = std::to_string(*i);
    else if (std::optional<double> d = v.getAsNumber())
      text = llvm::formatv("{0}", *d).str();
    else if (std::optional<StringRef> s = v.getAsString();
             s && allowString && !s->empty())
      text = s->str();
    else
      return false;
    return true;
  }

  /// The members of `o` as -D-style values ("for", "params").
  bool readValues(const json::Object &o, const std::string &path,
                  bool allowString,
                  std::vector<std::pair<std::string, std::string>> &out) {
    for (const auto &[name, v] : o) {
      std::string text;
      if (!valueText(v, text, allowString))
        return failEntry(path + "." + name.str(),
                         allowString
                             ? "expected a dtype name, a number or a bool"
                             : "expected a number or a bool");
      out.push_back({name.str(), text});
    }
    return true;
  }

  bool readEntry(const json::Value &value, const std::string &path,
                 TuningEntry &entry) {
    const json::Object *o = value.getAsObject();
    if (!o)
      return failEntry(path, "expected an object");
    static const char *known[] = {"kernel",  "target",          "arch",
                                  "for",     "shape",           "params",
                                  "time_us", "default_time_us", "candidates"};
    for (const auto &[key, v] : *o)
      if (!llvm::is_contained(known, StringRef(key)))
        return failEntry(path + "." + key.str(), "unknown key");
    if (!readName(*o, "kernel", path, entry.kernel) ||
        !readName(*o, "target", path, entry.target) ||
        !readName(*o, "arch", path, entry.arch))
      return false;
    const json::Object *shape = o->getObject("shape");
    if (!shape)
      return failEntry(path + ".shape",
                       "missing or not an object of dimensions, e.g. "
                       "{\"M\": 4096}");
    for (const auto &[name, v] : *shape) {
      std::optional<int64_t> size = v.getAsInteger();
      if (!size || *size <= 0)
        return failEntry(path + ".shape." + name.str(),
                         "a dimension needs a positive integer");
      entry.shape.push_back({name.str(), *size});
    }
    if (const json::Value *when = o->get("for")) {
      const json::Object *w = when->getAsObject();
      if (!w)
        return failEntry(path + ".for",
                         "expected an object of parameter values, e.g. "
                         "{\"T\": \"bf16\"}");
      if (!readValues(*w, path + ".for", /*allowString=*/true, entry.when))
        return false;
    }
    const json::Object *params = o->getObject("params");
    if (!params)
      return failEntry(path + ".params",
                       "missing or not an object of parameter values, e.g. "
                       "{\"BM\": 64}");
    if (!readValues(*params, path + ".params", /*allowString=*/false,
                    entry.params))
      return false;
    if (!readTime(*o, "time_us", path, entry.timeUs) ||
        !readTime(*o, "default_time_us", path, entry.defaultTimeUs))
      return false;
    if (const json::Value *c = o->get("candidates")) {
      std::optional<int64_t> n = c->getAsInteger();
      if (!n || *n < 0)
        return failEntry(path + ".candidates", "expected a count (>= 0)");
      entry.candidates = *n;
    }
    return true;
  }
};

} // namespace

llvm::Expected<TuningDatabase>
tlc::tune::parseTuningDatabase(StringRef text, StringRef fileName) {
  llvm::Expected<json::Value> root = json::parse(text);
  if (!root) {
    // LLVM says "[LINE:COL, byte=N]: MESSAGE"; say it like a compiler.
    std::string message = llvm::toString(root.takeError());
    llvm::SmallVector<StringRef, 4> parts;
    llvm::Regex located("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$");
    if (located.match(message, &parts))
      return llvm::createStringError(fileName.str() + ":" + parts[1].str() +
                                     ":" + parts[2].str() + ": " +
                                     parts[3].str());
    return llvm::createStringError(fileName.str() + ": " + message);
  }
  return DatabaseReader(fileName).read(*root);
}

llvm::Expected<TuningDatabase> tlc::tune::readTuningDatabase(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return llvm::createStringError("cannot open '" + path.str() +
                                   "': " + buf.getError().message());
  return parseTuningDatabase((*buf)->getBuffer(), path);
}

llvm::Expected<std::map<std::string, KernelVariants>>
tlc::tune::variantsFor(const TuningDatabase &db, StringRef target,
                       StringRef arch) {
  std::map<std::string, KernelVariants> kernels;
  std::map<std::string, std::string> seenShapes; // kernel + shape -> origin
  for (const TuningEntry &entry : db.entries) {
    if (entry.target != target || entry.arch != arch)
      continue;
    std::string key = entry.kernel;
    auto sortedShape = entry.shape;
    llvm::sort(sortedShape);
    for (const auto &[name, size] : sortedShape)
      key += " " + name + "=" + std::to_string(size);
    auto [previous, inserted] = seenShapes.try_emplace(key, entry.origin);
    if (!inserted)
      return llvm::createStringError(
          entry.origin + ": a second entry for kernel '" + entry.kernel +
          "' at the same shape on " + target.str() + " " + arch.str() +
          " (the first is " + previous->second + ")");
    KernelVariants &k = kernels[entry.kernel];
    auto params = entry.params;
    llvm::sort(params);
    auto found = llvm::find(k.variants, params);
    unsigned variant = found - k.variants.begin();
    if (found == k.variants.end())
      k.variants.push_back(params);
    k.buckets.push_back({entry.shape, variant, entry.origin});
    StringRef file = StringRef(entry.origin).split(": ").first;
    llvm::SmallVector<StringRef, 4> files;
    StringRef(k.origin).split(files, ", ", -1, /*KeepEmpty=*/false);
    if (!llvm::is_contained(files, file))
      k.origin += (k.origin.empty() ? "" : ", ") + file.str();
  }
  return kernels;
}
