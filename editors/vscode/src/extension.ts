// VS Code client for hlo-lsp: starts the Python language server over stdio for the `hlo`
// (HLO module) and `hlo-buffers` (buffer assignment, live range, memory usage report) languages.
// Commands: HLO: Restart Language Server, HLO: Show Server Output, HLO: Show Memory Timeline
// (memoryTimeline.ts), HLO: Compare Memory With… (compare.ts); the server's code-lens command
// `hlo.showPeakBuffers` opens VS Code's references peek. The HLO Dumps view in the Explorer (dumpsTree.ts)
// lists the workspace's modules.
import * as childProcess from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  Location as LspLocation,
  Position as LspPosition,
  RevealOutputChannelOn,
  ServerOptions,
} from "vscode-languageclient/node";
import { COMPARE_MEMORY, MemoryComparisons } from "./compare";
import { DumpsTree, OPEN_MODULE_FILE, REFRESH_DUMPS, resourceOf } from "./dumpsTree";
import { MemoryTimelines, SHOW_MEMORY_TIMELINE } from "./memoryTimeline";

const CLIENT_ID = "hlo"; // vscode-languageclient reads the `hlo.trace.server` setting from this id
const CLIENT_NAME = "HLO Language Server";
const LANGUAGES = ["hlo", "hlo-buffers"];
/** The server's code lenses `N buffers live at peak` run this with `[uri, position, locations]` (LSP JSON). */
const SHOW_PEAK_BUFFERS = "hlo.showPeakBuffers";
const INSTALL_HINT =
  "Install the server with \"pipx install <path to an hlo-lsp checkout>\" (or \"pip install <checkout>\" " +
  "into the Python environment VS Code uses), or set hlo.server.path to the hlo-lsp executable.";

/** How the server is started, and how it was found (for messages). */
interface ServerCommand {
  command: string;
  args: string[];
  origin: string;
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let traceOutput: vscode.OutputChannel;
let dumps: DumpsTree;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel(CLIENT_NAME);
  traceOutput = vscode.window.createOutputChannel(`${CLIENT_NAME} Trace`);
  const timelines = new MemoryTimelines(context.extensionUri, runningClient, LANGUAGES, output);
  const comparisons = new MemoryComparisons(context.extensionUri, runningClient, LANGUAGES, output);
  dumps = new DumpsTree(runningClient, output);
  context.subscriptions.push(
    output,
    traceOutput,
    timelines,
    vscode.commands.registerCommand("hlo.restartServer", () => restartAndRelist()),
    vscode.commands.registerCommand("hlo.showOutput", () => output.show(true)),
    vscode.commands.registerCommand(SHOW_MEMORY_TIMELINE, (resource?: unknown) => timelines.show(resourceOf(resource))),
    comparisons,
    // From the HLO Dumps view, `resource` and `selected` are its modules: their files.
    vscode.commands.registerCommand(COMPARE_MEMORY, (resource?: unknown, selected?: unknown) =>
      comparisons.compare(resourceOf(resource), Array.isArray(selected) ? selected.map(resourceOf) : selected)),
    dumps,
    vscode.commands.registerCommand(REFRESH_DUMPS, () => dumps.refresh()),
    vscode.commands.registerCommand(OPEN_MODULE_FILE, (module?: unknown) => dumps.openModuleFile(module)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("hlo.server")) {
        void restartAndRelist();
      }
    }),
  );
  await vscode.commands.executeCommand("setContext", "hlo.active", true); // shows the HLO Dumps view
  await restart();
}

export async function deactivate(): Promise<void> {
  await queue;
  await stop();
}

let queue: Promise<void> = Promise.resolve();

/** The client once a start or restart under way has finished; undefined when the server is not running. */
async function runningClient(): Promise<LanguageClient | undefined> {
  await queue;
  return client?.isRunning() ? client : undefined;
}

/** Restarts are queued, so that a settings change during a start does not run two servers. */
function restart(): Promise<void> {
  queue = queue
    .then(async () => {
      await stop();
      await start();
    })
    .catch((error) => output.appendLine(`[client] restarting the server: ${describe(error)}`));
  return queue;
}

/** A restart once the extension is active: the HLO Dumps view asks the new server (or says it is not running). */
async function restartAndRelist(): Promise<void> {
  await restart();
  dumps.refresh();
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop(5000);
    } catch (error) {
      output.appendLine(`[client] stopping the server: ${describe(error)}`);
    }
    await running.dispose().catch(() => undefined);
  }
}

async function start(): Promise<void> {
  const server = await findServer();
  if (typeof server === "string") {
    reportStartFailure(server);
    return;
  }
  output.appendLine(`[client] starting ${quote([server.command, ...server.args])} (${server.origin})`);
  const crashes = new CrashHandler();
  // No `transport`: with TransportKind.stdio the client appends `--stdio` to the arguments.
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir() },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
    outputChannel: output,
    traceOutputChannel: traceOutput,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // Sends the `hlo` section (e.g. hlo.inlayHints.enabled) with workspace/didChangeConfiguration.
    synchronize: { configurationSection: "hlo" },
    initializationFailedHandler: () => false, // reported once, below, with the install hint
    errorHandler: crashes,
    middleware: {
      // The server lists hlo.showPeakBuffers in its executeCommandProvider, so the client registers that
      // command id itself (sending workspace/executeCommand); a lens click lands here instead.
      executeCommand: (command, args, next) =>
        command === SHOW_PEAK_BUFFERS ? showPeakBuffers(created, args, () => next(command, args)) : next(command, args),
    },
  };
  const created = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  dumps.listenTo(created);
  client = created;
  try {
    await created.start();
    crashes.started = true;
  } catch (error) {
    if (client === created) {
      client = undefined;
    }
    await created.dispose().catch(() => undefined);
    reportStartFailure(
      `the server command "${quote([server.command, ...server.args])}" (${server.origin}) failed: ${describe(error)}.`,
    );
  }
}

/** `hlo.showPeakBuffers` with `[uri, position, locations]` as LSP JSON: VS Code's references peek
 * (`editor.action.showReferences`, which wants a vscode.Uri, a vscode.Position and vscode.Locations).
 * Arguments of another shape go to the server (`fallback`), which answers them. */
async function showPeakBuffers(languageClient: LanguageClient, args: unknown[], fallback: () => unknown): Promise<unknown> {
  const [uri, position, locations] = args;
  if (typeof uri !== "string" || !isLspPosition(position) || !Array.isArray(locations) || !locations.every(isLspLocation)) {
    output.appendLine(`[client] ${SHOW_PEAK_BUFFERS}: unexpected arguments ${JSON.stringify(args).slice(0, 200)}`);
    return fallback();
  }
  const convert = languageClient.protocol2CodeConverter;
  return vscode.commands.executeCommand(
    "editor.action.showReferences",
    convert.asUri(uri),
    convert.asPosition(position),
    locations.map((location) => convert.asLocation(location)),
  );
}

function isLspPosition(value: unknown): value is LspPosition {
  const position = value as LspPosition | undefined;
  return typeof position?.line === "number" && typeof position?.character === "number";
}

function isLspLocation(value: unknown): value is LspLocation {
  const location = value as LspLocation | undefined;
  return typeof location?.uri === "string" && isLspPosition(location?.range?.start) && isLspPosition(location?.range?.end);
}

/** Restarts a crashed server up to 4 times in 3 minutes, then says so and stops; a server that
 * exits before it answered `initialize` is not restarted (start() reports it). */
class CrashHandler {
  started = false;
  private crashes: number[] = [];

  error(): ErrorHandlerResult {
    return { action: ErrorAction.Continue };
  }

  closed(): CloseHandlerResult {
    if (!this.started) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.crashes = [...this.crashes.filter((time) => now - time < 3 * 60 * 1000), now];
    if (this.crashes.length <= 4) {
      return { action: CloseAction.Restart, handled: true };
    }
    reportStartFailure("it stopped 5 times in the last 3 minutes and will not be restarted.", false);
    return { action: CloseAction.DoNotRestart, handled: true };
  }
}

/** An error notification (not awaited: it stays until the user answers) with Open Settings and Show Output. */
function reportStartFailure(problem: string, installHint = true): void {
  output.appendLine(`[client] ${problem}`);
  const openSettings = "Open Settings";
  const showOutput = "Show Output";
  const sentence = problem.charAt(0).toUpperCase() + problem.slice(1);
  const message = `HLO language server: ${sentence}${installHint ? ` ${INSTALL_HINT}` : ""}`;
  void vscode.window.showErrorMessage(message, openSettings, showOutput).then(async (choice) => {
    if (choice === openSettings) {
      // In a remote window (Remote SSH, WSL, code-server) the machine-overridable hlo.server settings
      // are listed under Remote, not User.
      const command = vscode.env.remoteName ? "workbench.action.openRemoteSettings" : "workbench.action.openSettings";
      await vscode.commands.executeCommand(command, { query: "hlo.server" });
    } else if (choice === showOutput) {
      output.show(true);
    }
  });
}

/**
 * The server command, or a message saying why none was found:
 * `hlo.server.path` if set; else `hlo-lsp` on PATH; else `python -m hlo_lsp` with the Python
 * interpreter VS Code is configured with (ms-python's active environment, `python.defaultInterpreterPath`,
 * then `python3`/`python`), if that interpreter can import hlo_lsp.
 */
async function findServer(): Promise<ServerCommand | string> {
  const config = vscode.workspace.getConfiguration("hlo.server");
  const extraArgs = config.get<string[]>("args", []).map(expand);
  const configured = expand(config.get<string>("path", "").trim());
  if (configured) {
    const found = looksLikePath(configured) ? (isExecutable(configured) ? configured : undefined) : onPath(configured);
    if (!found) {
      return `the setting hlo.server.path is "${configured}", which is not an executable file${looksLikePath(configured) ? "" : " on PATH"}.`;
    }
    return { command: found, args: extraArgs, origin: "hlo.server.path" };
  }
  const onPathServer = onPath("hlo-lsp");
  if (onPathServer) {
    return { command: onPathServer, args: extraArgs, origin: "hlo-lsp on PATH" };
  }
  const python = await pythonInterpreter();
  const probe = await run(python.command, ["-c", "import hlo_lsp"]);
  if (probe !== undefined) {
    return `hlo-lsp is not on PATH, and "${python.command} -m hlo_lsp" (${python.origin}) cannot run: ${probe}.`;
  }
  return { command: python.command, args: ["-m", "hlo_lsp", ...extraArgs], origin: python.origin };
}

async function pythonInterpreter(): Promise<{ command: string; origin: string }> {
  const fromExtension = await msPythonInterpreter();
  if (fromExtension) {
    return { command: fromExtension, origin: "the Python extension's active interpreter" };
  }
  const configured = expand(
    vscode.workspace.getConfiguration("python").get<string>("defaultInterpreterPath", "").trim(),
  );
  if (configured && configured !== "python") {
    return { command: configured, origin: "python.defaultInterpreterPath" };
  }
  const fallback = process.platform === "win32" ? "python" : "python3";
  return { command: onPath(fallback) ?? fallback, origin: `${fallback} on PATH` };
}

/** The ms-python extension's active interpreter, when that extension is installed (best effort, 5 s at most). */
async function msPythonInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension("ms-python.python");
  if (!extension) {
    return undefined;
  }
  const lookup = (async () => {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const environment = api?.environments?.getActiveEnvironmentPath?.(resource);
    return typeof environment?.path === "string" && environment.path !== "python" ? environment.path : undefined;
  })();
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000));
  try {
    return await Promise.race([lookup, timeout]);
  } catch (error) {
    output.appendLine(`[client] asking the Python extension for its interpreter: ${describe(error)}`);
    return undefined;
  }
}

/** Runs a short command; undefined when it succeeded, else why it failed. */
function run(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    childProcess.execFile(command, args, { timeout: 20000 }, (error, _stdout, stderr) => {
      if (!error) {
        resolve(undefined);
        return;
      }
      const lastLine = String(stderr).trim().split(/\r?\n/).pop();
      resolve(lastLine || describe(error));
    });
  });
}

function onPath(name: string): string | undefined {
  const extensions = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    for (const extension of extensions) {
      const candidate = path.join(dir, name + extension);
      if (dir && isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function looksLikePath(command: string): boolean {
  return command.includes("/") || command.includes("\\");
}

/** `~` and `${workspaceFolder}` in settings. */
function expand(value: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  let result = value.replace(/\$\{workspaceFolder\}/g, folder);
  if (result === "~" || result.startsWith("~/")) {
    result = os.homedir() + result.slice(1);
  }
  return result;
}

function quote(words: string[]): string {
  return words.map((word) => (/[\s"']/.test(word) ? JSON.stringify(word) : word)).join(" ");
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
