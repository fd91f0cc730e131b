// The script of the HLO memory comparison panel (src/compare.ts writes the page): a click, Enter or Space on
// a side of a buffer's row (its A or B cell), or on a bar of a pair's SVG, asks the extension to open that
// side's instruction: postMessage({type: "reveal", pair, row, side}).
//
// Each pair's SVG draws its largest changes as <g class="change"> elements, in the order of the rows the
// page's data lists for it, each with a <title> whose first line is "A: LABEL N bytes, ..." (or "A: none").
// A bar is matched to its row by that order, checked against that title (and looked up by it when the order
// differs).
(function () {
  "use strict";
  const vscode = acquireVsCodeApi();
  const data = JSON.parse(document.getElementById("hlo-compare-data").textContent || "{}");
  const pairs = Array.isArray(data.pairs) ? data.pairs : [];

  function titleOf(bar) {
    const title = Array.from(bar.children).find((child) => child.tagName.toLowerCase() === "title");
    return title ? (title.textContent || "").split("\n")[0] : "";
  }

  // The bar drawn `lane`-th is row `lane` of the pair's bars when its title says so, else the row its title names.
  function barOf(bars, bar, lane) {
    const title = titleOf(bar);
    const names = (candidate) => candidate && (title === candidate.title || title.startsWith(candidate.title + ","));
    return names(bars[lane]) ? bars[lane] : bars.find(names);
  }

  document.querySelectorAll(".picture[data-pair]").forEach((picture) => {
    const pair = Number(picture.getAttribute("data-pair"));
    const bars = Array.isArray(pairs[pair]) ? pairs[pair] : [];
    picture.querySelectorAll("svg g.change").forEach((bar, lane) => {
      const drawn = barOf(bars, bar, lane);
      if (!drawn || !drawn.side) {
        return;
      }
      bar.setAttribute("data-pair", String(pair));
      bar.setAttribute("data-row", String(drawn.row));
      bar.setAttribute("data-side", drawn.side);
      bar.setAttribute("tabindex", "0");
      bar.setAttribute("role", "button");
      bar.setAttribute("aria-label", `Go to ${drawn.label} in ${drawn.side.toUpperCase()}`);
    });
  });

  let selected;
  function reveal(element) {
    if (selected) {
      selected.classList.remove("selected");
    }
    selected = element;
    element.classList.add("selected");
    vscode.postMessage({
      type: "reveal",
      pair: Number(element.getAttribute("data-pair")),
      row: Number(element.getAttribute("data-row")),
      side: element.getAttribute("data-side"),
    });
  }

  const target = (event) => (event.target instanceof Element ? event.target.closest("[data-side]") : null);
  // A click does not focus the cell: focusing would scroll the table sideways to it in a narrow panel.
  document.addEventListener("mousedown", (event) => {
    if (target(event)) {
      event.preventDefault();
    }
  });
  document.addEventListener("click", (event) => {
    const element = target(event);
    if (element) {
      reveal(element);
    }
  });
  document.addEventListener("keydown", (event) => {
    const element = target(event);
    if (element && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      reveal(element);
    }
  });
})();
