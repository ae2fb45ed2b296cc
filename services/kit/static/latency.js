// The `latency` perturbation's page side (kit/overlay.html; services/kit/latency.py holds the
// answers): the busy indicator «Загрузка…» while a navigation or a request of the page is
// pending, and a key on each action (`?_action=` on a form's POST, the same until its answer
// came), so that a second click before the answer is the same action and the site does it
// once. Under `late_accept` the indicator hides, and the buttons the action disabled come
// back, `data-idle-after-ms` after it started: before the answer, the control looks idle.
import { newId } from "/_kit/emit.js";

const busy = document.getElementById("wpb-busy");
const late = busy.dataset.latency === "late_accept";
const idleAfter = Number(busy.dataset.idleAfterMs);
const main = document.querySelector("main");
const KEY = "_action";
let pending = 0;
let idleTimer = 0;

function show(on) {
  busy.hidden = !on;
  if (on) main?.setAttribute("aria-busy", "true");
  else main?.removeAttribute("aria-busy");
}

// The buttons enabled when the person last clicked or submitted: the page's own handler
// (kit commerce.js) disables some before its request starts.
let enabledAtInput = null;
for (const type of ["click", "submit"]) {
  document.addEventListener(type, () => (enabledAtInput = [...document.querySelectorAll("button:enabled")]), true);
}

/** A navigation or request started. */
function started() {
  pending += 1;
  show(true);
  if (!late) return;
  const enabled = enabledAtInput ?? [...document.querySelectorAll("button:enabled")];
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    show(false);
    enabled.filter((button) => button.disabled).forEach((button) => (button.disabled = false));
  }, idleAfter);
}

function ended() {
  pending = Math.max(0, pending - 1);
  if (pending > 0) return;
  clearTimeout(idleTimer);
  show(false);
}

/** The form's action keyed: a new key unless an action of it is still unanswered. */
function keyed(form) {
  const url = new URL(form.action, location.href);
  if (url.searchParams.has(KEY)) return;
  url.searchParams.set(KEY, newId());
  form.action = url.href;
}

/** The action with the key of `url` has its answer: its form's next submit is a new one. */
function answered(url) {
  const key = new URL(url, location.href).searchParams.get(KEY);
  if (!key) return;
  for (const form of document.forms) {
    const action = new URL(form.action, location.href);
    if (action.searchParams.get(KEY) !== key) continue;
    action.searchParams.delete(KEY);
    form.action = action.href;
  }
}

// Capture: the key is on the form before the page's own handler (kit commerce.js) reads it.
document.addEventListener(
  "submit",
  (event) => {
    if (event.target.method === "post") keyed(event.target);
  },
  true,
);

// After the page's handlers: a submit or click they did not take over navigates.
window.addEventListener("submit", (event) => {
  if (!event.defaultPrevented) started();
});
window.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[href]");
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if ((link.target && link.target !== "_self") || link.hasAttribute("download")) return;
  const url = new URL(link.href, location.href);
  const here = url.origin === location.origin && url.pathname === location.pathname;
  if (url.origin !== location.origin || (here && url.search === location.search && url.hash)) return;
  started();
});
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  pending = 0;
  show(false);
});

// The page's requests (the cart's buttons, a search's suggestions); its own events aside.
const send = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  if (url.includes("/_events?")) return send(input, init);
  started();
  try {
    return await send(input, init);
  } finally {
    ended();
    answered(url);
  }
};
