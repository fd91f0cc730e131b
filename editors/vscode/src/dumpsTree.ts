// The HLO Dumps view in the Explorer: the modules of each workspace folder, one per compilation, the largest
// peak first, from the server's `hlo.listModules` command (server/hlo_lsp/lsp/modules_json.py), and the files
// of each module. Refreshed by its title button, on the server's `hlo/modulesChanged` notification (dump
// files changed on disk), after a server (re)start and when workspace folders change.
import * as path from "path";
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { SHOW_MEMORY_TIMELINE } from "./memoryTimeline";
import { commas, human } from "./panelText";

export const DUMPS_VIEW = "hloDumps";
export const REFRESH_DUMPS = "hlo.refreshDumps";
export const OPEN_MODULE_FILE = "hlo.openModuleFile";
const SERVER_COMMAND = "hlo.listModules";
const MODULES_CHANGED = "hlo/modulesChanged";
/** The `viewItem` of a module, for its context menu (package.json). */
const MODULE_CONTEXT = "hloModule";
/** A burst of file changes (a run writing its dump) refreshes the view once. */
const CHANGES_SETTLE_MS = 300;
const NO_FOLDER = "Open a folder that holds XLA dumps (the files XLA writes with --xla_dump_to) to list its modules.";
const NO_DUMPS_LABEL = "No XLA dump in this folder";
const NO_DUMPS = `${NO_DUMPS_LABEL}: no HLO module or buffer assignment (the files XLA writes with --xla_dump_to).`;
const NOT_RUNNING = "The HLO language server is not running (see HLO: Show Server Output).";

/** A module as the server lists it (only the fields shown here). */
interface ListedModule {
  name: string;
  path: string; // a filesystem path: the HLO file of the stage with the memory (or else of the first stage), or the module's stem
  files: string[]; // names, in the folder of `path`
  peak: number | null;
  peaks: { space: string; bytes: number | null }[];
  allocated: number | null;
  hloBytes: number;
  instructions: number | null;
}

/** A folder's modules, or why there are none to show. */
type Listing = { modules: ListedModule[] } | { error: string };

/** A workspace folder (shown as a level of its own only when there are several). */
class FolderNode {
  constructor(readonly folder: vscode.WorkspaceFolder) {}
}

class ModuleNode {
  constructor(readonly id: string, readonly folder: vscode.WorkspaceFolder, readonly module: ListedModule) {}

  /** The file a command on the module is run on: its HLO file, or (a module without one) its first file. */
  get uri(): vscode.Uri {
    const { path: file, files } = this.module;
    const named = files.includes(path.basename(file)) || files.length === 0 ? file : path.join(path.dirname(file), files[0]);
    return vscode.Uri.file(named);
  }

  files(): FileNode[] {
    const folder = path.dirname(this.module.path);
    return this.module.files.map((name) => new FileNode(`${this.id}/${name}`, vscode.Uri.file(path.join(folder, name))));
  }
}

class FileNode {
  constructor(readonly id: string, readonly uri: vscode.Uri) {}
}

/** A line in place of a folder's modules: it has none, or they could not be listed (`text` in full as its tooltip). */
class MessageNode {
  constructor(readonly id: string, readonly label: string, readonly text: string) {}
}

type DumpsNode = FolderNode | ModuleNode | FileNode | MessageNode;

/** A command's resource: a Uri, or the file of a module or file of the HLO Dumps view (what its menus pass). */
export function resourceOf(value: unknown): vscode.Uri | undefined {
  if (value instanceof vscode.Uri) {
    return value;
  }
  return value instanceof ModuleNode || value instanceof FileNode ? value.uri : undefined;
}

export class DumpsTree implements vscode.TreeDataProvider<DumpsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<DumpsNode>;
  private readonly disposables: vscode.Disposable[];
  /** Each workspace folder's listing, by the folder's URI, until the next refresh. */
  private listings = new Map<string, Promise<Listing>>();
  private settling: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly getClient: () => Promise<LanguageClient | undefined>,
    private readonly output: vscode.OutputChannel,
  ) {
    this.view = vscode.window.createTreeView(DUMPS_VIEW, { treeDataProvider: this, showCollapseAll: true, canSelectMany: true });
    this.disposables = [this.view, this.changed, vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh())];
  }

  dispose(): void {
    clearTimeout(this.settling);
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  /** Lists the modules again (the next time the view shows them). */
  refresh(): void {
    this.listings = new Map();
    this.changed.fire();
  }

  /** Refreshes on the server's notification that dump files changed; `client` keeps the handler when it
   * restarts a crashed server, a new client needs it again. */
  listenTo(client: LanguageClient): void {
    client.onNotification(MODULES_CHANGED, () => {
      clearTimeout(this.settling);
      this.settling = setTimeout(() => this.refresh(), CHANGES_SETTLE_MS);
    });
  }

  /** `hlo.openModuleFile`: the module's HLO file, in an editor (also a file too large for extensions to read). */
  async openModuleFile(node: unknown): Promise<void> {
    const uri = resourceOf(node);
    if (uri) {
      await vscode.commands.executeCommand("vscode.open", uri);
    }
  }

  async getChildren(node?: DumpsNode): Promise<DumpsNode[]> {
    if (!node) {
      return this.roots();
    }
    if (node instanceof FolderNode) {
      return this.moduleNodes(node.folder, await this.listing(node.folder));
    }
    return node instanceof ModuleNode ? node.files() : [];
  }

  getTreeItem(node: DumpsNode): vscode.TreeItem {
    return node instanceof FolderNode ? folderItem(node)
      : node instanceof ModuleNode ? moduleItem(node)
      : node instanceof FileNode ? fileItem(node)
      : messageItem(node);
  }

  /** One workspace folder: its modules, or the view's message says why there are none; several: the folders. */
  private async roots(): Promise<DumpsNode[]> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length !== 1) {
      this.view.message = folders.length ? undefined : NO_FOLDER;
      return folders.map((folder) => new FolderNode(folder));
    }
    const listing = await this.listing(folders[0]);
    this.view.message = "error" in listing ? listing.error : listing.modules.length ? undefined : NO_DUMPS;
    return "error" in listing ? [] : this.moduleNodes(folders[0], listing);
  }

  private moduleNodes(folder: vscode.WorkspaceFolder, listing: Listing): DumpsNode[] {
    const base = folder.uri.toString();
    if ("error" in listing) {
      return [new MessageNode(`${base}#message`, listing.error, listing.error)];
    }
    if (!listing.modules.length) {
      return [new MessageNode(`${base}#message`, NO_DUMPS_LABEL, NO_DUMPS)];
    }
    const ids = new Set<string>();
    return listing.modules.map((module) => {
      // By path, not by place in the list, so that a refresh keeps what was expanded.
      let id = `${base}#${module.path}`;
      while (ids.has(id)) {
        id += "+";
      }
      ids.add(id);
      return new ModuleNode(id, folder, module);
    });
  }

  private listing(folder: vscode.WorkspaceFolder): Promise<Listing> {
    const key = folder.uri.toString();
    let listing = this.listings.get(key);
    if (!listing) {
      listing = this.fetch(folder);
      this.listings.set(key, listing);
    }
    return listing;
  }

  /** `hlo.listModules` of the folder, the view showing progress meanwhile. */
  private async fetch(folder: vscode.WorkspaceFolder): Promise<Listing> {
    return vscode.window.withProgress({ location: { viewId: DUMPS_VIEW } }, async () => {
      const client = await this.getClient();
      if (!client) {
        return { error: NOT_RUNNING };
      }
      let answer: unknown;
      try {
        answer = await client.sendRequest(ExecuteCommandRequest.type, {
          command: SERVER_COMMAND,
          arguments: [client.code2ProtocolConverter.asUri(folder.uri)],
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.output.appendLine(`[client] ${SERVER_COMMAND} on ${folder.uri.toString()}: ${message}`);
        return { error: `Listing the modules failed: ${message}` };
      }
      if (!isModuleList(answer)) {
        this.output.appendLine(`[client] ${SERVER_COMMAND}: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
        return { error: "The server's list of modules is not understood (see HLO: Show Server Output)." };
      }
      return answer;
    });
  }
}

function folderItem(node: FolderNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.folder.uri, vscode.TreeItemCollapsibleState.Expanded);
  item.id = node.folder.uri.toString();
  item.label = node.folder.name;
  item.iconPath = vscode.ThemeIcon.Folder;
  return item;
}

/** A module: its peak as the description; a click shows its memory timeline, or (a module without memory,
 * whose timeline would only say there is none) opens its HLO file. */
function moduleItem(node: ModuleNode): vscode.TreeItem {
  const { module } = node;
  const item = new vscode.TreeItem(module.name, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = node.id;
  item.description = [module.peak === null ? "no memory" : `${human(module.peak)} peak`, subfolder(node)]
    .filter((part) => part).join(" · ");
  item.tooltip = moduleTooltip(module);
  item.contextValue = MODULE_CONTEXT;
  item.iconPath = new vscode.ThemeIcon("symbol-module");
  item.command = module.peak === null
    ? { command: OPEN_MODULE_FILE, title: "Open HLO File", arguments: [node] }
    : { command: SHOW_MEMORY_TIMELINE, title: "Show Memory Timeline", arguments: [node.uri] };
  return item;
}

function fileItem(node: FileNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.uri, vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.iconPath = vscode.ThemeIcon.File;
  item.tooltip = node.uri.fsPath;
  // vscode.open, not openTextDocument: VS Code opens a file over 50 MB in an editor but never gives it to extensions.
  item.command = { command: "vscode.open", title: "Open", arguments: [node.uri] };
  return item;
}

function messageItem(node: MessageNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.tooltip = node.text;
  item.iconPath = new vscode.ThemeIcon("info");
  return item;
}

/** Where the module is under its workspace folder ("" at its top): modules of one name in several dumps differ by it. */
function subfolder(node: ModuleNode): string {
  const relative = path.relative(node.folder.uri.fsPath, path.dirname(node.module.path));
  return relative.startsWith("..") || path.isAbsolute(relative) ? "" : relative.split(path.sep).join("/");
}

function moduleTooltip(module: ListedModule): string {
  const lines = [module.name];
  lines.push(module.peak === null ? "no memory peak (no buffer assignment with live ranges)" : `peak ${bytes(module.peak)}`);
  if (module.peaks.length > 1) {
    lines.push(...module.peaks.map((peak) => `  ${peak.space}: ${peak.bytes === null ? "no live range" : bytes(peak.bytes)}`));
  }
  if (module.allocated !== null) {
    lines.push(`allocated ${bytes(module.allocated)}`);
  }
  const instructions = module.instructions === null ? "" : `, ${commas(module.instructions)} instructions`;
  lines.push(module.hloBytes ? `HLO ${bytes(module.hloBytes)}${instructions}` : "no HLO file");
  lines.push(module.path);
  return lines.join("\n");
}

function bytes(count: number): string {
  return count < 1024 ? `${commas(count)} bytes` : `${commas(count)} bytes (${human(count)})`;
}

function isModuleList(answer: unknown): answer is { modules: ListedModule[] } {
  const list = answer as { modules?: unknown } | null;
  return typeof list === "object" && list !== null && Array.isArray(list.modules) &&
    list.modules.every((module: ListedModule) =>
      typeof module?.name === "string" && typeof module.path === "string" && Array.isArray(module.files) &&
      (module.peak === null || typeof module.peak === "number") && Array.isArray(module.peaks));
}
