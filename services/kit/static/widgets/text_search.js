// The shared search field: suggestions while typing (arrows + Enter, or a click) for every
// `form[data-ts]` on the page. Choosing a suggestion fills the field and submits the form;
// the results page writes `submit_search` on the server, so nothing is emitted here.
import { moveIndex, showActive } from "/_kit/widgets/keys.js";

const DELAY_MS = 120;

function setup(form) {
  if (form.dataset.tsReady) return;
  form.dataset.tsReady = "1";
  const input = form.querySelector('input[name="q"]');
  const list = form.querySelector('[role="listbox"]');
  const url = form.dataset.suggest;
  let timer = null;
  let active = -1;
  let asked = 0;

  const options = () => [...list.querySelectorAll('[role="option"]')];

  function close() {
    list.hidden = true;
    list.replaceChildren();
    active = -1;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  function choose(option) {
    input.value = option.dataset.value;
    close();
    form.requestSubmit();
  }

  function show(items) {
    list.replaceChildren();
    items.forEach((item, n) => {
      const option = document.createElement("li");
      option.id = `${list.id}-${n}`;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.dataset.value = item.text;
      option.className = "ts-option";
      const text = document.createElement("span");
      text.textContent = item.text;
      option.append(text);
      if (item.hint) {
        const hint = document.createElement("small");
        hint.textContent = item.hint;
        option.append(hint);
      }
      // mousedown keeps the focus in the field; the choice is made on click
      option.addEventListener("mousedown", (event) => event.preventDefault());
      option.addEventListener("click", () => choose(option));
      list.append(option);
    });
    active = -1;
    list.hidden = items.length === 0;
    input.setAttribute("aria-expanded", String(items.length > 0));
  }

  async function ask() {
    const query = input.value.trim();
    const ticket = ++asked;
    if (!query || !url) return close();
    try {
      const response = await fetch(`${url}?q=${encodeURIComponent(query)}`, { headers: { Accept: "application/json" } });
      if (!response.ok || ticket !== asked) return;
      const answer = await response.json();
      if (ticket === asked && document.activeElement === input) show(answer.suggestions || []);
    } catch (error) {
      close();
    }
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(ask, DELAY_MS);
  });
  input.addEventListener("keydown", (event) => {
    const open = !list.hidden && options().length > 0;
    const next = open ? moveIndex(event.key, active, options().length, { ends: false }) : null;
    if (next !== null) {
      event.preventDefault();
      active = next;
      showActive(input, options(), active);
    } else if (event.key === "Enter" && open && active >= 0) {
      event.preventDefault();
      choose(options()[active]);
    } else if (event.key === "Escape" && open) {
      event.preventDefault();
      close();
    }
  });
  input.addEventListener("blur", () => setTimeout(close, 150));
  form.addEventListener("submit", () => {
    clearTimeout(timer);
    asked++;
  });
  form.addEventListener("reset", () => {
    close();
    setTimeout(() => input.focus(), 0);
  });
  form.querySelectorAll("[data-hint]").forEach((button) =>
    button.addEventListener("click", () => {
      input.value = button.dataset.hint;
      form.requestSubmit();
    }),
  );
}

document.querySelectorAll("form[data-ts]").forEach(setup);
