// The search form's passengers as a dropdown with categories (`passengers=dropdown`): the
// trigger opens the panel, each category's − and + step its count within its bounds (four
// seats in all; infants without a seat no more than adults), the hidden fields `adults` and
// `children` carry the counts to the search, as the default's selects do.
const SEATS = 4;
for (const root of document.querySelectorAll("[data-r-passengers][data-impl=dropdown]")) {
  const trigger = root.querySelector(".r-pax-trigger");
  const panel = root.querySelector(".r-pax-panel");
  const counters = Object.fromEntries(
    [...root.querySelectorAll("[data-counter]")].map((c) => [c.dataset.counter, c]),
  );
  const count = (key) => Number(counters[key].dataset.value);
  const open = (shown) => {
    panel.hidden = !shown;
    trigger.setAttribute("aria-expanded", String(shown));
  };
  const show = () => {
    for (const [key, counter] of Object.entries(counters)) {
      const value = count(key);
      counter.querySelector("output").value = String(value);
      const field = counter.querySelector("input");
      if (field) field.value = String(value);
      const seats = count("adults") + count("children");
      const most = key === "infants" ? count("adults") : Number(counter.dataset.max);
      counter.querySelector('[data-step="-1"]').disabled = value <= Number(counter.dataset.min);
      counter.querySelector('[data-step="1"]').disabled =
        value >= most || (key !== "infants" && seats >= SEATS);
    }
    const kids = count("children") + count("infants");
    root.querySelector("[data-r-summary]").textContent =
      `${count("adults")} взр.` + (kids ? `, ${kids} дет.` : "");
  };
  trigger.addEventListener("click", () => open(panel.hidden));
  root.querySelector(".r-pax-done").addEventListener("click", () => {
    open(false);
    trigger.focus();
  });
  root.addEventListener("click", (event) => {
    const step = event.target.closest("[data-step]");
    if (!step) return;
    const counter = step.closest("[data-counter]");
    counter.dataset.value = String(Number(counter.dataset.value) + Number(step.dataset.step));
    if (count("infants") > count("adults")) counters.infants.dataset.value = String(count("adults"));
    show();
  });
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) {
      open(false);
      trigger.focus();
    }
  });
  show();
}
