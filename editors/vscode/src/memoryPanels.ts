// What the memory panels (memoryTimeline.ts, compare.ts) share: the dump file they are asked about and the
// column of its editor; one panel per subject, shown again when asked again; the page around a panel's body
// (its stylesheet, script and data, under a content security policy); and the jump to an instruction the
// server located.
import * as crypto from "crypto";
import * as vscode from "vscode";
import { escape } from "./panelText";

/** A panel, the answer it shows and the editor column its jumps open in. */
export interface ShownPanel<T> {
  panel: vscode.WebviewPanel;
  answer: T;
  sourceColumn: vscode.ViewColumn;
}

/** What the server locates: an instruction's file and the range of its name (LSP positions). */
export interface Located {
  uri?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** The file of the active editor when it is a dump file of `languages`; else the active tab's file, which is one
 * when the command palette offered the command (`editorLangId`): a file over 50 MB has a tab but no
 * activeTextEditor, VS Code not giving it to extensions. */
export function activeDumpFile(languages: string[]): vscode.Uri | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (document) {
    return languages.includes(document.languageId) ? document.uri : undefined;
  }
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : undefined;
}

/** The column of an editor group showing `uri` (the active group first), else the first column. */
export function columnOf(uri: vscode.Uri): vscode.ViewColumn {
  const showing = (group: vscode.TabGroup) =>
    group.activeTab?.input instanceof vscode.TabInputText && group.activeTab.input.uri.toString() === uri.toString();
  const groups = vscode.window.tabGroups;
  const group = showing(groups.activeTabGroup) ? groups.activeTabGroup : groups.all.find(showing);
  return group?.viewColumn ?? vscode.ViewColumn.One;
}

/** The panel of `key` with `answer`: revealed when it is open (asking again refreshes it), else opened beside
 * the editor, its messages going to `onMessage`. */
export function showPanel<T>(
  panels: Map<string, ShownPanel<T>>,
  key: string,
  open: { viewType: string; title: string; media: vscode.Uri },
  answer: T,
  sourceColumn: vscode.ViewColumn,
  onMessage: (shown: ShownPanel<T>, message: unknown) => void,
): ShownPanel<T> {
  const shown = panels.get(key);
  if (shown) {
    shown.answer = answer;
    shown.sourceColumn = sourceColumn;
    shown.panel.reveal(undefined, false);
    return shown;
  }
  const panel = vscode.window.createWebviewPanel(
    open.viewType,
    open.title,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
    { enableScripts: true, enableFindWidget: true, localResourceRoots: [open.media] },
  );
  const created: ShownPanel<T> = { panel, answer, sourceColumn };
  panels.set(key, created);
  panel.onDidDispose(() => panels.delete(key));
  panel.webview.onDidReceiveMessage((message) => onMessage(created, message));
  return created;
}

/** The panel's page: `body` under the title, with the stylesheet and script `name`.css / `name`.js of `media`
 * and `data` for the script (JSON in the element `dataId`), scripts allowed by nonce alone. */
export function panelPage(
  webview: vscode.Webview,
  media: vscode.Uri,
  name: string,
  title: string,
  body: string,
  dataId: string,
  data: unknown,
): string {
  const nonce = crypto.randomBytes(18).toString("base64");
  const style = webview.asWebviewUri(vscode.Uri.joinPath(media, `${name}.css`));
  const script = webview.asWebviewUri(vscode.Uri.joinPath(media, `${name}.js`));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Memory: ${escape(title)}</title>
</head>
<body>
<h1>Memory: ${escape(title)}</h1>
${body}
<script type="application/json" id="${dataId}">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/** Opens `target`'s file in `column` with its name selected; says so when the server located nothing
 * (`what`: the buffer, as the message names it). Through vscode.open, which opens a file over 50 MB too (VS Code
 * never gives such a file to extensions: openTextDocument fails on it). */
export async function openLocated(target: Located, column: vscode.ViewColumn, what: string): Promise<void> {
  if (!target.uri || !target.range) {
    void vscode.window.showInformationMessage(`HLO: the server knows no instruction for ${what}.`);
    return;
  }
  const { start, end } = target.range;
  const selection = new vscode.Range(start.line, start.character, end.line, end.character);
  const options: vscode.TextDocumentShowOptions = { viewColumn: column, selection, preserveFocus: false };
  try {
    await vscode.commands.executeCommand("vscode.open", vscode.Uri.parse(target.uri), options);
  } catch (error) {
    void vscode.window.showErrorMessage(`HLO: cannot open ${target.uri}: ${error instanceof Error ? error.message : error}`);
  }
}
