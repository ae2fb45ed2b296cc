// Collections (variant key `collections`). Every implementation is plain links; this adds
// the keyboard and mouse behaviour of the tree (arrows, expand/collapse) and of the compact
// menu (Escape, arrows, closing on an outside click). Events are written by the server.
import { arrowFocus, focusOnly, onOutsideClick } from "/_kit/widgets/keys.js";

function treeItems(tree) {
  // Visible tree items in document order (a collapsed group's years are skipped).
  return [...tree.querySelectorAll('[role="treeitem"]')].filter((item) => !item.closest("[hidden]"));
}

function setExpanded(node, open) {
  const group = node.querySelector('[role="group"]');
  if (!group) return;
  group.hidden = !open;
  node.querySelectorAll("[aria-expanded]").forEach((el) => el.setAttribute("aria-expanded", String(open)));
  const arrow = node.querySelector(".wc-toggle span");
  if (arrow) arrow.textContent = open ? "▾" : "▸";
}

function initTree(tree) {
  tree.addEventListener("click", (event) => {
    const toggle = event.target.closest(".wc-toggle");
    if (!toggle) return;
    const node = toggle.closest("li[data-collection]");
    setExpanded(node, toggle.getAttribute("aria-expanded") !== "true");
  });
  const all = () => tree.querySelectorAll('[role="treeitem"]');
  arrowFocus(tree, () => treeItems(tree), { wrap: false, roving: true });
  // Right opens a collection, then enters its years; Left closes it, or goes up from a year.
  tree.addEventListener("keydown", (event) => {
    const item = event.target.closest('[role="treeitem"]');
    if (!item) return;
    const node = item.closest("li[data-collection]");
    const isParent = item.classList.contains("wc-link");
    const expanded = item.getAttribute("aria-expanded") === "true";
    let handled = true;
    switch (event.key) {
      case "ArrowRight":
        if (isParent && !expanded) setExpanded(node, true);
        else if (isParent) focusOnly(all(), node.querySelector(".wc-year"));
        break;
      case "ArrowLeft":
        if (isParent && expanded) setExpanded(node, false);
        else if (!isParent) focusOnly(all(), node.querySelector(".wc-link"));
        break;
      case " ": item.click(); break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });
}

function initCompact(details) {
  const links = () => [...details.querySelectorAll(".wc-link")];
  details.addEventListener("toggle", () => {
    if (details.open) links()[0]?.focus();
  });
  arrowFocus(details, () => (details.open ? links() : []));
  details.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !details.open) return;
    event.preventDefault();
    details.open = false;
    details.querySelector("summary").focus();
  });
  onOutsideClick(details, () => (details.open = false));
}

document.querySelectorAll(".wc-tree").forEach(initTree);
document.querySelectorAll(".wc-compact").forEach(initCompact);
