// A helper of the end-to-end test (../e2e.js), installed beside the extension in code-server: its command
// reads the JSON list of files in $HLO_E2E_PROBE, opens each with workspace.openTextDocument (VS Code gives
// it a language as it does for an editor) and writes {file: languageId} to $HLO_E2E_PROBE.out. Another copies
// the file $HLO_E2E_PROBE.copy names ({"from", "to"}) through VS Code's file service, which tells VS Code's file
// watchers (and so the language server) of the new file, whatever the OS's own watcher reports.
"use strict";
const fs = require("fs");
const vscode = require("vscode");

exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand("hloE2e.languageOfEachFile", async () => {
    const probe = process.env.HLO_E2E_PROBE;
    const languages = {};
    for (const file of JSON.parse(fs.readFileSync(probe, "utf8"))) {
      try {
        languages[file] = (await vscode.workspace.openTextDocument(vscode.Uri.file(file))).languageId;
      } catch (error) {
        languages[file] = `(not opened: ${error.message.split("\n")[0]})`; // binary files
      }
    }
    fs.writeFileSync(`${probe}.tmp`, JSON.stringify(languages));
    fs.renameSync(`${probe}.tmp`, `${probe}.out`);
  }));
  context.subscriptions.push(vscode.commands.registerCommand("hloE2e.copyFile", async () => {
    const { from, to } = JSON.parse(fs.readFileSync(`${process.env.HLO_E2E_PROBE}.copy`, "utf8"));
    await vscode.workspace.fs.copy(vscode.Uri.file(from), vscode.Uri.file(to), { overwrite: true });
  }));
};
