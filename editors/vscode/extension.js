// The gpuc extension: the grammars come from package.json; this starts
// `gpuc lsp` (from the setting gpuc.path, else gpuc on PATH) for
// diagnostics and hover.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate() {
  const command = vscode.workspace.getConfiguration("gpuc").get("path") || "gpuc";
  client = new LanguageClient("gpuc", "gpuc", { command, args: ["lsp"] }, {
    documentSelector: ["fork", "chr", "trs", "kir"].map((language) => ({ scheme: "file", language })),
  });
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
