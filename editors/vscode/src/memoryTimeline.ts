// HLO: Show Memory Timeline — the answer of the server's `hlo.memoryTimeline` command
// (server/hlo_lsp/lsp/memory_json.py) in a webview panel: the SVG picture, the peak, and
// the buffers live at it; a click on a buffer (its table row or its bar) opens its instruction.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { Located, ShownPanel, activeDumpFile, columnOf, openLocated, panelPage, showPanel } from "./memoryPanels";
import { commas, escape, human, moduleName } from "./panelText";

export const SHOW_MEMORY_TIMELINE = "hlo.showMemoryTimeline";
const SERVER_COMMAND = "hlo.memoryTimeline";
const VIEW_TYPE = "hlo.memoryTimeline";
const NO_LIVE_RANGES =
  "this module has no live-range information (XLA writes it, for the optimized module only, in the " +
  "buffer-assignment files beside it: *-buffer-assignment.txt and *-live-range.txt, or one combined " +
  "*-buffer-assignment.txt).";

interface TimelineBuffer extends Located {
  label: string;
  bytes: number;
  kind: string;
  start: number;
  end: number;
  allocation: number | null;
  offset: number | null;
  opName: string | null;
  source: string | null;
}

/** What the server answers (only the fields shown here). */
interface Timeline {
  module: string;
  maxTime: number;
  allocated: { bytes: number | null; allocations: number | null };
  peak: Located & { time: number | null; instruction: string | null; bytes: number; human: string; buffers: number };
  buffers: TimelineBuffer[];
  largest: TimelineBuffer[];
  svg?: string | null;
}

type ListName = "buffers" | "largest" | "peak";

/** One panel per module: running the command again for the same module refreshes and reveals it. */
type Panel = ShownPanel<Timeline | null>;

export class MemoryTimelines implements vscode.Disposable {
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

  /** The command: `resource` is the file of the editor title menu or of the HLO Dumps view (read from disk by the
   * server: it need not be open); else the active editor's file. */
  async show(resource?: vscode.Uri): Promise<void> {
    const file = resource ?? activeDumpFile(this.languages);
    if (!file) {
      void vscode.window.showWarningMessage("HLO: Show Memory Timeline works on an XLA HLO or buffer-assignment file.");
      return;
    }
    const client = await this.getClient();
    if (!client) {
      void vscode.window.showErrorMessage(
        "HLO: Show Memory Timeline needs the HLO language server, which is not running (see HLO: Show Server Output).",
      );
      return;
    }
    let answer: Timeline | null;
    try {
      answer = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: "HLO: memory timeline" },
        () =>
          client.sendRequest(ExecuteCommandRequest.type, {
            command: SERVER_COMMAND,
            arguments: [client.code2ProtocolConverter.asUri(file)],
          }),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`[client] ${SERVER_COMMAND} on ${file.toString()}: ${message}`);
      void vscode.window.showErrorMessage(`HLO: the memory timeline failed: ${message}`);
      return;
    }
    if (answer !== null && (typeof answer !== "object" || !Array.isArray(answer.buffers))) {
      this.output.appendLine(`[client] ${SERVER_COMMAND}: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
      void vscode.window.showErrorMessage("HLO: the server's memory timeline answer is not understood (see the output).");
      return;
    }
    const name = answer?.module ?? moduleName(file);
    const key = vscode.Uri.joinPath(file, "..", name).toString(); // a module of a dump folder
    const shown = showPanel(this.panels, key, { viewType: VIEW_TYPE, title: `Memory: ${name}`, media: this.media }, answer,
      columnOf(file), (panel, message) => this.reveal(panel, message));
    shown.panel.webview.html = this.html(shown.panel.webview, name, answer);
  }

  /** A click in the panel: {type: "reveal", list, index}; the location comes from the answer, not the message. */
  private async reveal(shown: Panel, message: unknown): Promise<void> {
    const { type, list, index } = (message ?? {}) as { type?: unknown; list?: unknown; index?: unknown };
    if (type !== "reveal" || !shown.answer || typeof index !== "number") {
      return;
    }
    const answer = shown.answer;
    const target: (Located & { label?: string }) | undefined =
      list === "peak" ? { ...answer.peak, label: answer.peak.instruction ?? "the peak" }
        : list === "buffers" || list === "largest" ? answer[list as Exclude<ListName, "peak">][index]
        : undefined;
    if (!target) {
      return;
    }
    await openLocated(target, shown.sourceColumn, target.label ?? "this buffer");
  }

  private html(webview: vscode.Webview, name: string, answer: Timeline | null): string {
    const body = answer ? timelineBody(answer) : `<p class="why">No memory timeline: ${escape(NO_LIVE_RANGES)}</p>`;
    // Only what the script needs: the label of each bar the SVG draws, in drawing order, and whether it has a place.
    const data = { largest: (answer?.largest ?? []).map((buffer) => ({ label: buffer.label, located: !!buffer.uri })) };
    return panelPage(webview, this.media, "memory-timeline", name, body, "hlo-timeline-data", data);
  }

}

function timelineBody(answer: Timeline): string {
  const peak = answer.peak;
  const instruction = peak.instruction
    ? peak.uri
      ? `<button type="button" class="link" data-list="peak" data-index="0" title="Go to the instruction at the peak">${escape(peak.instruction)}</button>`
      : escape(peak.instruction)
    : "";
  const parts = [
    `peak <strong>${escape(peak.human)}</strong> (${escape(commas(peak.bytes))} bytes)`,
    `time <strong>${peak.time ?? "?"}</strong> (of 0-${answer.maxTime})`,
    instruction,
    `${peak.buffers} buffer${peak.buffers === 1 ? "" : "s"} live`,
    answer.allocated.bytes !== null
      ? `${escape(human(answer.allocated.bytes))} allocated in ${answer.allocated.allocations} allocations`
      : "",
  ];
  const summary = `<p class="summary">${parts.filter((part) => part).join(" · ")}</p>`;
  const svg = answer.svg?.trim();
  const picture = svg?.startsWith("<svg")
    ? `<div class="timeline">${svg}</div>
<p class="hint">Click a buffer's bar, or its row below, to go to its instruction.</p>`
    : `<p class="why">No picture: ${svg ? "the server's answer has no SVG." : escape(NO_LIVE_RANGES)}</p>`;
  const rows = answer.buffers.map((buffer, index) => {
    const located = buffer.uri && buffer.range;
    const attributes = located
      ? ` data-list="buffers" data-index="${index}" tabindex="0" title="Go to ${escape(buffer.label)}"`
      : ` class="unlocated"`;
    const allocation = buffer.allocation === null ? "" : `${buffer.allocation} @ ${buffer.offset ?? 0}`;
    return `<tr${attributes}>
<td class="name">${escape(buffer.label)}</td>
<td class="number" title="${escape(commas(buffer.bytes))} bytes">${escape(human(buffer.bytes))}</td><td>${escape(buffer.kind)}</td>
<td class="number">${buffer.start}-${buffer.end}</td><td>${escape(allocation)}</td>
<td>${escape(buffer.opName ?? "")}</td><td>${escape(buffer.source ?? "")}</td>
</tr>`;
  });
  return `${summary}
${picture}
<h2>Buffers live at the peak (${answer.buffers.length})</h2>
<div class="table">
<table class="buffers">
<thead><tr><th>buffer</th><th class="number">size</th><th>kind</th><th class="number">live</th><th>allocation @ offset</th><th>op_name</th><th>source</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>
</div>`;
}
