// What the memory panels (memoryTimeline.ts, compare.ts) share: a module's name from one of its files, and
// bytes, counts and text as they print them.
import * as path from "path";
import * as vscode from "vscode";

/** The module's name from one of its files: module_0000.jit_f.cpu_after_optimizations-live-range.txt → module_0000.jit_f.cpu_after_optimizations. */
export function moduleName(uri: vscode.Uri): string {
  return path.posix
    .basename(uri.path)
    .replace(/\.txt$/, "")
    .replace(/[-.](buffer-assignment(-values)?|live-range|memory-usage-report)$/, "")
    .replace(/\.hlo$/, "");
}

/** Bytes as XLA prints them (tsl's HumanReadableNumBytes, like the server): 40B, 476.0KiB, 18.31MiB. */
export function human(count: number): string {
  if (count < 0) {
    return "-" + human(-count);
  }
  if (count < 1024) {
    return `${count}B`;
  }
  const units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 * 1024 && unit < units.length - 1) {
    value = Math.floor(value / 1024);
    unit += 1;
  }
  return (value / 1024).toFixed(unit === 0 ? 1 : 2) + units[unit];
}

export function commas(count: number): string {
  return count.toLocaleString("en-US");
}

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
