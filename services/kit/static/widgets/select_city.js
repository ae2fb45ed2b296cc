// City choice (key `select_city`, hotels): `autocomplete` (a combobox with a filtered list)
// or `native_select`. The same combobox serves the rail stations (select_station.js).
// A choice writes the site's event once per change, adding only `widget`.
import { emit } from "/_kit/emit.js";
import { moveIndex, showActive } from "/_kit/widgets/keys.js";

/** Lower case, «ё» as «е», single spaces. */
export function norm(text) {
  return text.toLowerCase().replaceAll("ё", "е").replace(/\s+/g, " ").trim();
}

/** Options whose label (or a word of it) starts with the query, then those that contain it. */
export function filter(options, query, limit = 8) {
  const q = norm(query);
  if (!q) return options.slice(0, limit);
  const starts = [];
  const contains = [];
  for (const option of options) {
    const label = norm(option.label);
    if (label.startsWith(q) || label.split(/[\s,(-]+/).some((word) => word && word.startsWith(q))) starts.push(option);
    else if (label.includes(q)) contains.push(option);
  }
  return [...starts, ...contains].slice(0, limit);
}

let counter = 0;

/**
 * Make `root` (holding a hidden input and a JSON list of options) a working choice.
 * `pick(option)` is called when a person chooses; it returns the event to write.
 */
export function combobox(root, { pick, empty = "Ничего не найдено", placeholder = "", unchosen = "Выберите вариант из списка" }) {
  const impl = root.dataset.impl;
  const label = root.dataset.label;
  const hidden = root.querySelector("input[type=hidden]");
  const options = JSON.parse(root.querySelector("script.wpb-options").textContent);
  const byId = new Map(options.map((o) => [o.id, o]));
  const uid = `wpb-combo-${++counter}`;
  let chosen = byId.get(hidden.value) || null;
  // The caption names the field it stands over: a click on it focuses the field.
  root.querySelector(".wpb-combo-caption").htmlFor = `${uid}-field`;

  function choose(option) {
    const changed = !chosen || chosen.id !== option.id;
    chosen = option;
    hidden.value = option.id;
    root.dataset.value = option.id;
    root.dispatchEvent(new CustomEvent("wpb-choice", { bubbles: true, detail: option }));
    if (changed) emit(...pick(option, impl));
  }

  if (impl === "native_select") {
    const select = document.createElement("select");
    select.className = "wpb-combo-select";
    select.id = `${uid}-field`;
    select.setAttribute("aria-label", label);
    select.add(new Option(placeholder || "Выберите из списка", ""));
    for (const option of options) select.add(new Option(option.label, option.id));
    select.value = chosen ? chosen.id : "";
    select.addEventListener("change", () => {
      const option = byId.get(select.value);
      if (option) choose(option);
    });
    root.append(select);
    return;
  }

  const input = document.createElement("input");
  input.type = "text";
  input.className = "wpb-combo-input";
  input.id = `${uid}-field`;
  input.autocomplete = "off";
  input.placeholder = placeholder;
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-label", label);
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", `${uid}-list`);
  input.value = chosen ? chosen.label : "";
  const list = document.createElement("ul");
  list.id = `${uid}-list`;
  list.className = "wpb-combo-list";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", label);
  list.hidden = true;
  const status = document.createElement("p");
  status.className = "wpb-combo-status";
  status.setAttribute("role", "status");
  let shown = [];
  let active = -1;

  function render() {
    shown = filter(options, input.value);
    list.replaceChildren();
    shown.forEach((option, index) => {
      const li = document.createElement("li");
      li.id = `${uid}-opt-${index}`;
      li.setAttribute("role", "option");
      li.dataset.id = option.id;
      li.dataset.label = option.label;
      li.textContent = option.label;
      if (option.hint) {
        const hint = document.createElement("span");
        hint.className = "muted";
        hint.textContent = ` ${option.hint}`;
        li.append(hint);
      }
      li.addEventListener("mousedown", (event) => event.preventDefault());
      li.addEventListener("click", () => accept(option));
      list.append(li);
    });
    status.textContent = input.value.trim() && !shown.length ? `${empty}: «${input.value.trim()}»` : "";
    list.hidden = !shown.length;
    input.setAttribute("aria-expanded", String(!list.hidden));
    showActive(input, [...list.children], active);
  }

  function close() {
    list.hidden = true;
    active = -1;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  function accept(option) {
    input.value = option.label;
    status.textContent = "";
    input.removeAttribute("aria-invalid");
    close();
    choose(option);
  }

  input.addEventListener("input", () => {
    active = -1;
    if (chosen && input.value !== chosen.label) {
      chosen = null;
      hidden.value = "";
      root.dataset.value = "";
    }
    render();
  });
  input.addEventListener("focus", () => {
    if (!chosen) render();
  });
  input.addEventListener("blur", () => {
    close();
    // Typed but not chosen: say so here and now, not only after the form is sent.
    if (input.value.trim() && !chosen) {
      status.textContent = `${unchosen}: «${input.value.trim()}» не выбран`;
      input.setAttribute("aria-invalid", "true");
    } else {
      input.removeAttribute("aria-invalid");
    }
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (list.hidden) render();
      const next = moveIndex(event.key, active, shown.length, { ends: false });
      if (next === null) return;
      active = next;
      showActive(input, [...list.children], active);
    } else if (event.key === "Enter") {
      if (list.hidden && chosen) return;
      event.preventDefault();
      const exact = shown.find((o) => norm(o.label) === norm(input.value));
      const option = shown[active] || exact || (shown.length === 1 ? shown[0] : null);
      if (option) accept(option);
      else render();
    } else if (event.key === "Escape") {
      close();
    }
  });
  root.append(input, list, status);
}

document.querySelectorAll("[data-wpb-combo=city]").forEach((root) => {
  combobox(root, {
    placeholder: "Город или страна",
    empty: "Такого города нет в списке",
    unchosen: "Выберите город из списка",
    pick: (city, widget) => [root.dataset.event, { cityId: city.id, label: city.label, cityName: city.name, countryName: city.country, widget }],
  });
});
