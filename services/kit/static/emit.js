// Posts the events of this page to its trajectory's `_events`, one post at a time so the log
// keeps the order of the user's actions. Each post carries the page's token (`wpb-page`, made
// when the page was served): the server takes events only from a page it served. A post the
// network or a 5xx (or 429) lost is tried again, with the same ids (the server stores an event
// once), for about 15 s: long enough to ride out a restart of NATS or a site. A `Retry-After`
// the server sends sets the next wait. An action whose event is still not stored after that,
// or is refused, is shown to the person on the page.
const base = document.querySelector('meta[name="wpb-base"]')?.content ?? "";
const token = document.querySelector('meta[name="wpb-page"]')?.content ?? "";
const endpoint = `${base}/_events?page=${encodeURIComponent(token)}`;
const ATTEMPTS = 8; // waits of 0.25, 0.5, 1, 2, 4, 4 and 4 s between them: about 16 s in all
const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 4000;
const ATTEMPT_TIMEOUT_MS = 5000; // a post that hangs counts as lost

class NotStored extends Error {}

/** 128 random bits in hex. Not `crypto.randomUUID()`: it exists only in a secure context (https,
 * localhost), and an agent in a container reaches the stand as `http://hub:8000`. */
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Post one batch; its answer once stored, or NotStored saying why (in Russian). */
async function post(batch) {
  const body = JSON.stringify(batch);
  let why = "";
  let wait = 0;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), LONGEST_WAIT_MS);
    let response;
    try {
      response = await fetch(endpoint, {
        method: "POST", body, keepalive: body.length < 60000,
        headers: { "Content-Type": "application/json" },
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
    } catch {
      why = "нет связи с сервером";
      continue;
    }
    if (response.ok) return await response.json().catch(() => ({}));
    // The request itself is wrong (or the trajectory is closed): retrying cannot help.
    if (response.status < 500 && response.status !== 429) {
      console.warn("wpb: events refused", response.status, await response.text().catch(() => ""));
      throw new NotStored(`сервер его не принял (ошибка ${response.status})`);
    }
    why = `сервер не ответил (ошибка ${response.status})`;
    const asked = Number(response.headers.get("Retry-After")) * 1000;
    if (asked > 0) wait = Math.min(asked, LONGEST_WAIT_MS);
  }
  throw new NotStored(why);
}

/** The page's one alert for actions that were not recorded. */
function tell(text) {
  let alert = document.getElementById("wpb-emit-alert");
  if (!alert) {
    alert = document.createElement("p");
    alert.id = "wpb-emit-alert";
    alert.className = "wpb-emit-alert";
    alert.setAttribute("role", "alert");
    document.body.append(alert);
  }
  alert.textContent = text;
}

let queue = Promise.resolve();

function send(batch, shown) {
  const sent = queue.then(() => post(batch)).catch((error) => {
    console.warn("wpb: events not stored", error.message, batch);
    if (shown) tell(`Действие не записано: ${error.message}. Повторите его.`);
    return null;
  });
  queue = sent;
  return sent;
}

let beforeEmit = () => {};

/** `flush` runs before each emitted event: the tracker sends the click or key that led to
 * it first, so the log shows the input before the selection. */
export function onEmit(flush) {
  beforeEmit = flush;
}

/** Emit one event; resolves with the server's answer once stored, or null when it was not
 * (and the page says so). Never rejects. */
export function emit(type, params = {}) {
  beforeEmit();
  return send([{ id: newId(), type, params }], true);
}

/** Send a batch of low-level tracking events (`{type, params}`); one lost is only logged. */
export function track(events) {
  return send(events.map((event) => ({ id: newId(), ...event })), false);
}

/** Best-effort send while the page unloads. */
export function beacon(events) {
  const batch = events.map((event) => ({ id: newId(), ...event }));
  return navigator.sendBeacon(endpoint, new Blob([JSON.stringify(batch)], { type: "application/json" }));
}

/** Resolves once every event sent so far is stored, refused or given up (about 16 s at
 * most); a harness waits on it before it declares done. */
export function settled() {
  return queue;
}

// The harness hook (page scripts import `emit` instead).
window.wpb = { settled };
