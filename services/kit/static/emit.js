// Posts events of this page to its trajectory's `_events`, retrying until acknowledged.
const base = document.querySelector('meta[name="wpb-base"]')?.content ?? "";
const endpoint = `${base}/_events`;

function newId() {
  return crypto.randomUUID().replaceAll("-", "");
}

async function post(batch) {
  const body = JSON.stringify(batch);
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(endpoint, {
        method: "POST", body, keepalive: body.length < 60000,
        headers: { "Content-Type": "application/json" },
      });
      if (response.ok) return await response.json();
      // The request itself is wrong (or the trajectory is closed): retrying cannot help.
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        console.warn("wpb: events refused", response.status, await response.text());
        return null;
      }
    } catch (error) {
      // Network hiccup: retry below with the same ids, the server drops duplicates.
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
  }
}

// Posts go one after another, so the log keeps the order of the user's actions.
let queue = Promise.resolve();

/** Emit one event, or a list of `{type, params}`; resolves once the server stored it. */
export function emit(type, params = {}) {
  const batch = Array.isArray(type)
    ? type.map((event) => ({ id: newId(), ...event }))
    : [{ id: newId(), type, params }];
  const sent = queue.then(() => post(batch));
  queue = sent.catch(() => null);
  return sent;
}

/** Best-effort send while the page unloads. */
export function beacon(events) {
  const batch = events.map((event) => ({ id: newId(), ...event }));
  return navigator.sendBeacon(endpoint, new Blob([JSON.stringify(batch)], { type: "application/json" }));
}

/** Resolves once every event emitted so far is stored (or refused). */
export function settled() {
  return queue;
}

window.wpb = { emit, beacon, settled };
