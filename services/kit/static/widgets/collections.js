// Collections (variant key `collections`). Every implementation is plain links; this adds
// the keyboard and mouse behaviour of the tree (arrows, expand/collapse) and of the compact
// menu (Escape, arrows, closing on an outside click). Events are written by the server.

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

function focusItem(tree, item) {
  tree.querySelectorAll('[role="treeitem"]').forEach((el) => (el.tabIndex = -1));
  item.tabIndex = 0;
  item.focus();
}

function initTree(tree) {
  tree.addEventListener("click", (event) => {
    const toggle = event.target.closest(".wc-toggle");
    if (!toggle) return;
    const node = toggle.closest("li[data-collection]");
    setExpanded(node, toggle.getAttribute("aria-expanded") !== "true");
  });
  tree.addEventListener("keydown", (event) => {
    const item = event.target.closest('[role="treeitem"]');
    if (!item) return;
    const items = treeItems(tree);
    const index = items.indexOf(item);
    const node = item.closest("li[data-collection]");
    const isParent = item.classList.contains("wc-link");
    const expanded = item.getAttribute("aria-expanded") === "true";
    let handled = true;
    switch (event.key) {
      case "ArrowDown": if (index < items.length - 1) focusItem(tree, items[index + 1]); break;
      case "ArrowUp": if (index > 0) focusItem(tree, items[index - 1]); break;
      case "Home": focusItem(tree, items[0]); break;
      case "End": focusItem(tree, items[items.length - 1]); break;
      case "ArrowRight":
        if (isParent && !expanded) setExpanded(node, true);
        else if (isParent) focusItem(tree, node.querySelector(".wc-year"));
        break;
      case "ArrowLeft":
        if (isParent && expanded) setExpanded(node, false);
        else if (!isParent) focusItem(tree, node.querySelector(".wc-link"));
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
  details.addEventListener("keydown", (event) => {
    const list = links();
    const index = list.indexOf(document.activeElement);
    if (event.key === "Escape" && details.open) {
      details.open = false;
      details.querySelector("summary").focus();
    } else if (event.key === "ArrowDown" && details.open) {
      list[(index + 1) % list.length].focus();
    } else if (event.key === "ArrowUp" && details.open) {
      list[(index - 1 + list.length) % list.length].focus();
    } else {
      return;
    }
    event.preventDefault();
  });
  document.addEventListener("click", (event) => {
    if (details.open && !details.contains(event.target)) details.open = false;
  });
}

document.querySelectorAll(".wc-tree").forEach(initTree);
document.querySelectorAll(".wc-compact").forEach(initCompact);
