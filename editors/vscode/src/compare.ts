// HLO: Compare Memory With… — two dumps compared by the server's `hlo.compare` command
// (server/hlo_lsp/lsp/compare_json.py) in a webview panel: for each pair of modules, the peaks A → B, the
// SVG picture and the buffers live at either peak, largest change first; a click on a side's cell (or on a
// bar of the picture) opens that side's instruction.
import * as path from "path";
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { ShownPanel, activeDumpFile, openLocated, panelPage, showPanel } from "./memoryPanels";
import { commas, escape, human, moduleName } from "./panelText";

export const COMPARE_MEMORY = "hlo.compareMemory";
const SERVER_COMMAND = "hlo.compare";
const VIEW_TYPE = "hlo.compareMemory";
const TITLE = "HLO: Compare Memory With…";
/** The most files each workspace search for the QuickPick's dumps returns. */
const SEARCH_LIMIT = 5000;
/** The bars the server's SVG draws: the first rows that changed (features/compare_svg.py ROWS_DRAWN). */
const BARS_DRAWN = 12;
const COMPANION = /[-.](buffer-assignment(-values)?|live-range|memory-usage-report)\.txt$/;
const NO_LIVE_RANGES =
  "XLA writes live ranges for the optimized module only, in the buffer-assignment files beside it " +
  "(*-buffer-assignment.txt and *-live-range.txt, or one combined *-buffer-assignment.txt).";
const PLURALS: Record<string, string> = {
  parameter: "parameters",
  constant: "constants",
  output: "outputs",
  temporary: "temporaries",
};
const COUNT_NAMES: Record<string, string> = { scheduleLength: "schedule steps" };

interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** One side of a row: a buffer live at that side's peak. */
interface BufferSide {
  label: string;
  bytes: number;
  shape: string | null;
  uri?: string;
  range?: LspRange;
}

interface BufferRow {
  a: BufferSide | null;
  b: BufferSide | null;
  delta: number;
  matchedBy: string | null;
  opName: string | null;
  source: string | null;
  kind: string;
}

interface ModuleSide {
  module: string;
  path: string;
  peak: number;
  human: string;
  time: number | null;
  instruction: string | null;
}

interface AToB {
  a: number | null;
  b: number | null;
  delta: number;
}

interface Pair {
  name: string;
  pairedBy: string;
  a: ModuleSide;
  b: ModuleSide;
  delta: number;
  deltaPercent: number | null;
  spaces: (AToB & { name: string; color: number })[];
  byKind: Record<string, AToB>;
  matchedShare: number | null;
  buffers: BufferRow[];
  counts: Record<string, AToB>;
  svg?: string | null;
}

interface Unpaired {
  side: "a" | "b";
  name: string;
  path: string;
}

/** What the server answers (only the fields shown here). */
interface Comparison {
  pairs: Pair[];
  unpaired: Unpaired[];
  withoutPeak: Unpaired[];
}

/** A dump of the workspace (or a choice) the QuickPick offers as B. */
interface Candidate extends vscode.QuickPickItem {
  uri?: vscode.Uri;
  browse?: true;
}

/** One panel per A and B: comparing them again refreshes and reveals it. */
type Panel = ShownPanel<Comparison>;

export class MemoryComparisons implements vscode.Disposable {
  private readonly panels = new Map<string, Panel>();
  private readonly media: vscode.Uri;

  constructor(
    extensionUri: vscode.Uri,
    private readonly getClient: () => Promise<LanguageClient | undefined>,
    private readonly languages: string[],
    private readonly output: vscode.OutputChannel,
  ) {
    this.media = vscode.Uri.joinPath(extensionUri, "media");
  }

  dispose(): void {
    for (const { panel } of [...this.panels.values()]) {
      panel.dispose();
    }
  }

  /** The command. From the explorer or the HLO Dumps view: `resource` is the clicked file or folder (a module's
   * file), and with two selected, `selected` are A and B. Else A is the active editor's file; B is picked. */
  async compare(resource?: unknown, selected?: unknown): Promise<void> {
    const chosen = Array.isArray(selected) ? selected.filter((item): item is vscode.Uri => item instanceof vscode.Uri) : [];
    const a = chosen.length === 2 ? chosen[0] : resource instanceof vscode.Uri ? resource : activeDumpFile(this.languages);
    if (!a) {
      void vscode.window.showWarningMessage(`${TITLE} compares the dump of the active XLA HLO or buffer-assignment file.`);
      return;
    }
    const b = chosen.length === 2 ? chosen[1] : await this.pickB(a);
    if (!b) {
      return;
    }
    const client = await this.getClient();
    if (!client) {
      void vscode.window.showErrorMessage(
        `${TITLE} needs the HLO language server, which is not running (see HLO: Show Server Output).`,
      );
      return;
    }
    const sourceColumn = vscode.window.activeTextEditor?.viewColumn ?? vscode.ViewColumn.One;
    const title = (await sideLabels(a, b)).join(" ↔ ");
    const answer = await this.ask(client, a, b, title);
    if (answer) {
      this.show(a, b, title, answer, sourceColumn);
    }
  }

  /** B: a dump folder or module file of the workspace other than A's, or one browsed to. */
  private async pickB(a: vscode.Uri): Promise<vscode.Uri | undefined> {
    const picked = await vscode.window.showQuickPick(candidates(a), {
      title: `Compare the memory of ${path.posix.basename(a.path)} with…`,
      placeHolder: "A dump folder or an HLO module (B)",
      matchOnDescription: true,
    });
    if (!picked?.browse) {
      return picked?.uri;
    }
    const browsed = await vscode.window.showOpenDialog({
      title: "Compare the memory with (a dump folder, or any file of a module)",
      openLabel: "Compare",
      canSelectFiles: true,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: vscode.workspace.getWorkspaceFolder(a)?.uri,
    });
    return browsed?.[0];
  }

  private async ask(client: LanguageClient, a: vscode.Uri, b: vscode.Uri, what: string): Promise<Comparison | undefined> {
    let answer: unknown;
    let cancelled = false;
    try {
      answer = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `HLO: comparing the memory of ${what}`, cancellable: true },
        (_progress, token) => {
          token.onCancellationRequested(() => (cancelled = true));
          const uris = [a, b].map((uri) => client.code2ProtocolConverter.asUri(uri));
          return client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMAND, arguments: uris }, token);
        },
      );
    } catch (error) {
      if (cancelled) {
        return undefined;
      }
      const message = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`[client] ${SERVER_COMMAND} on ${a.toString()} and ${b.toString()}: ${message}`);
      void vscode.window.showErrorMessage(`HLO: comparing the memory failed: ${message}`);
      return undefined;
    }
    if (cancelled) {
      return undefined;
    }
    if (!isComparison(answer)) {
      this.output.appendLine(`[client] ${SERVER_COMMAND}: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
      void vscode.window.showErrorMessage("HLO: the server's comparison is not understood (see the output).");
      return undefined;
    }
    return answer;
  }

  private show(a: vscode.Uri, b: vscode.Uri, title: string, answer: Comparison, sourceColumn: vscode.ViewColumn): void {
    const key = `${a.toString()} ${b.toString()}`;
    const shown = showPanel(this.panels, key, { viewType: VIEW_TYPE, title: `Memory: ${title}`, media: this.media },
      answer, sourceColumn, (panel, message) => this.reveal(panel, message));
    shown.panel.webview.html = this.html(shown.panel.webview, title, a, b, answer);
  }

  /** A click in the panel: {type: "reveal", pair, row, side}; the location comes from the answer, not the message. */
  private async reveal(shown: Panel, message: unknown): Promise<void> {
    const { type, pair, row, side } = (message ?? {}) as { type?: unknown; pair?: unknown; row?: unknown; side?: unknown };
    if (type !== "reveal" || typeof pair !== "number" || typeof row !== "number" || (side !== "a" && side !== "b")) {
      return;
    }
    const target = shown.answer.pairs[pair]?.buffers[row]?.[side];
    if (!target) {
      return;
    }
    await openLocated(target, shown.sourceColumn, `${target.label} in ${side.toUpperCase()}`);
  }

  private html(webview: vscode.Webview, title: string, a: vscode.Uri, b: vscode.Uri, answer: Comparison): string {
    const pairs = answer.pairs.length ? answer.pairs.map(pairSection).join("\n") : nothingCompared(answer);
    const body = `<p class="sides">A: ${escape(shownPath(a.fsPath))}<br>B: ${escape(shownPath(b.fsPath))}</p>
${pairs}
${answer.pairs.length ? notCompared(answer) : ""}`;
    // Only what the script needs: for each pair, the row each bar of its SVG draws (in drawing order), the
    // side a click on it opens, and the first line of the bar's title, to check the bar is that row's.
    const data = { pairs: answer.pairs.map(drawnBars) };
    return panelPage(webview, this.media, "compare", title, body, "hlo-compare-data", data);
  }

}

/** The QuickPick's entries: the folders of the workspace with buffer assignments, the HLO modules after
 * optimizations, then Browse…; none of them A, in A, or holding A. */
async function candidates(a: vscode.Uri): Promise<Candidate[]> {
  const [assignments, modules] = await Promise.all([
    vscode.workspace.findFiles("**/*buffer-assignment.txt", undefined, SEARCH_LIMIT),
    vscode.workspace.findFiles("**/*after_optimizations*.txt", undefined, SEARCH_LIMIT),
  ]);
  const aIsFolder = await isFolder(a);
  const modulesIn = new Map<string, number>();
  for (const file of assignments) {
    const folder = vscode.Uri.joinPath(file, "..").toString();
    modulesIn.set(folder, (modulesIn.get(folder) ?? 0) + 1);
  }
  const folders = [...modulesIn]
    .map(([folder, count]) => ({ uri: vscode.Uri.parse(folder), count }))
    .filter(({ uri }) => !within(a, uri) && !(aIsFolder && within(uri, a)))
    .sort((x, y) => x.uri.path.localeCompare(y.uri.path))
    .map(({ uri, count }): Candidate => ({
      label: `$(folder) ${folderName(uri)}`,
      description: [parentPath(uri), `${count} module${count === 1 ? "" : "s"}`].filter((part) => part).join(" · "),
      uri,
    }));
  const files = moduleFiles(modules)
    .filter((uri) => (aIsFolder ? !within(uri, a) : !sameModule(uri, a)))
    .sort((x, y) => x.path.localeCompare(y.path))
    .map((uri): Candidate => ({ label: `$(file) ${path.posix.basename(uri.path)}`, description: parentPath(uri), uri }));
  return [
    ...section("dump folders", folders),
    ...section("HLO modules", files),
    { label: "", kind: vscode.QuickPickItemKind.Separator },
    { label: "$(folder-opened) Browse…", description: "a dump folder or any file of a module", browse: true, alwaysShow: true },
  ];
}

function section(name: string, items: Candidate[]): Candidate[] {
  return items.length ? [{ label: name, kind: vscode.QuickPickItemKind.Separator }, ...items] : [];
}

/** The HLO module files: not the buffer-assignment companions, and one file of a module's stages
 * (X.after_optimizations.txt, not also X.after_optimizations_after_buffer_assignment.txt). */
function moduleFiles(found: vscode.Uri[]): vscode.Uri[] {
  const modules = found.filter((uri) => !COMPANION.test(uri.path));
  const names = new Set(modules.map((uri) => uri.toString()));
  return modules.filter((uri) => {
    const stage = uri.toString().replace(/_(before|after)_buffer_assignment\.txt$/, ".txt");
    return stage === uri.toString() || !names.has(stage);
  });
}

/** Whether `inner` is `outer` or under it. */
function within(inner: vscode.Uri, outer: vscode.Uri): boolean {
  const folder = outer.path.endsWith("/") ? outer.path : `${outer.path}/`;
  return inner.scheme === outer.scheme && inner.authority === outer.authority &&
    (inner.path === outer.path || inner.path.startsWith(folder));
}

function sameModule(x: vscode.Uri, y: vscode.Uri): boolean {
  return path.posix.dirname(x.path) === path.posix.dirname(y.path) && moduleName(x) === moduleName(y);
}

async function isFolder(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
  } catch {
    return false;
  }
}

/** How the panel's title names A and B: a folder by its name, a file by its module's; by their paths in
 * the workspace when those are the same. */
async function sideLabels(a: vscode.Uri, b: vscode.Uri): Promise<[string, string]> {
  const label = async (uri: vscode.Uri) => ((await isFolder(uri)) ? folderName(uri) : moduleName(uri));
  const labels: [string, string] = [await label(a), await label(b)];
  return labels[0] === labels[1] ? [shownPath(a.fsPath), shownPath(b.fsPath)] : labels;
}

/** A folder's name; a workspace folder's name for the folder itself. */
function folderName(uri: vscode.Uri): string {
  const workspaceFolder = vscode.workspace.getWorkspaceFolder(uri);
  return workspaceFolder?.uri.path === uri.path ? workspaceFolder.name : path.posix.basename(uri.path);
}

/** The folder holding `uri`, relative to the workspace ("" at the top of a single-folder workspace). */
function parentPath(uri: vscode.Uri): string {
  const parent = vscode.Uri.joinPath(uri, "..");
  const workspaceFolder = vscode.workspace.getWorkspaceFolder(uri);
  if (workspaceFolder?.uri.path === parent.path) {
    return (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? workspaceFolder.name : "";
  }
  return vscode.workspace.asRelativePath(parent);
}

/** A path relative to the workspace when it is in it. */
function shownPath(file: string): string {
  return path.isAbsolute(file) ? vscode.workspace.asRelativePath(file) : file;
}

function isComparison(answer: unknown): answer is Comparison {
  const comparison = answer as Comparison | null;
  return typeof comparison === "object" && comparison !== null && Array.isArray(comparison.pairs) &&
    Array.isArray(comparison.unpaired) && Array.isArray(comparison.withoutPeak) &&
    comparison.pairs.every((pair) => Array.isArray(pair?.buffers));
}

function pairSection(pair: Pair, index: number): string {
  const svg = pair.svg?.trim();
  const picture = svg?.startsWith("<svg")
    ? `<div class="picture" data-pair="${index}">${svg}</div>
<p class="hint">Click a side of a row below, or a bar of the picture, to go to that buffer's instruction.</p>`
    : `<p class="why">No picture: the server's answer has no SVG.</p>`;
  return `<section class="pair">
<h2>${escape(pair.name)}${pair.pairedBy === "name" ? "" : ` <span class="paired">(paired by ${escape(pair.pairedBy)})</span>`}</h2>
<p class="paths">A: ${escape(shownPath(pair.a.path))}<br>B: ${escape(shownPath(pair.b.path))}</p>
${pairSummary(pair)}
${picture}
<h3>Buffers live at the peaks, largest change first (${pair.buffers.length})</h3>
<div class="table">
<table class="changes">
<thead><tr><th class="number">change</th><th>A</th><th>B</th><th>kind</th><th>shape</th><th>op</th><th>source</th><th>matched by</th></tr></thead>
<tbody>
${pair.buffers.map((row, number) => bufferRow(row, index, number)).join("\n")}
</tbody>
</table>
</div>
</section>`;
}

function pairSummary(pair: Pair): string {
  const { a, b } = pair;
  const percent = pair.deltaPercent === null ? "" : `, ${signed(pair.deltaPercent)}%`;
  const peak = `peak <strong class="peak">${escape(a.human)} → ${escape(b.human)}</strong> ` +
    `(<span class="bytes">${commas(a.peak)} → ${commas(b.peak)}</span> bytes): ` +
    `<strong class="${changeClass(pair.delta)}">${escape(signedBytes(pair.delta))}${percent}</strong>`;
  const at = `at t=${a.time ?? "?"}${a.instruction ? ` (${escape(a.instruction)})` : ""} → ` +
    `t=${b.time ?? "?"}${b.instruction ? ` (${escape(b.instruction)})` : ""}`;
  const matched = pair.matchedShare === null ? "" : `${(100 * pair.matchedShare).toFixed(1)}% of B's peak matched to A's`;
  const lines = [[peak, at, matched].filter((part) => part).join(" · ")];
  if (pair.spaces.length > 1) {
    lines.push("memory spaces: " + pair.spaces.map((space) =>
      `${escape(space.name)} (color ${space.color}) ${escape(human(space.a ?? 0))} → ${escape(human(space.b ?? 0))} ` +
      `<span class="${changeClass(space.delta)}">${escape(signedBytes(space.delta))}</span>`).join(", "));
  }
  lines.push("at the peak: " + Object.entries(pair.byKind).map(([kind, bytes]) =>
    `${escape(PLURALS[kind] ?? kind)} ${escape(human(bytes.a ?? 0))} → ${escape(human(bytes.b ?? 0))}`).join(", "));
  lines.push("counts: " + Object.entries(pair.counts).map(([key, count]) =>
    `${escape(COUNT_NAMES[key] ?? key)} ${commas(count.a ?? 0)} → ${commas(count.b ?? 0)}`).join(", "));
  return `<p class="summary">${lines.join("<br>\n")}</p>`;
}

function bufferRow(row: BufferRow, pair: number, number: number): string {
  const shapes = [...new Set([row.a?.shape, row.b?.shape].filter((shape): shape is string => !!shape))];
  return `<tr>
<td class="number ${changeClass(row.delta)}" title="${commas(row.delta)} bytes">${escape(signedBytes(row.delta))}</td>
${sideCell(row.a, "a", pair, number)}${sideCell(row.b, "b", pair, number)}
<td>${escape(row.kind)}</td><td>${escape(shapes.join(" → "))}</td>
<td>${escape(row.opName ?? "")}</td><td>${escape(row.source ?? "")}</td>
<td>${escape(row.matchedBy ?? `only in ${row.a ? "A" : "B"}`)}</td>
</tr>`;
}

/** A side's buffer: its label and bytes; a link to its instruction when the server located it. */
function sideCell(buffer: BufferSide | null, side: "a" | "b", pair: number, row: number): string {
  if (!buffer) {
    return `<td class="side ${side} none">—</td>`;
  }
  const content = `<span class="name">${escape(buffer.label)}</span> <span class="bytes">${escape(human(buffer.bytes))}</span>`;
  const title = `${commas(buffer.bytes)} bytes`;
  if (!buffer.uri || !buffer.range) {
    return `<td class="side ${side} unlocated" title="${title}">${content}</td>`;
  }
  return `<td class="side ${side}" data-pair="${pair}" data-row="${row}" data-side="${side}" tabindex="0" ` +
    `title="${title}; go to ${escape(buffer.label)} in ${side.toUpperCase()}">${content}</td>`;
}

/** The bars of a pair's SVG, in drawing order (the first rows that changed): the row, the side a click opens
 * (B's instruction, else A's; null when the server located neither), and the first line of the bar's title. */
function drawnBars(pair: Pair): { row: number; side: "a" | "b" | null; label: string; title: string }[] {
  return pair.buffers
    .map((row, index) => ({ row, index }))
    .filter(({ row }) => row.delta !== 0)
    .slice(0, BARS_DRAWN)
    .map(({ row, index }) => {
      const side = row.b?.uri ? "b" : row.a?.uri ? "a" : null;
      return {
        row: index,
        side,
        label: (side && row[side]?.label) ?? "",
        title: row.a ? `A: ${row.a.label} ${commas(row.a.bytes)} bytes` : "A: none",
      };
    });
}

/** Why a comparison has no pairs, and the modules it did not compare. */
function nothingCompared(answer: Comparison): string {
  const listed = [...answer.unpaired, ...answer.withoutPeak];
  const empty = (["a", "b"] as const).filter((side) => !listed.some((module) => module.side === side));
  const reasons = ["no module has a memory peak on both sides (each side needs a module with its buffer assignment and live ranges)."];
  if (empty.length) {
    const sides = empty.map((side) => side.toUpperCase()).join(" and ");
    reasons.push(`${sides} ${empty.length === 1 ? "has" : "have"} no module with a buffer assignment. ${NO_LIVE_RANGES}`);
  }
  if (answer.unpaired.some((module) => module.side === "a") && answer.unpaired.some((module) => module.side === "b")) {
    reasons.push("No module of A pairs with one of B: modules are paired by the name the program gave them.");
  }
  if (answer.withoutPeak.length) {
    reasons.push("A module of a pair has no peak: no live ranges, or a shape unknown.");
  }
  return `<p class="why">Nothing to compare: ${reasons.map(escape).join(" ")}</p>\n${notCompared(answer)}`;
}

function notCompared(answer: Comparison): string {
  const items = [
    ...answer.unpaired.map((module) => `only in ${module.side.toUpperCase()}: ${escape(module.name)} (${escape(shownPath(module.path))})`),
    ...answer.withoutPeak.map((module) =>
      `no peak in ${module.side.toUpperCase()}: ${escape(module.name)} (${escape(shownPath(module.path))}): no live ranges, or a shape unknown`),
  ];
  return items.length
    ? `<h2>Not compared (${items.length})</h2>\n<ul class="unpaired">\n${items.map((item) => `<li>${item}</li>`).join("\n")}\n</ul>`
    : "";
}

function changeClass(delta: number): string {
  return delta > 0 ? "grew" : delta < 0 ? "shrank" : "same";
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

function signedBytes(count: number): string {
  return count > 0 ? `+${human(count)}` : count === 0 ? "0" : human(count);
}
