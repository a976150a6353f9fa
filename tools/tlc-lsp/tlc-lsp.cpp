//===- tlc-lsp.cpp - Language server for the tile language ----------------===//
//
// tlc-lsp speaks the Language Server Protocol over stdin/stdout (LLVM's LSP
// support library does the JSON-RPC): on every open or edit of a .tl file it
// parses and checks the text as tlc would (imports read from disk next to
// the file and from -I directories) and publishes the diagnostics; it
// answers hover (the type of a name: tensors and tiles with their shapes and
// scopes, scalars, parameters with their values; a kernel's signature), go
// to definition (a name's declaration, in imported files too), document
// symbols (kernels, tile fns, operations and their arguments) and
// completion (tile ops, builtins, dtypes, keywords). See docs/lsp.md.
//
//===----------------------------------------------------------------------===//
#include "tlc/Frontend/Diagnostics.h"
#include "tlc/Frontend/ProgramLoader.h"
#include "tlc/Frontend/Sema.h"
#include "tlc/Target/Target.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/LSP/Transport.h"
#include "llvm/Support/Program.h"

#include <map>
#include <memory>
#include <optional>

using namespace llvm::lsp;
using tlc::DiagnosticEngine;

namespace {

llvm::cl::list<std::string> includeDirs("I", llvm::cl::desc("Import path"),
                                        llvm::cl::value_desc("dir"),
                                        llvm::cl::Prefix);
llvm::cl::list<std::string>
    defineArgs("D", llvm::cl::desc("-D NAME=VALUE, as tlc"), llvm::cl::Prefix);
llvm::cl::opt<std::string>
    targetName("target",
               llvm::cl::desc("Target whose constants the checks use "
                              "(target_shared_bytes, target_warp_size, "
                              "target_warpgroup_mma, target_cluster_blocks, "
                              "target_max_cluster)"),
               llvm::cl::init("cuda"));
llvm::cl::opt<std::string>
    archName("arch",
             llvm::cl::desc("Target architecture for the checks on save"),
             llvm::cl::init(""));
llvm::cl::opt<std::string>
    tlcPath("tlc",
            llvm::cl::desc("The tlc that checks a saved file through the whole "
                           "pipeline (default: the tlc next to tlc-lsp)"),
            llvm::cl::init(""));
llvm::cl::opt<bool> litTest(
    "lit-test",
    llvm::cl::desc("Messages separated by '// -----' lines, for lit tests"));

/// textDocument/didSave (not in LLVM's protocol structs).
struct DidSaveParams {
  TextDocumentIdentifier textDocument;
};
bool fromJSON(const llvm::json::Value &value, DidSaveParams &result,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("textDocument", result.textDocument);
}

/// What tlc-lsp knows about one version of a document.
struct Analysis {
  std::vector<Diagnostic> diagnostics;
  std::vector<DocumentSymbol> symbols;
  struct Name {
    Range range;
    std::string hover;
    std::optional<Location> definition;
    std::string tileName{}; // a tile's declaration: its name
  };
  std::vector<Name> names; // every name use and declaration
};

/// A range of `mgr`'s buffers as an LSP range, and the URI of its file.
Range rangeOf(llvm::SourceMgr &mgr, llvm::SMRange r) {
  return Range(Position(mgr, r.Start), Position(mgr, r.End));
}
std::optional<Location> locationOf(llvm::SourceMgr &mgr, llvm::SMRange r) {
  if (!r.isValid())
    return std::nullopt;
  unsigned id = mgr.FindBufferContainingLoc(r.Start);
  if (!id)
    return std::nullopt;
  llvm::SmallString<256> path(mgr.getMemoryBuffer(id)->getBufferIdentifier());
  llvm::sys::fs::make_absolute(path);
  auto uri = URIForFile::fromFile(path);
  if (!uri) {
    llvm::consumeError(uri.takeError());
    return std::nullopt;
  }
  return Location{*uri, rangeOf(mgr, r)};
}

std::string describeSymbol(const tlc::Symbol &s) {
  std::string kind;
  switch (s.kind) {
  case tlc::SymbolKind::Arg: // an operation's scratch tensors count down
    kind = s.index < 0 ? "scratch" : "argument";
    break;
  case tlc::SymbolKind::Var:
    kind = "var";
    break;
  case tlc::SymbolKind::Let:
    kind = s.viewOf ? "view of " + s.viewOf->name : "let";
    break;
  default:
    kind = "";
  }
  std::string text = "`" + s.name + ": " + s.type.str() + "`";
  if (s.constValue && s.constValue->kind == tlc::ConstValue::Int)
    text += " = " + std::to_string(s.constValue->i);
  if (!kind.empty())
    text += " (" + kind + ")";
  return text;
}

/// Collects hover texts and definitions from a checked AST.
class NameCollector {
public:
  NameCollector(llvm::SourceMgr &mgr, unsigned mainBuffer, Analysis &out)
      : mgr(mgr), mainBuffer(mainBuffer), out(out) {}

  void declaration(llvm::SMRange range, const tlc::Symbol *s) {
    if (s)
      add(range, describeSymbol(*s), s->range);
  }
  void add(llvm::SMRange range, std::string hover, llvm::SMRange def) {
    if (!range.isValid() ||
        mgr.FindBufferContainingLoc(range.Start) != mainBuffer)
      return;
    out.names.push_back(
        {rangeOf(mgr, range), std::move(hover), locationOf(mgr, def)});
  }

  void expr(const tlc::Expr *e) {
    using tlc::ExprKind;
    if (!e)
      return;
    switch (e->kind) {
    case ExprKind::Name: {
      auto *n = static_cast<const tlc::NameExpr *>(e);
      if (n->symbol)
        add(n->range, describeSymbol(*n->symbol), n->symbol->range);
      return;
    }
    case ExprKind::Unary:
      return expr(static_cast<const tlc::UnaryExpr *>(e)->operand.get());
    case ExprKind::Binary: {
      auto *b = static_cast<const tlc::BinaryExpr *>(e);
      expr(b->lhs.get());
      return expr(b->rhs.get());
    }
    case ExprKind::Ternary: {
      auto *t = static_cast<const tlc::TernaryExpr *>(e);
      expr(t->cond.get());
      expr(t->trueValue.get());
      return expr(t->falseValue.get());
    }
    case ExprKind::Call: {
      auto *c = static_cast<const tlc::CallExpr *>(e);
      if (c->resolvedFn)
        add(c->calleeRange, "tile fn `" + c->callee + "`",
            c->resolvedFn->nameRange);
      for (const tlc::ExprPtr &a : c->args)
        expr(a.get());
      for (const tlc::KeywordArg &k : c->kwargs)
        expr(k.value.get());
      return;
    }
    case ExprKind::Index: {
      auto *i = static_cast<const tlc::IndexExpr *>(e);
      expr(i->base.get());
      for (const tlc::ExprPtr &x : i->indices)
        expr(x.get());
      return;
    }
    case ExprKind::Slice: {
      auto *s = static_cast<const tlc::SliceExpr *>(e);
      expr(s->lo.get());
      expr(s->hi.get());
      return expr(s->step.get());
    }
    default:
      return;
    }
  }

  /// An operation's steps: scratch tensors, launches (the callee's name
  /// leads to the kernel, `kernels` by name) and `if` conditions.
  void steps(const std::vector<tlc::OperationStep> &list,
             const llvm::StringMap<llvm::SMRange> &kernels) {
    for (const tlc::OperationStep &step : list) {
      if (step.scratch)
        declaration(step.scratch->range, step.scratch->symbol);
      if (const tlc::CallExpr *call = step.launch.get()) {
        auto kernel = kernels.find(call->callee);
        if (kernel != kernels.end())
          add(call->calleeRange, "kernel `" + call->callee + "` (launched)",
              kernel->second);
        for (const tlc::ExprPtr &a : call->args)
          expr(a.get());
      }
      if (const tlc::OperationIf *branch = step.branch.get()) {
        expr(branch->cond.get());
        steps(branch->thenSteps, kernels);
        steps(branch->elseSteps, kernels);
      }
    }
  }

  void stmt(const tlc::Stmt *s) {
    using tlc::StmtKind;
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Block:
      for (const tlc::StmtPtr &c :
           static_cast<const tlc::BlockStmt *>(s)->stmts)
        stmt(c.get());
      return;
    case StmtKind::Alloc: {
      auto *a = static_cast<const tlc::AllocStmt *>(s);
      size_t before = out.names.size();
      declaration(a->nameRange, a->symbol);
      if (out.names.size() > before)
        out.names.back().tileName = a->name;
      return;
    }
    case StmtKind::Let: {
      auto *l = static_cast<const tlc::LetStmt *>(s);
      declaration(l->nameRange, l->symbol);
      return expr(l->init.get());
    }
    case StmtKind::Assign: {
      auto *a = static_cast<const tlc::AssignStmt *>(s);
      expr(a->target.get());
      return expr(a->value.get());
    }
    case StmtKind::Expr:
      return expr(static_cast<const tlc::ExprStmt *>(s)->expr.get());
    case StmtKind::For: {
      auto *f = static_cast<const tlc::ForStmt *>(s);
      declaration(f->varRange, f->symbol);
      for (const tlc::ExprPtr &a : f->args)
        expr(a.get());
      return stmt(f->body.get());
    }
    case StmtKind::Parallel: {
      auto *p = static_cast<const tlc::ParallelStmt *>(s);
      for (size_t i = 0; i < p->varRanges.size() && i < p->symbols.size(); ++i)
        declaration(p->varRanges[i], p->symbols[i]);
      expr(p->domainTile.get());
      for (const tlc::ExprPtr &d : p->domainShape)
        expr(d.get());
      return stmt(p->body.get());
    }
    case StmtKind::If: {
      auto *i = static_cast<const tlc::IfStmt *>(s);
      expr(i->cond.get());
      stmt(i->thenBody.get());
      return stmt(i->elseBody.get());
    }
    case StmtKind::Return:
      return expr(static_cast<const tlc::ReturnStmt *>(s)->value.get());
    }
  }

private:
  llvm::SourceMgr &mgr;
  unsigned mainBuffer;
  Analysis &out;
};

std::string signatureText(llvm::StringRef keyword, llvm::StringRef name,
                          const std::vector<tlc::ArgDecl> &args) {
  std::string s = keyword.str() + " " + name.str() + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    const tlc::ArgDecl &a = args[i];
    s += i ? ", " : "";
    if (a.qualifier == tlc::ArgQualifier::Out)
      s += "out ";
    else if (a.qualifier == tlc::ArgQualifier::InOut)
      s += "inout ";
    s += a.name + ": " + (a.symbol ? a.symbol->type.str() : std::string("?"));
  }
  return s + ")";
}

/// Parses and checks `text` (the file at `path`) as tlc would.
Analysis analyze(const std::string &path, llvm::StringRef text,
                 const std::map<std::string, std::string> &defines,
                 const std::map<std::string, int64_t> &constants) {
  Analysis out;
  llvm::SourceMgr srcMgr;
  DiagnosticEngine diags(srcMgr);
  diags.setErrorLimit(0);
  auto handler = [](const llvm::SMDiagnostic &d, void *context) {
    auto *result = static_cast<std::pair<Analysis *, std::string> *>(context);
    Diagnostic diag;
    diag.source = "tlc";
    diag.message = d.getMessage().str();
    diag.severity = d.getKind() == llvm::SourceMgr::DK_Error
                        ? DiagnosticSeverity::Error
                    : d.getKind() == llvm::SourceMgr::DK_Warning
                        ? DiagnosticSeverity::Warning
                        : DiagnosticSeverity::Information;
    int line = std::max(d.getLineNo() - 1, 0);
    int column = std::max(d.getColumnNo(), 0);
    int end = column + 1;
    for (const auto &r : d.getRanges())
      end = std::max<int>(end, r.second);
    diag.range = Range(Position(line, column), Position(line, end));
    if (d.getFilename() != result->second) {
      // In an imported file: shown at the top of this one.
      diag.message = d.getFilename().str() + ":" +
                     std::to_string(d.getLineNo()) + ": " + diag.message;
      diag.range = Range(Position(0, 0), Position(0, 1));
    }
    result->first->diagnostics.push_back(std::move(diag));
  };
  std::pair<Analysis *, std::string> context{&out, path};
  diags.displaySourceMgr().setDiagHandler(handler, &context);

  tlc::Program program;
  tlc::ProgramLoader loader(
      diags, srcMgr,
      std::vector<std::string>(includeDirs.begin(), includeDirs.end()));
  loader.loadText(text, path, program);
  if (program.modules.empty())
    return out;
  // Sema owns the symbols the names point to: it lives until they are
  // collected.
  std::optional<tlc::Sema> sema;
  if (!diags.hasErrors()) {
    sema.emplace(diags, defines, constants);
    sema->check(program);
  }

  // Symbols and names of the main file.
  unsigned mainBuffer = program.modules[0]->bufferId;
  NameCollector names(srcMgr, mainBuffer, out);
  llvm::StringMap<llvm::SMRange> kernels;
  for (const tlc::DeclPtr &decl : program.modules[0]->decls)
    if (decl->kind == tlc::DeclKind::Kernel) {
      auto *k = static_cast<const tlc::KernelDecl *>(decl.get());
      kernels[k->name] = k->nameRange;
    }
  for (const tlc::DeclPtr &decl : program.modules[0]->decls) {
    const std::vector<tlc::ArgDecl> *args = nullptr;
    std::string name, detail;
    llvm::SMRange nameRange;
    SymbolKind kind = SymbolKind::Function;
    const tlc::BlockStmt *body = nullptr;
    const std::vector<tlc::OperationStep> *operationSteps = nullptr;
    switch (decl->kind) {
    case tlc::DeclKind::Kernel: {
      auto *k = static_cast<const tlc::KernelDecl *>(decl.get());
      args = &k->args, name = k->name, nameRange = k->nameRange;
      detail = signatureText("kernel", k->name, k->args);
      body = k->body.get();
      break;
    }
    case tlc::DeclKind::Fn: {
      auto *f = static_cast<const tlc::FnDecl *>(decl.get());
      args = &f->args, name = f->name, nameRange = f->nameRange;
      detail = "tile fn " + f->name;
      body = f->body.get();
      break;
    }
    case tlc::DeclKind::Operation: {
      auto *o = static_cast<const tlc::OperationDecl *>(decl.get());
      args = &o->args, name = o->name, nameRange = o->nameRange;
      detail = signatureText("operation", o->name, o->args);
      kind = SymbolKind::Module;
      operationSteps = &o->steps;
      break;
    }
    case tlc::DeclKind::Import:
      continue;
    }
    DocumentSymbol symbol(name, kind, rangeOf(srcMgr, decl->range),
                          rangeOf(srcMgr, nameRange));
    symbol.detail = detail;
    names.add(nameRange, "`" + detail + "`", nameRange);
    for (const tlc::ArgDecl &a : *args) {
      DocumentSymbol arg(a.name, SymbolKind::Variable, rangeOf(srcMgr, a.range),
                         rangeOf(srcMgr, a.range));
      if (a.symbol)
        arg.detail = a.symbol->type.str();
      symbol.children.push_back(std::move(arg));
      names.declaration(a.range, a.symbol);
    }
    names.stmt(body);
    if (operationSteps)
      names.steps(*operationSteps, kernels);
    out.symbols.push_back(std::move(symbol));
  }
  return out;
}

bool contains(const Range &r, const Position &p) {
  return !(p < r.start) && (p < r.end || p == r.end);
}

class Server {
public:
  Server(MessageHandler &handler, std::string tlc) : tlc(std::move(tlc)) {
    handler.method("initialize", this, &Server::onInitialize);
    handler.notification("initialized", this, &Server::onInitialized);
    handler.method("shutdown", this, &Server::onShutdown);
    handler.notification("textDocument/didOpen", this, &Server::onOpen);
    handler.notification("textDocument/didChange", this, &Server::onChange);
    handler.notification("textDocument/didClose", this, &Server::onClose);
    handler.notification("textDocument/didSave", this, &Server::onSave);
    handler.method("textDocument/documentSymbol", this, &Server::onSymbols);
    handler.method("textDocument/hover", this, &Server::onHover);
    handler.method("textDocument/definition", this, &Server::onDefinition);
    handler.method("textDocument/completion", this, &Server::onCompletion);
    publish = handler.outgoingNotification<PublishDiagnosticsParams>(
        "textDocument/publishDiagnostics");
    for (const std::string &d : defineArgs) {
      auto [name, value] = llvm::StringRef(d).split('=');
      defines[name.trim().str()] = value.trim().str();
    }
    std::string known;
    if (std::unique_ptr<tlc::Target> target =
            tlc::createTarget(targetName, known)) {
      constants = tlc::builtinConstants(target->languageConstants());
    }
  }

private:
  struct Document {
    std::string text;
    int64_t version = 0;
    Analysis analysis;
  };
  OutgoingNotification<PublishDiagnosticsParams> publish;
  std::map<std::string, Document> documents; // by file path
  std::map<std::string, std::string> defines;
  std::map<std::string, int64_t> constants;
  std::string tlc; // the compiler that checks saved files

  void onInitialize(const InitializeParams &,
                    Callback<llvm::json::Value> reply) {
    llvm::json::Object capabilities{
        {"textDocumentSync",
         llvm::json::Object{{"openClose", true},
                            {"change", (int)TextDocumentSyncKind::Full},
                            {"save", true}}},
        {"hoverProvider", true},
        {"definitionProvider", true},
        {"documentSymbolProvider", true},
        {"completionProvider",
         llvm::json::Object{{"triggerCharacters", llvm::json::Array{}}}}};
    reply(llvm::json::Object{
        {"capabilities", std::move(capabilities)},
        {"serverInfo", llvm::json::Object{{"name", "tlc-lsp"}}}});
  }
  void onInitialized(const InitializedParams &) {}
  void onShutdown(const NoParams &, Callback<std::nullptr_t> reply) {
    reply(nullptr);
  }

  void update(const URIForFile &uri, std::string text, int64_t version) {
    Document &doc = documents[uri.file().str()];
    doc.text = std::move(text);
    doc.version = version;
    doc.analysis = analyze(uri.file().str(), doc.text, defines, constants);
    PublishDiagnosticsParams params(uri, version);
    params.diagnostics = doc.analysis.diagnostics;
    publish(params);
  }
  void onOpen(const DidOpenTextDocumentParams &p) {
    update(p.textDocument.uri, p.textDocument.text, p.textDocument.version);
  }
  void onChange(const DidChangeTextDocumentParams &p) {
    auto it = documents.find(p.textDocument.uri.file().str());
    std::string text = it == documents.end() ? "" : it->second.text;
    if (failed(TextDocumentContentChangeEvent::applyTo(p.contentChanges, text)))
      return;
    update(p.textDocument.uri, std::move(text), p.textDocument.version);
  }
  /// On save, the whole pipeline: tlc compiles the saved file for the
  /// target (to assembly: no toolkit needed) with --remarks and
  /// --report-json; its errors, warnings and remarks join the diagnostics,
  /// and the report's facts about each tile (bytes, buffers, swizzle,
  /// fragment layout) join the hover of its declaration.
  void onSave(const DidSaveParams &p) {
    std::string path = p.textDocument.uri.file().str();
    auto it = documents.find(path);
    if (it == documents.end())
      return;
    Document &doc = it->second;
    llvm::SmallString<128> report, output, errors;
    llvm::sys::fs::createTemporaryFile("tlc-lsp", "json", report);
    llvm::sys::fs::createTemporaryFile("tlc-lsp", "s", output);
    llvm::sys::fs::createTemporaryFile("tlc-lsp", "log", errors);
    std::vector<std::string> args = {tlc,
                                     path,
                                     "-target=" + targetName,
                                     "--remarks",
                                     "--report-json=" + report.str().str(),
                                     "-emit=asm",
                                     "-o",
                                     output.str().str()};
    if (!archName.empty())
      args.push_back("-arch=" + archName);
    for (const std::string &dir : includeDirs)
      args.push_back("-I" + dir);
    for (const std::string &d : defineArgs)
      args.push_back("-D" + d);
    llvm::SmallVector<llvm::StringRef> argv(args.begin(), args.end());
    std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                  output.str(), errors.str()};
    int rc = llvm::sys::ExecuteAndWait(tlc, argv, std::nullopt, redirects);
    std::vector<Diagnostic> diagnostics = doc.analysis.diagnostics;
    if (auto log = llvm::MemoryBuffer::getFile(errors))
      addPipelineDiagnostics((*log)->getBuffer(), path, diagnostics);
    if (rc < 0) {
      Diagnostic d;
      d.source = "tlc";
      d.severity = DiagnosticSeverity::Warning;
      d.message = "tlc-lsp could not run " + tlc + " to check the saved file";
      diagnostics.push_back(std::move(d));
    }
    if (auto json = llvm::MemoryBuffer::getFile(report))
      addTileFacts((*json)->getBuffer(), doc.analysis);
    for (llvm::StringRef f : {report.str(), output.str(), errors.str()})
      llvm::sys::fs::remove(f);
    PublishDiagnosticsParams params(p.textDocument.uri, doc.version);
    params.diagnostics = std::move(diagnostics);
    publish(params);
  }

  /// tlc's `file:line:col: kind: message` lines about `path`, except those
  /// the checks on open already gave.
  static void addPipelineDiagnostics(llvm::StringRef log,
                                     const std::string &path,
                                     std::vector<Diagnostic> &out) {
    llvm::SmallVector<llvm::StringRef> lines;
    log.split(lines, '\n');
    for (llvm::StringRef line : lines) {
      if (!line.consume_front(path) || !line.consume_front(":"))
        continue;
      unsigned lineNo = 0, col = 0;
      auto [lineText, rest] = line.split(':');
      auto [colText, rest2] = rest.split(':');
      if (lineText.getAsInteger(10, lineNo) || colText.getAsInteger(10, col) ||
          !lineNo)
        continue;
      llvm::StringRef body = rest2.trim();
      Diagnostic d;
      d.source = "tlc";
      if (body.consume_front("error: "))
        d.severity = DiagnosticSeverity::Error;
      else if (body.consume_front("warning: "))
        d.severity = DiagnosticSeverity::Warning;
      else if (body.consume_front("remark: "))
        d.severity = DiagnosticSeverity::Information;
      else
        continue;
      d.message = body.str();
      Position start(lineNo - 1, col ? col - 1 : 0);
      d.range = Range(start, Position(start.line, start.character + 1));
      if (llvm::none_of(out, [&](const Diagnostic &o) {
            return o.message == d.message && o.range.start == start;
          }))
        out.push_back(std::move(d));
    }
  }

  /// Appends the report's facts about each tile to the hover of its
  /// declaration (matched by line and name).
  static void addTileFacts(llvm::StringRef text, Analysis &analysis) {
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
    if (!json) {
      llvm::consumeError(json.takeError());
      return;
    }
    const llvm::json::Array *kernels =
        json->getAsObject() ? json->getAsObject()->getArray("kernels")
                            : nullptr;
    if (!kernels)
      return;
    for (const llvm::json::Value &k : *kernels) {
      const llvm::json::Object *kernel = k.getAsObject();
      const llvm::json::Array *tiles =
          kernel ? kernel->getArray("tiles") : nullptr;
      if (!tiles)
        continue;
      for (const llvm::json::Value &t : *tiles) {
        const llvm::json::Object *tile = t.getAsObject();
        if (!tile)
          continue;
        std::string name = tile->getString("name").value_or("").str();
        llvm::StringRef where = tile->getString("location").value_or("");
        unsigned line = 0;
        where.rsplit(':').first.rsplit(':').second.getAsInteger(10, line);
        std::string facts =
            "\n\n" + std::to_string(tile->getInteger("bytes").value_or(0)) +
            " bytes";
        if (int64_t b = tile->getInteger("buffers").value_or(1); b > 1)
          facts += " x " + std::to_string(b) + " buffers";
        if (int64_t sw = tile->getInteger("swizzle").value_or(0))
          facts += ", swizzle " + std::to_string(sw);
        llvm::StringRef layout = tile->getString("layout").value_or("");
        if (!layout.empty())
          facts += "\n\nlayout `" + layout.str() + "`";
        llvm::StringRef demoted = tile->getString("demoted").value_or("");
        if (!demoted.empty())
          facts += "\n\nmoved to shared memory: " + demoted.str();
        for (Analysis::Name &n : analysis.names)
          if (n.tileName == name && n.range.start.line + 1 == (int)line &&
              !llvm::StringRef(n.hover).contains("bytes"))
            n.hover += facts;
      }
    }
  }

  void onClose(const DidCloseTextDocumentParams &p) {
    documents.erase(p.textDocument.uri.file().str());
    publish(PublishDiagnosticsParams(p.textDocument.uri, 0));
  }

  const Analysis::Name *nameAt(const TextDocumentPositionParams &p) {
    auto it = documents.find(p.textDocument.uri.file().str());
    if (it == documents.end())
      return nullptr;
    const Analysis::Name *best = nullptr;
    for (const Analysis::Name &n : it->second.analysis.names)
      if (contains(n.range, p.position) &&
          (!best || best->range.start < n.range.start))
        best = &n;
    return best;
  }

  void onSymbols(const DocumentSymbolParams &p,
                 Callback<std::vector<DocumentSymbol>> reply) {
    auto it = documents.find(p.textDocument.uri.file().str());
    std::vector<DocumentSymbol> out;
    if (it != documents.end())
      for (const DocumentSymbol &s : it->second.analysis.symbols)
        out.push_back(copy(s));
    reply(std::move(out));
  }
  static DocumentSymbol copy(const DocumentSymbol &s) {
    DocumentSymbol c(s.name, s.kind, s.range, s.selectionRange);
    c.detail = s.detail;
    for (const DocumentSymbol &child : s.children)
      c.children.push_back(copy(child));
    return c;
  }

  void onHover(const TextDocumentPositionParams &p,
               Callback<std::optional<Hover>> reply) {
    const Analysis::Name *n = nameAt(p);
    if (!n)
      return reply(std::nullopt);
    Hover hover(n->range);
    hover.contents.value = n->hover;
    reply(std::move(hover));
  }

  void onDefinition(const TextDocumentPositionParams &p,
                    Callback<std::vector<Location>> reply) {
    const Analysis::Name *n = nameAt(p);
    std::vector<Location> out;
    if (n && n->definition)
      out.push_back(*n->definition);
    reply(std::move(out));
  }

  void onCompletion(const CompletionParams &, Callback<CompletionList> reply) {
    static const char *const tileOps[] = {"copy",
                                          "fill",
                                          "gemm",
                                          "reduce_sum",
                                          "reduce_max",
                                          "reduce_min",
                                          "reduce_absmax",
                                          "cluster_reduce_sum",
                                          "cluster_reduce_max",
                                          "cluster_reduce_min",
                                          "atomic_add",
                                          "atomic_max",
                                          "atomic_min",
                                          "view"};
    static const char *const builtins[] = {
        "exp", "exp2", "log", "log2",  "sqrt",   "rsqrt",   "tanh",
        "erf", "sin",  "cos", "floor", "ceil",   "sigmoid", "abs",
        "min", "max",  "pow", "cdiv",  "sizeof", "inf",     "pi"};
    static const char *const keywords[] = {
        "kernel",   "tile",      "fn",       "operation", "import", "shared",
        "fragment", "local",     "let",      "var",       "for",    "in",
        "range",    "pipelined", "parallel", "if",        "else",   "return",
        "grid",     "as",        "threads",  "cluster",   "out",    "inout",
        "tune",     "where",     "scratch",  "dtype"};
    static const char *const dtypes[] = {
        "f64", "f32", "f16",  "bf16",   "i64",    "i32", "i16",
        "i8",  "u8",  "bool", "f8e4m3", "f8e5m2", "u4",  "i4"};
    CompletionList list;
    auto add = [&](const char *label, CompletionItemKind kind,
                   const char *detail) {
      CompletionItem item;
      item.label = label;
      item.kind = kind;
      item.detail = detail;
      list.items.push_back(std::move(item));
    };
    for (const char *op : tileOps)
      add(op, CompletionItemKind::Function, "tile op");
    for (const char *b : builtins)
      add(b, CompletionItemKind::Function, "builtin");
    for (const char *k : keywords)
      add(k, CompletionItemKind::Keyword, "keyword");
    for (const char *d : dtypes)
      add(d, CompletionItemKind::TypeParameter, "dtype");
    reply(std::move(list));
  }
};

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "tlc-lsp: language server for the tile language\n");
  JSONTransport transport(stdin, llvm::outs(),
                          litTest ? JSONStreamStyle::Delimited
                                  : JSONStreamStyle::Standard,
                          /*prettyOutput=*/litTest);
  MessageHandler handler(transport);
  std::string tlc = tlcPath;
  if (tlc.empty()) {
    // The tlc installed (or built) next to this server, else PATH's.
    static int anchor;
    llvm::SmallString<256> self(
        llvm::sys::fs::getMainExecutable(argv[0], &anchor));
    llvm::sys::path::remove_filename(self);
    llvm::sys::path::append(self, "tlc");
    if (llvm::sys::fs::can_execute(self))
      tlc = self.str().str();
    else if (auto found = llvm::sys::findProgramByName("tlc"))
      tlc = *found;
  }
  Server server(handler, tlc);
  if (llvm::Error err = transport.run(handler)) {
    Logger::error("tlc-lsp: {0}", llvm::toString(std::move(err)));
    return 1;
  }
  return 0;
}
