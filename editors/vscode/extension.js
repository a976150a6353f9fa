// The VS Code side of tlc-lsp: starts the server for .tl files with the
// arguments of the workspace settings (tlc.serverPath, tlc.arguments).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("tlc");
  const server = {
    command: config.get("serverPath", "tlc-lsp"),
    args: config.get("arguments", []),
  };
  client = new LanguageClient(
    "tlc-lsp", "Tile language (tlc-lsp)",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "tilelang" }] });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
