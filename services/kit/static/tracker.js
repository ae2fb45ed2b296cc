// Passive tracker: low-level click, keypress and scroll, batched; never used in conditions.
import { beacon, onEmit, track } from "/_kit/emit.js";

let queue = [];
let timer = null;

function describe(element) {
  if (!(element instanceof Element)) return undefined;
  const id = element.id ? `#${element.id}` : "";
  const testid = element.dataset?.testid ? `[data-testid=${element.dataset.testid}]` : "";
  return `${element.tagName.toLowerCase()}${id}${testid}`.slice(0, 200);
}

function push(type, params) {
  queue.push({ type, params });
  if (queue.length >= 20) flush();
  else if (!timer) timer = setTimeout(flush, 1000);
}

function flush() {
  clearTimeout(timer);
  timer = null;
  if (queue.length) track(queue.splice(0));
}

onEmit(flush);

document.addEventListener("click", (e) => push("click", { x: e.clientX, y: e.clientY, target: describe(e.target) }), true);
document.addEventListener("keydown", (e) => push("keypress", { key: e.key.length === 1 ? "char" : e.key.slice(0, 40), target: describe(e.target) }), true);
let lastScroll = 0;
window.addEventListener("scroll", () => {
  const now = Date.now();
  if (now - lastScroll < 500) return;
  lastScroll = now;
  push("scroll", { x: window.scrollX, y: window.scrollY });
}, { passive: true });
window.addEventListener("pagehide", () => {
  if (queue.length) beacon(queue.splice(0));
});
