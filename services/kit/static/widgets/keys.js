// What the kit's widgets share of keyboard and pointer behaviour: arrow keys over a list
// (moving the focus, or the active option of a combobox) and closing on an outside click.

const STEPS = {
  vertical: { ArrowDown: 1, ArrowUp: -1 },
  horizontal: { ArrowRight: 1, ArrowLeft: -1 },
  both: { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 },
};

/**
 * The index `key` moves to in a list of `count` items from `index` (-1: none yet), or null
 * when the key is no move there. Arrows step along `axis` ("vertical", "horizontal", "both")
 * and go round the ends unless `wrap` is false; from none, forward is the first item and
 * back the last. With `ends`, Home and End go to the first and the last.
 */
export function moveIndex(key, index, count, { axis = "vertical", wrap = true, ends = true } = {}) {
  if (!count) return null;
  if (ends && key === "Home") return 0;
  if (ends && key === "End") return count - 1;
  const step = STEPS[axis][key];
  if (!step) return null;
  if (index < 0) return step > 0 ? 0 : count - 1;
  const next = index + step;
  return wrap ? (next + count) % count : Math.min(count - 1, Math.max(0, next));
}

/** Make `item` the only tab stop among `items` (roving tabindex) and focus it. */
export function focusOnly(items, item) {
  for (const other of items) other.tabIndex = other === item ? 0 : -1;
  item.focus();
}

/**
 * Arrow keys (and Home, End) inside `container` move the focus among `items()`, read at each
 * key since the list may change; from an element not in the list they enter it at the first
 * or the last item. With `roving` the focused item becomes the only tab stop; `onMove(item)`
 * runs after the focus moved (a radio group selects there). Other keys pass on.
 */
export function arrowFocus(container, items, { axis = "vertical", wrap = true, roving = false, onMove = null } = {}) {
  container.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const list = items();
    const next = moveIndex(event.key, list.indexOf(event.target), list.length, { axis, wrap });
    if (next === null) return;
    event.preventDefault();
    if (roving) focusOnly(list, list[next]);
    else list[next].focus();
    onMove?.(list[next]);
  });
}

/**
 * Show `options[index]` as the active option of the combobox `input` (the focus stays in the
 * field): aria-selected on it alone, aria-activedescendant naming it, scrolled into view.
 * An index out of the list shows none.
 */
export function showActive(input, options, index) {
  options.forEach((option, n) => option.setAttribute("aria-selected", String(n === index)));
  const active = options[index];
  if (active) {
    input.setAttribute("aria-activedescendant", active.id);
    active.scrollIntoView({ block: "nearest" });
  } else {
    input.removeAttribute("aria-activedescendant");
  }
}

/** Call `close()` on every click outside `root` (a click inside it leaves it be). */
export function onOutsideClick(root, close) {
  document.addEventListener("click", (event) => {
    if (!event.composedPath().includes(root)) close();
  });
}
