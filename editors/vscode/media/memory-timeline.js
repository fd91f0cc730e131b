// The script of the HLO memory timeline panel (src/memoryTimeline.ts writes the page): a click, Enter or
// Space on a buffer (its row in the table, or its bar in the SVG) or on the peak's instruction asks the
// extension to open that instruction: postMessage({type: "reveal", list, index}).
//
// The SVG's bars are <g class="buffer KIND"> elements, one per entry of the answer's `largest`, in
// the same order, each with a <title> whose first line is "LABEL: N bytes (...)". The bars are matched
// to `largest` by their order, checked against that title (and looked up by it when the order differs).
(function () {
  "use strict";
  const vscode = acquireVsCodeApi();
  const data = JSON.parse(document.getElementById("hlo-timeline-data").textContent || "{}");
  const largest = Array.isArray(data.largest) ? data.largest : [];

  function titleOf(bar) {
    const title = Array.from(bar.children).find((child) => child.tagName.toLowerCase() === "title");
    return title ? (title.textContent || "").split("\n")[0] : "";
  }

  function barIndex(bar, lane) {
    const title = titleOf(bar);
    const names = (index) => largest[index] && title.startsWith(largest[index].label + ":");
    if (names(lane)) {
      return lane;
    }
    return largest.findIndex((_, index) => names(index));
  }

  document.querySelectorAll(".timeline svg g.buffer").forEach((bar, lane) => {
    const index = barIndex(bar, lane);
    if (index < 0 || !largest[index].located) {
      return;
    }
    bar.setAttribute("data-list", "largest");
    bar.setAttribute("data-index", String(index));
    bar.setAttribute("tabindex", "0");
    bar.setAttribute("role", "button");
    bar.setAttribute("aria-label", `Go to ${largest[index].label}`);
  });

  let selected;
  function reveal(element) {
    if (selected) {
      selected.classList.remove("selected");
    }
    selected = element;
    element.classList.add("selected");
    vscode.postMessage({ type: "reveal", list: element.getAttribute("data-list"), index: Number(element.getAttribute("data-index")) });
  }

  document.addEventListener("click", (event) => {
    const element = event.target instanceof Element ? event.target.closest("[data-list]") : null;
    if (element) {
      reveal(element);
    }
  });
  document.addEventListener("keydown", (event) => {
    const element = event.target instanceof Element ? event.target.closest("[data-list]") : null;
    if (element && (event.key === "Enter" || event.key === " ") && element.tagName.toLowerCase() !== "button") {
      event.preventDefault();
      reveal(element);
    }
  });
})();
