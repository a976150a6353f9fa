"""example_session.py DIR: an LSP session (for tlc-lsp -lit-test) on
DIR/elementwise.tl, a copy of examples/elementwise.tl next to its
lib/activations.tl: open it with an error introduced (an undeclared name in
the parallel body), fix it, save, hover over the fragment x (its layout,
known after the save check), go to the definition of gelu (in the imported
lib/activations.tl), shut down."""
import json
import sys

d = sys.argv[1]
uri = "file://" + d + "/elementwise.tl"
text = open(d + "/elementwise.tl").read()
broken = text.replace("gelu(x[i, j] + b[j])", "gelu(x[i, j] + b[j] + zz)")
assert broken != text
lines = text.split("\n")
row = next(i for i, l in enumerate(lines) if "gelu(x[i, j] + b[j])" in l)
x_decl = next(i for i, l in enumerate(lines) if "fragment x:" in l)
msgs = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"processId": 1, "rootUri": "file://" + d, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen",
     "params": {"textDocument": {"uri": uri, "languageId": "tl",
                                 "version": 1, "text": broken}}},
    {"jsonrpc": "2.0", "method": "textDocument/didChange",
     "params": {"textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"text": text}]}},
    {"jsonrpc": "2.0", "method": "textDocument/didSave",
     "params": {"textDocument": {"uri": uri}}},
    {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
     "params": {"textDocument": {"uri": uri},
                "position": {"line": x_decl,
                             "character": lines[x_decl].index("x:")}}},
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/definition",
     "params": {"textDocument": {"uri": uri},
                "position": {"line": row,
                             "character": lines[row].index("gelu") + 1}}},
    {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
print("# error at line %d, column %d" % (row, lines[row].index("gelu") + 24),
      file=sys.stderr)
print("\n// -----\n".join(json.dumps(m) for m in msgs))
