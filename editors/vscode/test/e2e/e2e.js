#!/usr/bin/env node
// End-to-end test of the extension in a real VS Code: installs the .vsix into code-server,
// opens a copy of a real dump folder in headless Chromium (driven by playwright-core), and checks
//   1. the language VS Code gives each file of the module, and of one file of each stage and naming of
//      the other producers (JAX on TPU with its `.cl_N` names and side files, TensorFlow, PyTorch/XLA, hand-
//      collected names) copied beside it (the status bar and the editor's language id),
//   2. the hover on an instruction name (the text comes from the hlo-lsp server),
//   3. go to definition (F12) from a use of that instruction (cursor line in the status bar),
//   4. HLO: Show Memory Timeline: the webview panel, its SVG with the peak's label and its summary; a
//      click on a row of its table and on a bar of its SVG moves the cursor to that buffer's instruction,
//   5. the code lens "9 buffers live at peak" on the ENTRY line opens the references peek with 9 places;
//      the timeline of a module without live ranges (before optimizations) says why there is none,
//   6. the hover on an instruction of a TPU module after codegen: the memory space and size the
//      compilation's buffer assignment gives it,
//   7. HLO: Compare Memory With… on a module of tests/data/jax-0.10.2/pair_mlp_narrow (copied beside the
//      dump, with pair_mlp_wide), pair_mlp_wide picked in its QuickPick: the panel's peaks A → B, its SVG and
//      the row of copy.3; a click on a row's B cell opens the wide module at that buffer's instruction;
//      compared with a folder of other programs (seeds), the panel says there is nothing to compare,
//   8. the HLO Dumps view in the Explorer: the modules of the opened folder (and of the folders copied into
//      it), each with its peak as description (jit_mlp "476.0KiB peak"), the largest first; a module
//      written into the folder appears without a click (the server's hlo/modulesChanged) and stays after
//      Refresh; a module expanded lists its files, a click on one opens it; its context menu's Show Memory
//      Timeline opens the panel of a module (jit_step of the TPU dump) whose files no editor has open,
//   9. a server path that does not exist: the error notification, its Open Settings button, the HLO Dumps
//      view's message that the server is not running, and HLO: Show Server Output,
//  10. the language VS Code gives every file of tests/data (and of ../shared/producers and ../shared/corpus
//      when they are there) is the one the server's detect_kind says, and that of a few made-up names:
//      a test helper extension (language-probe/) opens each with workspace.openTextDocument.
// Screenshots go to <out>/vscode-hover.png, <out>/vscode-tpu-hover.png, <out>/vscode-memory-timeline.png,
// <out>/vscode-peak-buffers.png, <out>/vscode-compare.png, <out>/vscode-dumps.png (the side bar alone) and
// <out>/vscode-server-missing.png (and <out>/vscode-failure.png with the logs when a check fails).
// Exit status 0 = passed.
// Set E2E_DEBUG=1 for more output.
//
// usage: node e2e.js --code-server BIN --playwright DIR --vsix FILE --server HLO_LSP --dump DIR --out DIR
"use strict";
const childProcess = require("child_process");
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");

const args = parseArgs(process.argv.slice(2));
const { chromium } = require(path.resolve(args.playwright));
const WAIT = 60_000; // the longest any single wait may take
const started = Date.now();
const log = (...parts) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s]`, ...parts);

// The repository's bundled dumps, and the shared corpus beside the repository (when it is there).
const ROOT = path.resolve(__dirname, "../../../..");
const DATA = path.join(ROOT, "tests", "data");
const SHARED = ["producers", "corpus"].map((name) => path.join(ROOT, "..", "shared", name)).filter(fs.existsSync);
// Folders of tests/data copied into the opened folder, beside the dump: other producers' naming.
const PRODUCER_FOLDERS = ["producers/jax-0.10.2-tpu/sharded_matmul_2x2", "producers/tf-2.21.0/keras_mlp_train",
  "producers/torch-xla-2.9.0/mlp_train", "seeds", "handwritten"];
// Two dumps of one program (narrow and wide layers) copied into the opened folder, for HLO: Compare Memory With….
const COMPARE_FOLDERS = ["jax-0.10.2/pair_mlp_narrow", "jax-0.10.2/pair_mlp_wide"];

// What the test expects, from the dump it opens (tests/data/jax-0.10.2/mlp3).
const MODULE = "module_0000.jit_mlp.cpu_after_optimizations";
const HLO_FILE = `${MODULE}.txt`;
const TPU = "module_0000.jit_mm.cl_933746096"; // JAX on TPU: the compilation's `.cl_N` is in every name
const TF = "module_0002.a_inference_eval_step_505__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_" +
  "11160318154034397263_.3";
const TORCH = "module_0004.SyncTensorsGraph.66";
// The language id each file opens with, and the name the status bar shows for it.
const LANGUAGE_NAMES = { "hlo": "XLA HLO", "hlo-buffers": "XLA Buffer Assignment", "plaintext": "Plain Text" };
const LANGUAGES = [
  [HLO_FILE, "hlo"],
  [`${MODULE}-buffer-assignment.txt`, "hlo-buffers"],
  [`${MODULE}-buffer-assignment-values.txt`, "hlo-buffers"],
  [`${MODULE}-live-range.txt`, "hlo-buffers"],
  [`${MODULE}-memory-usage-report.txt`, "hlo-buffers"],
  ["module_0000.jit_mlp.before_optimizations.txt", "hlo"],
  [`${TPU}.before_optimizations.txt`, "hlo"],
  [`${TPU}.after_optimizations_before_buffer_assignment.txt`, "hlo"],
  [`${TPU}.after_optimizations_after_buffer_assignment.txt`, "hlo"],
  [`${TPU}.after_optimizations.txt`, "hlo"],
  [`${TPU}.after_codegen.txt`, "hlo"],
  [`${TPU}.after_optimizations-buffer-assignment.txt`, "hlo-buffers"],
  [`${TPU}.after_optimizations-live-range.txt`, "hlo-buffers"],
  [`${TPU}.tpu_comp_env.txt`, "plaintext"], // side files: XLA's flags and protobuf text, no dump
  [`${TPU}.hlo_module_config.txt`, "plaintext"],
  [`${TF}.cpu_after_optimizations.txt`, "hlo"],
  [`${TF}.cpu_after_optimizations-buffer-assignment.txt`, "hlo-buffers"],
  [`${TORCH}.cpu_after_optimizations.txt`, "hlo"],
  [`${TORCH}.cpu_after_optimizations-memory-usage-report.txt`, "hlo-buffers"],
  ["torchxla-gpu-decode-batch32.after_optimizations.txt", "hlo"],
  ["tpu-allreduce-mlp.buffer-assignment.txt", "hlo-buffers"],
  ["while_and_constants.hlo", "hlo"],
];
// The language id of every file VS Code opens is the one the server's kind of it says
// (hlo_lsp.parsing.file_kinds.detect_kind); side files and other files are neither.
const LANGUAGE_OF_KIND = {
  "hlo-module": "hlo",
  "buffer-assignment": "hlo-buffers",
  "buffer-assignment-values": "hlo-buffers",
  "live-range": "hlo-buffers",
  "memory-usage-report": "hlo-buffers",
};
// Made-up names, with the language VS Code must give them: pass dumps (--xla_dump_hlo_pass_re), a side
// file whose module is named like a stage, files without an extension known by their first line. A `.txt`
// no pattern names is Plain Text whatever its first line: `.txt` is Plain Text's extension, and VS Code
// reads the first line only for a file that no name or extension associates.
const MADE_UP = [
  ["module_0000.jit_f.0007.simplification.after_algsimp.before_dce.txt", "HloModule jit_f\n", "hlo"],
  ["1700000000000000.module_0012.jit_g.cl_5.0042.spmd-partitioning.after_pipeline-start.before_sharding-propagation.txt",
    "HloModule jit_g\n", "hlo"],
  ["module_0001.jit_after_optimizations.cl_7.tpu_comp_env.txt", "xla_tpu_flag: true\n", "plaintext"],
  ["module_0001.jit_after_optimizations.cl_7.hlo_module_config.txt", "debug_options {\n}\n", "plaintext"],
  ["hlo-module-without-extension", "HloModule jit_f, is_scheduled=true\n", "hlo"],
  ["live-range-without-extension", "HloLiveRange (max 3):\n", "hlo-buffers"],
  ["renamed-module.txt", "HloModule jit_f, is_scheduled=true\n", "plaintext"],
];
const NAME = "ynn_fusion.1";
const DEFINITION = `  %${NAME} = f32[32,256]{1,0} fusion(`; // the line that defines it
const USE = `  %add_maximum_fusion = f32[32,256]{1,0} fusion(%${NAME}, `; // a line that uses it
// The hover on the definition, as the server writes it (Markdown) and VS Code renders it.
const HOVER_TEXTS = [
  `<62 ${NAME} @0>`,
  "32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0",
];
// The TPU module after codegen: the hover on %fusion shows the memory space (vmem) and the size its
// buffer has in the compilation's buffer assignment (...after_optimizations-buffer-assignment.txt), under
// the title **fusion** (bold).
const TPU_FILE = `${TPU}.after_codegen.txt`;
const TPU_NAME = "fusion";
const TPU_DEFINITION = `  %${TPU_NAME} = f32[128,512]{1,0:T(8,128)S(1)} fusion(`;
const TPU_HOVER_TEXTS = ["vmem", "262,144 bytes"];

// HLO: Show Memory Timeline, from the server's hlo.memoryTimeline answer for this module.
const TIMELINE_TAB = `Memory: ${MODULE}`; // the webview panel's title
const PEAK_LABEL = "peak 476.0KiB at t=9 (ynn_fusion.1)"; // the peak marker's label in the server's SVG
const PEAK_SUMMARY = "peak 476.0KiB (487,464 bytes) · time 9 (of 0-15) · ynn_fusion.1 · 9 buffers live"; // the panel's header
const ROW_BUFFER = "broadcast_maximum_fusion"; // a row of the table of the buffers live at the peak
const BAR_BUFFER = "add_maximum_fusion"; // a bar of the SVG (not live at the peak: not in the table)
const NO_TIMELINE_FILE = "module_0000.jit_mlp.before_optimizations.txt"; // no buffer assignment: the answer is null
const NO_TIMELINE_TAB = "Memory: module_0000.jit_mlp.before_optimizations";
const NO_TIMELINE_TEXT = "No memory timeline: this module has no live-range information";
// The code lens on the ENTRY line, and the title of the references peek it opens (editor.action.showReferences).
const PEAK_LENS = "9 buffers live at peak";
const PEEK_TITLE = "Locations (9)";
// HLO: Compare Memory With…: A is this module of pair_mlp_narrow, B the folder pair_mlp_wide (the server's
// hlo.compare answer, as `hlo-lsp diff` prints it).
const [COMPARE_A, COMPARE_B] = COMPARE_FOLDERS.map((relative) => path.basename(relative));
const COMPARE_FILE = "module_0000.jit__lambda.cpu_after_optimizations.txt";
const COMPARE_TAB = `↔ ${COMPARE_B}`; // the end of the panel's title
const COMPARE_PEAKS = ["1.28MiB → 17.07MiB", "1,341,744 → 17,899,824"]; // in the pair's summary
const COMPARE_SVG_TITLE = "Memory compared: jit__lambda"; // the heading of the server's SVG
const COMPARE_BUFFER = "copy.3"; // a row of the table: 256.0KiB in A, 4.00MiB in B
const COMPARE_B_TEXT = `%${COMPARE_BUFFER} = f32[1024,1024]`; // its line in B's module
const NOTHING_TO_COMPARE_B = "seeds"; // other programs: no module pairs with A's
const NOTHING_TO_COMPARE_TEXTS = ["Nothing to compare: no module has a memory peak on both sides", "only in A: jit__lambda"];
// The HLO Dumps view: modules of the opened folder with the description of each (its peak, then the folder it is
// in under the opened one), in the order the server sorts them (the largest peak first).
const DUMPS_SECTION = "HLO Dumps Section"; // the aria-label of the view's header
const DUMPS_MODULES = [
  ["jit_step", "2.38MiB peak · producers/jax-0.10.2-tpu/sharded_matmul_2x2"],
  ["jit_mlp", "476.0KiB peak"],
  ["host_offload", "no memory · handwritten"],
];
const DUMPS_EXPANDED = "jit_mlp"; // expanded: its files, and the screenshot
const DUMPS_FILES = [HLO_FILE, `${MODULE}-buffer-assignment.txt`, `${MODULE}-live-range.txt`, "module_0000.jit_mlp.before_optimizations.txt"];
const DUMPS_OPENED_FILE = `${MODULE}-memory-usage-report.txt`; // clicked in the view
// Written into the opened folder once the view lists it: a module the Refresh button brings in, without memory (last).
const DUMPS_ADDED = ["added/module_0099.jit_added.before_optimizations.txt", "jit_added", "no memory · added"];
// Show Memory Timeline from the context menu of a module no step before opens a file of.
const DUMPS_TIMELINE_MODULE = "jit_step";
const DUMPS_TIMELINE_TAB = "Memory: module_0005.jit_step.cl_933746096.after_optimizations";
const DUMPS_TIMELINE_SUMMARY = "peak 2.38MiB (2,490,420 bytes)";
const DUMPS_NOT_RUNNING = "The HLO language server is not running"; // the view's message in step 9

class Failure extends Error {}

async function main() {
  fs.mkdirSync(args.out, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hlo-vscode-e2e-"));
  const folder = path.join(work, "mlp3");
  const userData = path.join(work, "user-data");
  const extensions = path.join(work, "extensions");
  const config = ["--config", path.join(work, "code-server.yaml")]; // not ~/.config/code-server/config.yaml
  // code-server, VS Code and Chromium write logs and caches under the XDG folders: keep them in `work`.
  const env = { ...process.env };
  for (const [name, dir] of [["XDG_CONFIG_HOME", "config"], ["XDG_DATA_HOME", "data"], ["XDG_CACHE_HOME", "cache"]]) {
    env[name] = path.join(work, "xdg", dir);
    fs.mkdirSync(env[name], { recursive: true });
  }
  fs.cpSync(args.dump, folder, { recursive: true });
  for (const relative of PRODUCER_FOLDERS) {
    fs.cpSync(path.join(DATA, relative), path.join(folder, relative), { recursive: true });
  }
  for (const relative of COMPARE_FOLDERS) {
    fs.cpSync(path.join(DATA, relative), path.join(folder, path.basename(relative)), { recursive: true });
  }
  // What the helper extension reads from $HLO_E2E_PROBE: the files whose language step 10 checks (and, in
  // $HLO_E2E_PROBE.copy, the file step 8 copies).
  const probe = path.join(work, "language-probe.json");
  env.HLO_E2E_PROBE = probe;
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings(), null, 2));

  const hloText = fs.readFileSync(path.join(folder, HLO_FILE), "utf8").split("\n");
  const definitionLine = lineOf(hloText, DEFINITION);
  const useLine = lineOf(hloText, USE);
  const entryLine = lineOf(hloText, "ENTRY ");
  const rowLine = lineOf(hloText, `  %${ROW_BUFFER} = `);
  const barLine = lineOf(hloText, `  %${BAR_BUFFER} = `);
  const tpuFile = path.join(folder, PRODUCER_FOLDERS[0], TPU_FILE);
  const tpuLine = lineOf(fs.readFileSync(tpuFile, "utf8").split("\n"), TPU_DEFINITION, TPU_FILE);
  const compareBLine = lineOf(fs.readFileSync(path.join(folder, COMPARE_B, COMPARE_FILE), "utf8").split("\n"),
    `  %${COMPARE_BUFFER} = `, `${COMPARE_B}/${COMPARE_FILE}`);

  const probeVsix = packageProbe(work);
  for (const vsix of [args.vsix, probeVsix]) {
    log(`installing ${path.basename(vsix)} into code-server`);
    const installed = childProcess.spawnSync(
      args.codeServer,
      [...config, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix, "--force"],
      { encoding: "utf8", timeout: WAIT, env },
    );
    if (installed.status !== 0 || !/was successfully installed/.test(installed.stdout)) {
      throw new Failure(`code-server --install-extension failed (status ${installed.status}):\n${installed.stdout}${installed.stderr}`);
    }
  }

  const port = await freePort();
  const serverLog = path.join(args.out, "code-server.log");
  const codeServer = childProcess.spawn(
    args.codeServer,
    [
      ...config, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", userData, "--extensions-dir", extensions,
      "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
      "--disable-getting-started-override", "--disable-proxy", folder,
    ],
    { detached: true, env, stdio: ["ignore", fs.openSync(serverLog, "w"), fs.openSync(serverLog, "a")] },
  );
  let browser;
  let page;
  try {
    await until(`code-server answers on port ${port}`, () => healthy(port), WAIT);
    log(`code-server ${codeServerVersion(env, config)} on 127.0.0.1:${port}, folder ${folder}`);
    browser = await chromium.launch({
      executablePath: args.chromium,
      headless: true,
      env,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
    page.on("pageerror", (error) => log("page error:", error.message));
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: WAIT });
    log("workbench loaded");

    // 1. The language of each file of the module, and of the other producers' files: the status bar
    //    shows its name, the code editor's DOM node its id (the model's languageId).
    const editorLanguage = () => page.locator(".editor-group-container.active .editor-instance[data-mode-id]")
      .first().getAttribute("data-mode-id", { timeout: 2000 }).catch(() => "");
    for (const [file, language] of LANGUAGES) {
      await openFile(page, file);
      const name = LANGUAGE_NAMES[language];
      const shown = await until(`the status bar language of ${file}`, async () => {
        const text = await statusText(page, "status.editor.mode");
        return text === name && (await editorLanguage()) === language ? text : undefined;
      }, 15_000).catch(async () => {
        throw new Failure(`${file} opened as "${await statusText(page, "status.editor.mode")}" ` +
          `(language id ${await editorLanguage()}), expected "${name}" (${language})`);
      });
      log(`language of ${file}: ${shown} (${language})`);
    }

    // 2. Hover on the instruction name where it is defined.
    await hoverOn(page, HLO_FILE, definitionLine, DEFINITION, NAME, HOVER_TEXTS, "vscode-hover.png");

    // 3. Go to definition (F12) from the use of the name on the next line.
    await page.keyboard.press("Escape");
    await page.mouse.move(5, 5);
    const use = await nameOnLine(page, USE, NAME);
    await use.click({ position: { x: 10, y: 5 } });
    await until(`the cursor on line ${useLine + 1}`, async () =>
      (await statusText(page, "status.editor.selection")).startsWith(`Ln ${useLine + 1},`), 10_000);
    log(`cursor before F12: ${await statusText(page, "status.editor.selection")} (the use in %add_maximum_fusion)`);
    await page.keyboard.press("F12");
    const landed = await until(`F12 to move the cursor to line ${definitionLine + 1}`, async () => {
      const selection = await statusText(page, "status.editor.selection");
      return selection.startsWith(`Ln ${definitionLine + 1},`) ? selection : undefined;
    }, 15_000).catch(async (error) => {
      throw new Failure(`${error.message}; the status bar says "${await statusText(page, "status.editor.selection")}"`);
    });
    log(`cursor after F12: ${landed} (the definition of ${NAME})`);

    // 4. HLO: Show Memory Timeline on the HLO file: a webview panel (an iframe in an iframe) beside it.
    await runCommand(page, "HLO: Show Memory Timeline");
    await page.locator(".tabs-container .tab.active", { hasText: TIMELINE_TAB }).first().waitFor({ timeout: 20_000 })
      .catch(() => {
        throw new Failure(`no webview panel "${TIMELINE_TAB}" after HLO: Show Memory Timeline`);
      });
    const webview = page.frameLocator("iframe.webview.ready").first().frameLocator("#active-frame");
    const picture = webview.locator(".timeline");
    const peakLabel = picture.locator("svg text", { hasText: PEAK_LABEL }).last();
    await peakLabel.waitFor({ timeout: 20_000 }).catch(async () => {
      const body = await webview.locator("body").innerText({ timeout: 1000 }).catch(() => "(no webview content)");
      throw new Failure(`the panel shows no SVG with the label "${PEAK_LABEL}"; it says: ${JSON.stringify(normalize(body).slice(0, 500))}`);
    });
    const markup = await picture.innerHTML();
    if (!markup.startsWith("<svg")) {
      throw new Failure(`the panel's picture is not an inline <svg>: ${JSON.stringify(markup.slice(0, 200))}`);
    }
    const summary = normalize(await webview.locator(".summary").innerText());
    if (!summary.startsWith(PEAK_SUMMARY)) {
      throw new Failure(`the panel's summary says ${JSON.stringify(summary)}, expected it to start with ${JSON.stringify(PEAK_SUMMARY)}`);
    }
    log(`memory timeline panel "${TIMELINE_TAB}": <svg> with "${PEAK_LABEL}"; summary: ${summary}`);
    //    A row of the table, then a bar of the SVG: the cursor goes to the buffer's instruction, its name
    //    selected. Without the side bar (more room for the panel in the screenshot); it comes back after.
    const sideBar = page.locator(".part.sidebar");
    await runCommand(page, "View: Toggle Primary Side Bar Visibility");
    await sideBar.waitFor({ state: "hidden", timeout: 5000 });
    const row = webview.locator("table.buffers tbody tr", { has: webview.locator("td.name", { hasText: `${ROW_BUFFER}{}` }) });
    await row.click({ timeout: 5000 });
    await cursorOn(page, rowLine, ROW_BUFFER.length, `a click on the row of ${ROW_BUFFER}{}`);
    await page.waitForTimeout(300);
    const screenshotTimeline = path.join(args.out, "vscode-memory-timeline.png");
    await page.screenshot({ path: screenshotTimeline });
    log(`screenshot: ${screenshotTimeline}`);
    const bar = picture.locator(`g.buffer[data-list="largest"][aria-label="Go to ${BAR_BUFFER}{}"]`);
    await bar.locator("rect").last().click({ timeout: 5000 }).catch(async (error) => {
      throw new Failure(`no clickable bar for ${BAR_BUFFER}{} in the SVG (${error.message.split("\n")[0]})`);
    });
    await cursorOn(page, barLine, BAR_BUFFER.length, `a click on the bar of ${BAR_BUFFER}{}`);
    await runCommand(page, "View: Toggle Primary Side Bar Visibility");
    await sideBar.waitFor({ state: "visible", timeout: 5000 });

    // 5. The code lens "9 buffers live at peak" above the ENTRY line: the references peek with the 9 buffers.
    await openFile(page, HLO_FILE);
    await goToLine(page, entryLine + 1);
    const lens = page.locator(".editor-instance .codelens-decoration a", { hasText: PEAK_LENS }).first();
    await lens.waitFor({ timeout: 20_000 }).catch(async () => {
      const lenses = await page.locator(".editor-instance .codelens-decoration").allInnerTexts().catch(() => []);
      throw new Failure(`no code lens "${PEAK_LENS}" (the lenses shown: ${JSON.stringify(lenses)})`);
    });
    const entryView = page.locator(".editor-instance .view-line").filter({ hasText: /^ENTRY\s/ }).first();
    const box = (locator) => locator.boundingBox({ timeout: 5000 }).catch(() => null);
    const [lensBox, entryBox] = [await box(lens), await box(entryView)];
    const gap = lensBox && entryBox ? entryBox.y - (lensBox.y + lensBox.height) : NaN; // lens bottom to line top
    if (process.env.E2E_DEBUG) {
      log(`lens ${JSON.stringify(lensBox)}, ENTRY line ${JSON.stringify(entryBox)}, gap ${gap}`);
    }
    if (!(gap >= -1 && gap < entryBox.height / 2)) {
      throw new Failure(`the code lens "${PEAK_LENS}" is not right above the ENTRY line (lens ${JSON.stringify(lensBox)}, line ${JSON.stringify(entryBox)})`);
    }
    await lens.click();
    const peek = page.locator(".peekview-widget.reference-zone-widget").first();
    const peekTitle = await until(`the references peek "${PEEK_TITLE}"`, async () => {
      const title = normalize(await peek.locator(".peekview-title").innerText({ timeout: 1000 }));
      return title.includes(PEEK_TITLE) ? title.replace(/\n/g, " | ") : undefined;
    }, 15_000).catch(async (error) => {
      const title = await peek.locator(".peekview-title").innerText({ timeout: 1000 }).catch(() => "(no peek widget)");
      throw new Failure(`${error.message}; a click on the lens "${PEAK_LENS}" shows ${JSON.stringify(normalize(title))}`);
    });
    log(`code lens "${PEAK_LENS}": references peek "${peekTitle}"`);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(args.out, "vscode-peak-buffers.png") });
    await page.keyboard.press("Escape");
    //    A module without a buffer assignment (the server answers null): the panel says why.
    await openFile(page, NO_TIMELINE_FILE);
    await runCommand(page, "HLO: Show Memory Timeline");
    await page.locator(".tabs-container .tab.active", { hasText: NO_TIMELINE_TAB }).first().waitFor({ timeout: 20_000 })
      .catch(() => {
        throw new Failure(`no webview panel "${NO_TIMELINE_TAB}" after HLO: Show Memory Timeline on ${NO_TIMELINE_FILE}`);
      });
    const why = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame")
      .locator(".why", { hasText: NO_TIMELINE_TEXT });
    await why.waitFor({ timeout: 20_000 }).catch(() => {
      throw new Failure(`HLO: Show Memory Timeline on ${NO_TIMELINE_FILE} does not say "${NO_TIMELINE_TEXT}"`);
    });
    log(`memory timeline of ${NO_TIMELINE_FILE}: ${normalize(await why.innerText()).slice(0, 80)}…`);

    // 6. Hover on an instruction of the TPU module after codegen: its memory, from the compilation's
    //    buffer assignment (written for the module after optimizations, whose names it keeps). In one editor
    //    group again (the timeline panels opened beside), for the screenshot.
    await runCommand(page, "View: Close All Editor Groups");
    await hoverOn(page, TPU_FILE, tpuLine, TPU_DEFINITION, TPU_NAME, TPU_HOVER_TEXTS, "vscode-tpu-hover.png",
      `**${TPU_NAME}**`);

    // 7. HLO: Compare Memory With… on pair_mlp_narrow's module, B picked in the QuickPick: pair_mlp_wide, then
    //    seeds (nothing to compare).
    await compareMemory(page, compareBLine);
    await nothingToCompare(page);

    // 8. The HLO Dumps view: the modules of the folder, a module's files, its memory timeline from its context menu.
    await dumpsView(page, folder, probe);

    // 9. A server that cannot start: set hlo.server.path to a missing file in the Settings editor (Remote
    //    tab: code-server is a remote window, where machine-overridable settings live); the change
    //    restarts the server, and the error says why and how to install it (the HLO Dumps view, that it is
    //    not running). Its Open Settings button shows the hlo.server settings; HLO: Show Server Output shows
    //    the client's log.
    const missing = path.join(work, "no-such-dir", "hlo-lsp");
    await runCommand(page, "Preferences: Open Remote Settings");
    const pathSetting = page.locator(".settings-editor .setting-item-contents", { hasText: "Server: Path" }).first();
    await until("the hlo.server.path setting in the Settings editor", async () => {
      await page.locator(".settings-editor .suggest-input-container").first().click({ timeout: 2000 });
      await page.keyboard.press("Control+A");
      await page.keyboard.type("hlo.server.path");
      await pathSetting.waitFor({ timeout: 3000 });
      return true;
    }, WAIT);
    await pathSetting.locator("input").first().fill(missing);
    const toast = page.locator(".notification-toast", { hasText: `hlo.server.path is "${missing}"` }).first();
    await toast.waitFor({ timeout: 20_000 }).catch(() => {
      throw new Failure(`no error notification after setting hlo.server.path to ${missing}`);
    });
    const message = normalize(await toast.locator(".notification-list-item-message").innerText());
    if (!message.includes("pipx install")) {
      throw new Failure(`the error notification does not say how to install the server: ${JSON.stringify(message)}`);
    }
    log(`error notification: ${message}`);
    const dumpsMessage = page.locator(".part.sidebar .pane")
      .filter({ has: page.locator(`.pane-header[aria-label="${DUMPS_SECTION}"]`) }).locator(".message");
    await dumpsMessage.filter({ hasText: DUMPS_NOT_RUNNING }).waitFor({ timeout: 10_000 }).catch(async () => {
      const said = await dumpsMessage.innerText({ timeout: 1000 }).catch(() => "(no message)");
      throw new Failure(`the HLO Dumps view does not say "${DUMPS_NOT_RUNNING}": ${JSON.stringify(normalize(said))}`);
    });
    log(`the HLO Dumps view says: ${DUMPS_NOT_RUNNING}`);
    await page.screenshot({ path: path.join(args.out, "vscode-server-missing.png") });
    // Close the Settings editor (its tab's close button), so that Open Settings has to open it again.
    const settingsTab = page.locator(".tabs-container .tab", { hasText: "Settings" }).first();
    await settingsTab.hover();
    await settingsTab.locator(".codicon-close").click({ timeout: 5000 });
    await page.locator(".settings-editor").waitFor({ state: "hidden", timeout: 5000 });
    if (process.env.E2E_DEBUG) {
      log(`toasts before Open Settings: ${JSON.stringify(await page.locator(".notification-toast").allInnerTexts())}`);
    }
    await toast.hover();
    await toast.getByRole("button", { name: "Open Settings" }).click();
    if (process.env.E2E_DEBUG) {
      await page.waitForTimeout(2000);
      log(`after Open Settings: toasts ${JSON.stringify(await page.locator(".notification-toast").allInnerTexts())}`);
      await page.screenshot({ path: path.join(args.out, "debug-open-settings.png") });
    }
    await until('Open Settings to show the "hlo.server" settings', async () => {
      const query = normalize(await page.locator(".settings-editor .suggest-input-container .view-line").first()
        .innerText({ timeout: 2000 }));
      return query === "hlo.server" && (await pathSetting.isVisible());
    }, 10_000);
    log('Open Settings: the Settings editor shows "hlo.server" with Server: Path');
    await runCommand(page, "HLO: Show Server Output");
    await page.locator(".output-view .view-line", { hasText: `hlo.server.path is "${missing}"` }).first()
      .waitFor({ timeout: 10_000 }).catch(() => {
        throw new Failure("HLO: Show Server Output did not show the client's log");
      });
    log("HLO: Show Server Output shows the log");

    // 10. The language of every bundled file, and of the made-up names, through the helper extension (with
    //     the server stopped by step 9: it would read every module opened).
    await languageOfEveryFile(page, work, probe);
    log("PASS");
    if (process.env.E2E_DEBUG) {
      copyLogs(userData);
    }
  } catch (error) {
    if (page) {
      const failed = path.join(args.out, "vscode-failure.png");
      await page.screenshot({ path: failed }).catch(() => undefined);
      console.error(`screenshot of the failure: ${failed}`);
    }
    reportLogs(userData, serverLog);
    throw error;
  } finally {
    await Promise.race([browser?.close(), new Promise((resolve) => setTimeout(resolve, 5000))]).catch(() => undefined);
    stop(codeServer);
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 3 });
  }
}

function settings() {
  return {
    "hlo.server.path": args.server,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.commandCenter.enabled": false,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "git.enabled": false,
    "editor.hover.delay": 200,
    "editor.minimap.enabled": false,
    "explorer.autoReveal": false, // the explorer keeps the copied producers' folders closed
    "window.restoreWindows": "none",
    ...(process.env.E2E_DEBUG ? { "hlo.trace.server": "messages" } : {}),
  };
}

/** Quick Open (Ctrl+P), type the file name (after `folder/` when given: a name of several folders), Enter once
 * the focused row is exactly that file (in `folder`); retried (a key press can be lost while the workbench
 * settles, and rows move while results stream in). */
async function openFile(page, file, folder) {
  const tab = page.locator(".tabs-container .tab.active", { hasText: file });
  const focusedFolder = page.locator(".quick-input-list .monaco-list-row.focused .label-description");
  const inFolder = async () => !folder || normalize(await focusedFolder.innerText({ timeout: 1000 })) === folder;
  await until(`the editor to open ${file}`, async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    try {
      await input.waitFor({ state: "visible", timeout: 3000 });
    } catch {
      return false;
    }
    await input.fill(folder ? `${folder}/${file}` : file);
    const focused = page.locator(".quick-input-list .monaco-list-row.focused .label-name");
    try {
      await until(`${file} first in Quick Open`, async () =>
        (await focused.innerText({ timeout: 1000 })) === file && (await inFolder()), 5000);
      await page.waitForTimeout(200); // let late results settle, then check again
      if ((await focused.innerText({ timeout: 1000 })) !== file || !(await inFolder())) {
        return false;
      }
      await page.keyboard.press("Enter");
      await tab.waitFor({ timeout: 5000 });
    } catch (error) {
      if (process.env.E2E_DEBUG) {
        const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts().catch(() => []);
        log(`open ${file}: ${error.message.split("\n")[0]}; rows ${JSON.stringify(rows)}`);
      }
      return false;
    }
    return true;
  }, WAIT);
  await page.locator(".editor-instance .monaco-editor .view-lines").first().waitFor({ timeout: WAIT });
}

/** Step 7: HLO: Compare Memory With… on COMPARE_FILE of COMPARE_A, COMPARE_B picked in the QuickPick (which
 * does not offer A's own folder). The panel shows the peaks A → B, the server's SVG and a row for
 * COMPARE_BUFFER; a click on that row's B cell selects the buffer's instruction in B's module (at `bLine`,
 * 0-based). */
async function compareMemory(page, bLine) {
  await openFile(page, COMPARE_FILE, COMPARE_A);
  await runCommand(page, "HLO: Compare Memory With…");
  const offered = await quickPickRows(page, "pair_mlp");
  if (offered.some((row) => row.includes(COMPARE_A)) || !offered.some((row) => row.startsWith(COMPARE_B)) ||
      !offered.some((row) => row.startsWith("Browse…"))) {
    throw new Failure(`for "pair_mlp" the QuickPick offers ${JSON.stringify(offered)}: expected ${COMPARE_B} and ` +
      `Browse…, not ${COMPARE_A}`);
  }
  log(`HLO: Compare Memory With… offers for "pair_mlp": ${JSON.stringify(offered)}`);
  await pickInQuickPick(page, COMPARE_B);
  await page.locator(".tabs-container .tab.active", { hasText: COMPARE_TAB }).first().waitFor({ timeout: WAIT })
    .catch(() => {
      throw new Failure(`no webview panel "Memory: … ${COMPARE_TAB}" after HLO: Compare Memory With…`);
    });
  const webview = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame");
  const summary = webview.locator("section.pair .summary").first();
  await summary.waitFor({ timeout: 20_000 }).catch(async () => {
    const body = await webview.locator("body").innerText({ timeout: 1000 }).catch(() => "(no webview content)");
    throw new Failure(`the comparison panel shows no pair; it says: ${JSON.stringify(normalize(body).slice(0, 500))}`);
  });
  const said = normalize(await summary.innerText());
  if (!COMPARE_PEAKS.every((peaks) => said.includes(peaks))) {
    throw new Failure(`the comparison's summary says ${JSON.stringify(said)}, expected ${JSON.stringify(COMPARE_PEAKS)}`);
  }
  const picture = webview.locator(".picture").first();
  await picture.locator("svg text", { hasText: COMPARE_SVG_TITLE }).first().waitFor({ timeout: 5000 }).catch(() => {
    throw new Failure(`the comparison panel shows no SVG with "${COMPARE_SVG_TITLE}"`);
  });
  const markup = await picture.innerHTML();
  if (!markup.startsWith("<svg")) {
    throw new Failure(`the comparison's picture is not an inline <svg>: ${JSON.stringify(markup.slice(0, 200))}`);
  }
  const bCell = webview.locator("table.changes tbody tr td.side.b", {
    has: webview.locator(".name", { hasText: new RegExp(`^${escapeRegExp(COMPARE_BUFFER)}\\{\\}$`) }),
  }).first();
  const row = normalize(await bCell.locator("xpath=..").innerText({ timeout: 5000 }).catch(() => {
    throw new Failure(`the comparison's table has no row whose B is ${COMPARE_BUFFER}{}`);
  }));
  log(`comparison panel: ${said.split("\n")[0]}; <svg> with "${COMPARE_SVG_TITLE}"; the row of ${COMPARE_BUFFER}: ${row}`);
  //    Without the side bar (more room for the panel in the screenshot); it comes back after.
  const sideBar = page.locator(".part.sidebar");
  await runCommand(page, "View: Toggle Primary Side Bar Visibility");
  await sideBar.waitFor({ state: "hidden", timeout: 5000 });
  await bCell.click({ timeout: 5000 });
  await cursorOn(page, bLine, COMPARE_BUFFER.length, `a click on the B cell of ${COMPARE_BUFFER}{}`);
  const bLineShown = page.locator(".editor-group-container.active .view-line", { hasText: COMPARE_B_TEXT });
  await bLineShown.first().waitFor({ timeout: 5000 }).catch(() => {
    throw new Failure(`the editor shows no line "${COMPARE_B_TEXT}": the click did not open ${COMPARE_B}'s module`);
  });
  log(`a click on the B cell of ${COMPARE_BUFFER}{} opened ${COMPARE_B}/${COMPARE_FILE} at "${COMPARE_B_TEXT}"`);
  await comparisonScreenshot(page, webview);
  await runCommand(page, "View: Toggle Primary Side Bar Visibility");
  await sideBar.waitFor({ state: "visible", timeout: 5000 });
}

/** <out>/vscode-compare.png, taller than the window: the pair's summary, its picture and the first rows of
 * the table at once. */
async function comparisonScreenshot(page, webview) {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: viewport.width, height: 1300 });
  await webview.locator("section.pair h2").first().evaluate((heading) => heading.scrollIntoView({ block: "start" }));
  await webview.locator(".table").first().evaluate((table) => (table.scrollLeft = 0)); // the click scrolled to the B cell
  await page.waitForTimeout(500);
  const screenshot = path.join(args.out, "vscode-compare.png");
  await page.screenshot({ path: screenshot });
  log(`screenshot: ${screenshot}`);
  await page.setViewportSize(viewport);
}

/** Step 7, against a folder of other programs' modules (NOTHING_TO_COMPARE_B): nothing pairs, and the panel
 * says why. */
async function nothingToCompare(page) {
  await openFile(page, COMPARE_FILE, COMPARE_A);
  await runCommand(page, "HLO: Compare Memory With…");
  await pickInQuickPick(page, NOTHING_TO_COMPARE_B);
  await page.locator(".tabs-container .tab.active", { hasText: `↔ ${NOTHING_TO_COMPARE_B}` }).first()
    .waitFor({ timeout: WAIT }).catch(() => {
      throw new Failure(`no webview panel "Memory: … ↔ ${NOTHING_TO_COMPARE_B}" after HLO: Compare Memory With…`);
    });
  const why = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame").locator("body");
  const nothing = await until(`the panel to say ${JSON.stringify(NOTHING_TO_COMPARE_TEXTS)}`, async () => {
    const text = normalize(await why.innerText({ timeout: 1000 }));
    return NOTHING_TO_COMPARE_TEXTS.every((expected) => text.includes(expected)) ? text : undefined;
  }, 20_000).catch(async (error) => {
    const text = await why.innerText({ timeout: 1000 }).catch(() => "(no webview content)");
    throw new Failure(`${error.message}; it says ${JSON.stringify(normalize(text).slice(0, 500))}`);
  });
  log(`compared with ${NOTHING_TO_COMPARE_B}: ${nothing.split("\n").find((line) => line.startsWith("Nothing")).slice(0, 160)}…`);
  if (process.env.E2E_DEBUG) {
    await page.screenshot({ path: path.join(args.out, "debug-compare-nothing.png") });
  }
}

/** Step 8: the HLO Dumps view in the Explorer, alone in it (the folder's section collapsed) and wider (room for
 * the descriptions): its modules and their peaks, a module's files (<out>/vscode-dumps.png) and a click on one, a
 * module written into the folder after Refresh, Show Memory Timeline from a module's context menu. */
async function dumpsView(page, folder, probe) {
  await runCommand(page, "View: Show Explorer");
  const header = page.locator(`.part.sidebar .pane-header[aria-label="${DUMPS_SECTION}"]`);
  await header.waitFor({ timeout: WAIT }).catch(() => {
    throw new Failure(`the Explorer has no section "${DUMPS_SECTION}"`);
  });
  await setExpanded(header, true);
  await setExpanded(page.locator('.part.sidebar .pane-header[aria-label^="Explorer Section"]'), false);
  await resizeSideBar(page, 520);
  const view = page.locator(".part.sidebar .pane").filter({ has: page.locator(`.pane-header[aria-label="${DUMPS_SECTION}"]`) });
  await listedModules(view);
  await moduleFiles(page, view);
  await addedModule(page, view, header, folder, probe);
  await timelineFromContextMenu(page, view);
  await runCommand(page, "View: Close All Editor Groups");
}

/** The modules DUMPS_MODULES with their descriptions, in that order. */
async function listedModules(view) {
  const rows = await treeRowsShowing(view, DUMPS_MODULES.map(([name]) => name), "the modules of the opened folder");
  const order = DUMPS_MODULES.map(([name, description]) => {
    const row = rows.find((shown) => shown.name === name);
    if (row.description !== description) {
      throw new Failure(`the HLO Dumps view describes ${name} as ${JSON.stringify(row.description)}, expected ${JSON.stringify(description)}`);
    }
    return row.index;
  });
  if (order.some((index, at) => at > 0 && index < order[at - 1])) {
    throw new Failure(`the HLO Dumps view lists ${JSON.stringify(rows.map((row) => row.name))}: not the largest peak first`);
  }
  log(`HLO Dumps view: ${rows.length} modules, ${rows.slice(0, 4).map((row) => `${row.name} (${row.description})`).join(", ")}, …; ` +
    DUMPS_MODULES.map(([name, description]) => `${name} (${description})`).join(", "));
}

/** DUMPS_EXPANDED expanded by its twistie (a click on its name shows its timeline): its files; the screenshot;
 * a click on one of them opens it. */
async function moduleFiles(page, view) {
  await treeRow(view, DUMPS_EXPANDED).locator(".monaco-tl-twistie").click();
  const rows = await treeRowsShowing(view, DUMPS_FILES, `the files of ${DUMPS_EXPANDED}`);
  const files = rows.filter((row) => row.name.startsWith(MODULE.split(".").slice(0, 2).join(".")));
  log(`${DUMPS_EXPANDED} expanded: ${files.length} files, ${files.map((row) => row.name).join(", ")}`);
  await page.mouse.move(5, 5); // no hover highlight in the screenshot
  await page.waitForTimeout(300);
  // The side bar and a strip of the editor, down to a little below the view's last row.
  const sideBar = await page.locator(".part.sidebar").boundingBox();
  const lastRow = Math.max(...await view.locator(".monaco-list-row").evaluateAll((elements) =>
    elements.map((row) => row.getBoundingClientRect().bottom)));
  const height = Math.min(page.viewportSize().height, Math.ceil(lastRow) + 60);
  const screenshot = path.join(args.out, "vscode-dumps.png");
  await page.screenshot({ path: screenshot, clip: { x: 0, y: 0, width: sideBar.x + sideBar.width + 40, height } });
  log(`screenshot: ${screenshot}`);
  await treeRow(view, DUMPS_OPENED_FILE).click();
  await page.locator(".tabs-container .tab.active", { hasText: DUMPS_OPENED_FILE }).first().waitFor({ timeout: 10_000 }).catch(() => {
    throw new Failure(`a click on ${DUMPS_OPENED_FILE} in the HLO Dumps view did not open it`);
  });
  log(`a click on ${DUMPS_OPENED_FILE} opened it`);
}

/** A module written into the folder (through VS Code's file service: the OS's watcher may be silent in the test's
 * code-server): listed without a click (VS Code reports the new file to the server, which sends
 * hlo/modulesChanged, and the view lists again), and still listed after the view's Refresh button. */
async function addedModule(page, view, header, folder, probe) {
  const [added, name, description] = DUMPS_ADDED;
  const copy = { from: path.join(folder, "module_0000.jit_mlp.before_optimizations.txt"), to: path.join(folder, added) };
  fs.mkdirSync(path.dirname(copy.to), { recursive: true });
  fs.writeFileSync(`${probe}.copy`, JSON.stringify(copy));
  await runCommand(page, "HLO e2e: Copy File Through VS Code");
  const describedAs = async (when) => {
    const [row] = (await treeRowsShowing(view, [name], `${added} ${when}`)).filter((shown) => shown.name === name);
    if (row.description !== description) {
      throw new Failure(`the HLO Dumps view describes ${name} as ${JSON.stringify(row.description)}, expected ${JSON.stringify(description)}`);
    }
    return row.description;
  };
  log(`after writing ${added}, with no click (hlo/modulesChanged): ${name} (${await describedAs("once written")})`);
  await header.hover();
  await header.locator('.action-label[aria-label="Refresh HLO Dumps"]').click({ timeout: 5000 });
  log(`after Refresh: ${name} (${await describedAs("after Refresh")})`);
}

/** Show Memory Timeline in the context menu of DUMPS_TIMELINE_MODULE, none of whose files is open: the panel of
 * the module (the server reads it from disk). */
async function timelineFromContextMenu(page, view) {
  await treeRow(view, DUMPS_TIMELINE_MODULE).click({ button: "right" });
  const item = page.locator(".context-view .monaco-menu .action-menu-item", { hasText: "Show Memory Timeline" }).first();
  await item.waitFor({ timeout: 5000 }).catch(() => {
    throw new Failure(`the context menu of ${DUMPS_TIMELINE_MODULE} in the HLO Dumps view has no "Show Memory Timeline"`);
  });
  const items = normalize((await page.locator(".context-view .monaco-menu").first().innerText()).replace(/\n+/g, " | "));
  // A press and release at once on a menu that just opened can go unnoticed: a human-like click, until it closes.
  const menu = page.locator(".context-view .monaco-menu").first();
  await until(`"Show Memory Timeline" in the context menu to be clicked`, async () => {
    await item.click({ timeout: 2000, delay: 80 });
    await menu.waitFor({ state: "hidden", timeout: 2000 });
    return true;
  }, 20_000);
  await page.locator(".tabs-container .tab.active", { hasText: DUMPS_TIMELINE_TAB }).first().waitFor({ timeout: 20_000 }).catch(() => {
    throw new Failure(`no webview panel "${DUMPS_TIMELINE_TAB}" after Show Memory Timeline on ${DUMPS_TIMELINE_MODULE}`);
  });
  const summary = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame").locator(".summary");
  const said = normalize(await summary.innerText({ timeout: 20_000 }).catch(() => ""));
  if (!said.startsWith(DUMPS_TIMELINE_SUMMARY)) {
    throw new Failure(`the timeline of ${DUMPS_TIMELINE_MODULE} says ${JSON.stringify(said)}, expected it to start with ${JSON.stringify(DUMPS_TIMELINE_SUMMARY)}`);
  }
  log(`context menu of ${DUMPS_TIMELINE_MODULE}: ${items}; Show Memory Timeline: "${DUMPS_TIMELINE_TAB}", ${said}`);
}

/** Clicks a view section's header until it is expanded (or collapsed). */
async function setExpanded(header, expanded) {
  await until(`the section ${await header.getAttribute("aria-label")} ${expanded ? "expanded" : "collapsed"}`, async () => {
    if ((await header.getAttribute("aria-expanded")) === String(expanded)) {
      return true;
    }
    await header.click({ position: { x: 40, y: 8 }, timeout: 2000 });
    return false;
  }, 10_000);
}

/** Drags the side bar's edge so that it is `width` pixels wide. */
async function resizeSideBar(page, width) {
  const box = await page.locator(".part.sidebar").boundingBox();
  const edge = box.x + box.width;
  await page.mouse.move(edge, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + width, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
}

function treeRow(view, name) {
  return view.locator(".monaco-list-row", { has: view.page().locator(".label-name", { hasText: new RegExp(`^${escapeRegExp(name)}$`) }) }).first();
}

/** The rows {name, description, index} of a tree view once it shows each of `names`. */
async function treeRowsShowing(view, names, what) {
  const read = () => view.locator(".monaco-list-row").evaluateAll((elements) => elements.map((row) => ({
    name: row.querySelector(".label-name")?.textContent.trim() ?? "",
    description: row.querySelector(".label-description")?.textContent.replace(/\s+/g, " ").trim() ?? "",
    index: Number(row.getAttribute("data-index")),
  })).sort((a, b) => a.index - b.index));
  return until(`the HLO Dumps view to show ${what}`, async () => {
    const rows = await read();
    return names.every((name) => rows.some((row) => row.name === name)) ? rows : undefined;
  }, WAIT).catch(async (error) => {
    const rows = await read().catch(() => []);
    const message = await view.locator(".message").innerText({ timeout: 1000 }).catch(() => "");
    throw new Failure(`${error.message}; it shows ${JSON.stringify(rows.map((row) => `${row.name} (${row.description})`))}` +
      `${message ? `, the message ${JSON.stringify(normalize(message))}` : ""}`);
  });
}

/** The rows (label, description) the open QuickPick shows once `filter` is typed, when they no longer change. */
async function quickPickRows(page, filter) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: WAIT });
  await input.fill(filter, { timeout: 2000 });
  const rows = page.locator(".quick-input-list .monaco-list-row");
  let last = "";
  return until(`the QuickPick's rows for "${filter}"`, async () => {
    const shown = await rows.evaluateAll((elements) => elements.map((row) =>
      [...row.querySelectorAll(".label-name, .label-description")].map((part) => part.textContent.trim())
        .filter((part) => part).join(" · ")));
    const same = shown.length > 0 && JSON.stringify(shown) === last;
    last = JSON.stringify(shown);
    return same ? shown : undefined;
  }, 20_000);
}

/** Types `label` into the open QuickPick and picks the row of that label (Enter once it is the focused one). */
async function pickInQuickPick(page, label) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: WAIT });
  const focused = page.locator(".quick-input-list .monaco-list-row.focused .label-name");
  await until(`"${label}" first in the QuickPick`, async () => {
    await input.fill(label, { timeout: 2000 });
    return normalize(await focused.innerText({ timeout: 1000 })) === label;
  }, 20_000).catch(async (error) => {
    const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts().catch(() => []);
    throw new Failure(`${error.message}; the rows: ${JSON.stringify(rows.map(normalize))}`);
  });
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: 5000 });
}

/** Opens `file` at `line` (0-based) and hovers the name `name` on it (the line starts like `lineText`) until
 * the hover shows each of `texts`, and `title` (Markdown `**name**`) in bold when given; then a screenshot
 * to <out>/`screenshot`. */
async function hoverOn(page, file, line, lineText, name, texts, screenshot, title) {
  await openFile(page, file);
  await goToLine(page, line + 1);
  const token = await nameOnLine(page, lineText, name);
  const hover = page.locator(".monaco-hover:not(.hidden)");
  const bold = title && title.replace(/^\*\*(.*)\*\*$/, "$1"); // what VS Code renders in <strong>
  const wanted = JSON.stringify(title ? [title, ...texts] : texts);
  const text = await until(`a hover on ${name} that shows ${wanted}`, async () => {
    // (Re)hover: the first hover can come before the server has read the dump.
    await page.mouse.move(5, 5);
    await token.hover({ position: { x: 10, y: 5 }, timeout: 5000 });
    try {
      await hover.filter({ hasText: texts[0] }).first().waitFor({ timeout: 4000 });
    } catch {
      return undefined;
    }
    const shown = normalize(await hover.first().innerText());
    const titled = !title || (await hover.first().locator("strong").allInnerTexts()).map(normalize).includes(bold);
    return titled && texts.every((expected) => shown.includes(expected)) ? shown : undefined;
  }, WAIT).catch(async (error) => {
    const shown = await hover.first().innerText({ timeout: 1000 }).catch(() => "(no hover)");
    throw new Failure(`${error.message}\nthe hover shows: ${JSON.stringify(normalize(shown))}`);
  });
  log(`hover on ${name} in ${file}:\n    ` + text.split("\n").join("\n    "));
  // Let the hover's fade-in animation finish before the screenshot.
  await page.waitForFunction(() => {
    const shown = document.querySelector(".monaco-hover:not(.hidden)");
    return shown && shown.getAnimations({ subtree: true }).every((animation) => animation.playState !== "running");
  }, null, { timeout: 5000 }).catch(() => undefined);
  await page.waitForTimeout(500);
  const shot = path.join(args.out, screenshot);
  await page.screenshot({ path: shot });
  log(`screenshot: ${shot}`);
}

/** Step 10: the language VS Code gives every file of tests/data (and ../shared/producers, ../shared/corpus),
 * against the kind the server's detect_kind gives it, and that of the made-up names. The helper extension's
 * command opens each file with workspace.openTextDocument (VS Code picks the language as for an editor:
 * settings, then the registered file names, patterns and extensions, then first lines) and writes the
 * language ids to <probe>.out. */
async function languageOfEveryFile(page, work, probe) {
  const files = [DATA, ...SHARED].flatMap((root) => [...walk(root)]).sort();
  const kinds = serverKinds(files);
  const madeUp = path.join(work, "made-up");
  fs.mkdirSync(madeUp);
  for (const [name, text] of MADE_UP) {
    fs.writeFileSync(path.join(madeUp, name), text);
  }
  const expected = new Map([
    ...files.map((file) => [file, LANGUAGE_OF_KIND[kinds[file]] || `neither (${kinds[file]})`]),
    ...MADE_UP.map(([name, , language]) => [path.join(madeUp, name), language]),
  ]);
  fs.writeFileSync(probe, JSON.stringify([...expected.keys()]));
  await runCommand(page, "HLO e2e: Language of Each File");
  const languages = await until(`the helper extension to write ${probe}.out`, async () =>
    fs.existsSync(`${probe}.out`) && JSON.parse(fs.readFileSync(`${probe}.out`, "utf8")), 120_000);
  const wrong = [];
  const counts = {};
  for (const [file, want] of expected) {
    const got = languages[file];
    const ok = want.startsWith("neither") ? got !== "hlo" && got !== "hlo-buffers" : got === want;
    if (!ok) {
      wrong.push(`${file.startsWith(madeUp) ? `(made up) ${path.basename(file)}` : path.relative(ROOT, file)}: ${got}, expected ${want}`);
    }
    counts[got] = (counts[got] || 0) + 1;
  }
  if (wrong.length) {
    throw new Failure(`${wrong.length} of ${expected.size} files open with the wrong language:\n  ${wrong.join("\n  ")}`);
  }
  const byKind = {};
  for (const kind of Object.values(kinds)) {
    byKind[kind] = (byKind[kind] || 0) + 1;
  }
  log(`language of every file of ${[DATA, ...SHARED].map((root) => path.relative(ROOT, root)).join(", ")} ` +
    `(${files.length}: ${JSON.stringify(byKind)}) and of ${MADE_UP.length} made-up names as the server's kinds say: ` +
    JSON.stringify(counts));
}

/** The kind the server's detect_kind gives each file, with the Python of the --server command's environment. */
function serverKinds(files) {
  const python = path.join(path.dirname(args.server), "python");
  const script = `import json, sys
from pathlib import Path
from hlo_lsp.parsing.file_kinds import detect_kind
paths = json.load(sys.stdin)
print(json.dumps({p: detect_kind(Path(p).name, Path(p).read_bytes()[:65536].decode("utf-8", "replace")).value
                  for p in paths}))`;
  const result = childProcess.spawnSync(python, ["-c", script], { input: JSON.stringify(files), encoding: "utf8",
    timeout: WAIT, maxBuffer: 64 << 20 });
  if (result.status !== 0) {
    throw new Failure(`${python} could not read the files' kinds (status ${result.status}):\n${result.stderr}`);
  }
  return JSON.parse(result.stdout);
}

/** Packages the helper extension language-probe/ into a .vsix in `work`, with the extension's own vsce. */
function packageProbe(work) {
  const vsix = path.join(work, "language-probe.vsix");
  const vsce = path.join(__dirname, "..", "..", "node_modules", ".bin", "vsce");
  const packaged = childProcess.spawnSync(vsce,
    ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "--out", vsix],
    { cwd: path.join(__dirname, "language-probe"), encoding: "utf8", timeout: WAIT });
  if (packaged.status !== 0 || !fs.existsSync(vsix)) {
    throw new Failure(`vsce package of language-probe failed (status ${packaged.status}):\n${packaged.stdout}${packaged.stderr}`);
  }
  return vsix;
}

/** Runs a command from the Command Palette (F1), by its title. */
async function runCommand(page, title) {
  await until(`the command "${title}"`, async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    try {
      await input.waitFor({ state: "visible", timeout: 3000 });
      await input.fill(`>${title}`, { timeout: 2000 });
      const focused = page.locator(".quick-input-list .monaco-list-row.focused .label-name");
      await until(`"${title}" first in the Command Palette`, async () =>
        normalize(await focused.innerText({ timeout: 1000 })).startsWith(title), 5000);
    } catch {
      return false;
    }
    await page.keyboard.press("Enter");
    return true;
  }, WAIT);
}

/** Ctrl+G, line number, Enter (the editor has the focus after Quick Open): brings the line into view. */
async function goToLine(page, line) {
  await until(`Go to Line ${line}`, async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+G");
    const input = page.locator(".quick-input-widget input");
    try {
      await input.waitFor({ state: "visible", timeout: 3000 });
      await input.fill(`:${line}`, { timeout: 2000 });
    } catch {
      return false;
    }
    await page.keyboard.press("Enter");
    return (await statusText(page, "status.editor.selection")).startsWith(`Ln ${line},`);
  }, WAIT);
}

/** The token of `name` on the visible editor line that starts like `lineText` (up to its " = ": the
 * server's inlay hints go after the shape). Theme-independent: tokens of the same colour may share a
 * span, so take the first span that starts with the name (with or without its %). */
async function nameOnLine(page, lineText, name) {
  const head = lineText.slice(0, lineText.indexOf(" = ") + 3).trim();
  const line = page.locator(".editor-instance .view-line").filter({ hasText: head }).first();
  await line.waitFor({ timeout: WAIT });
  const span = line.locator("span > span").filter({ hasText: new RegExp(`^%?${escapeRegExp(name)}$`) }).first();
  await span.waitFor({ timeout: 5000 }).catch(async () => {
    throw new Failure(`no token ${name} on the line ${JSON.stringify(head)}: ${await line.innerHTML()}`);
  });
  return span;
}

/** Waits for the status bar to show `selected` characters selected on `line` (0-based), from column 4 (a name after "  %"). */
async function cursorOn(page, line, selected, what) {
  const expected = `Ln ${line + 1}, Col ${4 + selected} (${selected} selected)`; // the cursor after the name
  const shown = await until(`${what} to select ${expected}`, async () => {
    const selection = await statusText(page, "status.editor.selection");
    return selection === expected ? selection : undefined;
  }, 10_000).catch(async (error) => {
    throw new Failure(`${error.message}; the status bar says "${await statusText(page, "status.editor.selection")}"`);
  });
  log(`${what}: the cursor is at ${shown}`);
}

async function statusText(page, id) {
  const item = page.locator(`.statusbar-item[id="${id}"]`);
  return normalize(await item.innerText({ timeout: 2000 }).catch(() => ""));
}

/** Polls `probe` until it returns something truthy; throws a Failure naming `what` after `ms`. */
async function until(what, probe, ms) {
  const deadline = Date.now() + ms;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) {
        return value;
      }
    } catch (error) {
      if (error instanceof Failure) {
        throw error;
      }
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Failure(`timed out after ${ms / 1000} s waiting for ${what}${lastError ? ` (last error: ${lastError.message.split("\n")[0]})` : ""}`);
}

function healthy(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("connect", () => {
      socket.write(`GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`);
    });
    let reply = "";
    socket.on("data", (chunk) => (reply += chunk));
    socket.on("end", () => resolve(/^HTTP\/1\.[01] 200/.test(reply)));
    socket.on("error", () => resolve(false));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function codeServerVersion(env, config) {
  return childProcess.execFileSync(args.codeServer, [...config, "--version"], { encoding: "utf8", env }).split("\n")[0];
}

/** Stops code-server and everything it started (its own process group). */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}

/** On failure: the tails of code-server's log and of the extension's output channels. */
function reportLogs(userData, serverLog) {
  const tail = (file, lines = 30) => {
    const text = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    console.error(`--- ${file} (last ${Math.min(lines, text.length)} lines)\n${text.slice(-lines).join("\n")}`);
  };
  try {
    tail(serverLog);
    for (const file of copyLogs(userData)) {
      tail(file);
    }
  } catch (error) {
    console.error(`(could not read the logs: ${error.message})`);
  }
}

/** Copies the extension's output channels and the extension host's log to <out>; returns the copies. */
function copyLogs(userData) {
  const copies = [];
  for (const file of walk(path.join(userData, "logs"))) {
    if (/HLO Language Server|exthost\.log$/.test(path.basename(file))) {
      const copy = path.join(args.out, path.basename(file));
      fs.copyFileSync(file, copy);
      copies.push(copy);
    }
  }
  return copies;
}

function* walk(dir) {
  for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      yield* walk(full);
    } else {
      yield full;
    }
  }
}

function lineOf(lines, prefix, file = HLO_FILE) {
  const index = lines.findIndex((line) => line.startsWith(prefix));
  if (index < 0) {
    throw new Failure(`no line starting with ${JSON.stringify(prefix)} in ${file}`);
  }
  return index;
}

function normalize(text) {
  return text.replace(/\u00a0/g, " ").replace(/[ \t]+/g, " ").replace(/\n{2,}/g, "\n").trim();
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function parseArgs(argv) {
  const options = { chromium: process.env.CHROMIUM || "/usr/bin/chromium" };
  const names = { "--code-server": "codeServer", "--playwright": "playwright", "--vsix": "vsix", "--server": "server",
    "--dump": "dump", "--out": "out", "--chromium": "chromium" };
  for (let i = 0; i < argv.length; i += 2) {
    if (!names[argv[i]] || argv[i + 1] === undefined) {
      console.error(`unknown or incomplete argument ${argv[i]}\nusage: node e2e.js ${Object.keys(names).map((n) => `${n} ...`).join(" ")}`);
      process.exit(2);
    }
    options[names[argv[i]]] = argv[i + 1];
  }
  for (const name of ["codeServer", "playwright", "vsix", "server", "dump", "out"]) {
    if (!options[name]) {
      console.error(`missing --${name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}`);
      process.exit(2);
    }
  }
  return options;
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`FAIL: ${error instanceof Failure ? error.message : error.stack || error}`);
    process.exit(1);
  },
);
