// Guests by room (key `counter_guests`, hotels). Implementations:
//   rooms_popup    — a summary button opening a panel of rooms (add/remove a room, adults
//                    and children steppers, each child's age), confirmed by «Готово»;
//   inline_stepper — the same steppers always on the page, a rooms stepper, «Применить»;
//   compact_select — drop-down lists for rooms, adults, children and ages, «Применить»;
//   pill_buttons   — rows of pill buttons, one per allowed count of rooms, adults, children,
//                    each row a radio group (arrows move and choose).
// Confirming writes `bench_hotel_select_guests` {rooms, roomsCount, guestsCount, widget}.
// Limits (rooms per booking, adults and children per room, a child's age) come from the
// server in `data-limits` (services/kit/contract.py GUEST_LIMITS, which the server checks
// too); controls cannot go past them.
import { emit } from "/_kit/emit.js";
import { arrowFocus, onOutsideClick } from "/_kit/widgets/keys.js";


/** "2:7,5;1" -> [{adults: 2, kids: [7, 5]}, {adults: 1, kids: []}] */
export function decode(text) {
  const rooms = (text || "").split(";").filter(Boolean).map((part) => {
    const [adults, kids] = part.split(":");
    return { adults: Number(adults) || 1, kids: kids ? kids.split(",").map((a) => (a === "" ? null : Number(a))) : [] };
  });
  return rooms.length ? rooms : [{ adults: 2, kids: [] }];
}

export function encode(rooms) {
  return rooms.map((r) => (r.kids.length ? `${r.adults}:${r.kids.join(",")}` : String(r.adults))).join(";");
}

function plural(n, one, few, many) {
  const m10 = n % 10;
  const m100 = n % 100;
  if (m10 === 1 && m100 !== 11) return `${n} ${one}`;
  if (m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14)) return `${n} ${few}`;
  return `${n} ${many}`;
}

export function summary(rooms) {
  const guests = rooms.reduce((sum, r) => sum + r.adults + r.kids.length, 0);
  return `${plural(rooms.length, "номер", "номера", "номеров")}, ${plural(guests, "гость", "гостя", "гостей")}`;
}

const WORDS = {
  rooms: ["номеров", "Номера"],
  adults: ["взрослых", "Взрослые"],
  kids: ["детей", "Дети"],
};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("aria") || key === "role") node.setAttribute(key.replace(/^aria/, "aria-").toLowerCase(), value);
    else node[key] = value;
  }
  node.append(...children);
  return node;
}

class Guests {
  constructor(root) {
    this.root = root;
    this.limits = JSON.parse(root.dataset.limits);
    this.impl = root.dataset.impl;
    this.hidden = root.querySelector("input[type=hidden]");
    this.rooms = decode(this.hidden.value);
    this.confirmed = encode(this.rooms);
    this.ui = el("div", { className: `wpb-guests-ui wpb-guests-${this.impl}` });
    root.append(this.ui);
    if (this.impl === "rooms_popup") {
      this.trigger = el("button", { type: "button", className: "wpb-guests-trigger secondary", ariaHaspopup: "dialog", ariaExpanded: "false" });
      this.panel = el("div", { className: "wpb-guests-panel", role: "dialog", ariaLabel: "Гости и номера", hidden: true });
      this.trigger.addEventListener("click", () => (this.panel.hidden ? this.open() : this.close()));
      this.panel.addEventListener("keydown", (event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          this.close();
          this.trigger.focus();
        }
      });
      onOutsideClick(root, () => this.close());
      this.ui.append(this.trigger, this.panel);
      this.body = this.panel;
    } else {
      this.body = el("div", { className: "wpb-guests-body" });
      this.ui.append(this.body);
    }
    this.render();
  }

  open() {
    this.panel.hidden = false;
    this.trigger.setAttribute("aria-expanded", "true");
    this.panel.querySelector("button, select")?.focus();
  }

  close() {
    if (!this.panel) return;
    this.panel.hidden = true;
    this.trigger.setAttribute("aria-expanded", "false");
  }

  setRooms(count) {
    count = Math.min(this.limits.rooms[1], Math.max(this.limits.rooms[0], count));
    while (this.rooms.length < count) this.rooms.push({ adults: 1, kids: [] });
    this.rooms.length = count;
  }

  set(what, room, value) {
    const [low, high] = this.limits[what];
    if (value < low || value > high) return;
    if (what === "rooms") this.setRooms(value);
    else if (what === "adults") this.rooms[room].adults = value;
    else {
      const kids = this.rooms[room].kids;
      while (kids.length < value) kids.push(null);
      kids.length = value;
    }
    this.render(what, room);
  }

  value(what, room) {
    if (what === "rooms") return this.rooms.length;
    return what === "adults" ? this.rooms[room].adults : this.rooms[room].kids.length;
  }

  /** One counter in the implementation's form; `room` is null for the rooms count. */
  control(what, room) {
    const value = this.value(what, room);
    const [low, high] = this.limits[what];
    const where = room === null ? "" : ` в номере ${room + 1}`;
    const name = `${WORDS[what][1]}${where}`;
    const data = { counter: what, room: room === null ? "" : String(room), value: String(value) };
    const caption = el("span", { className: "wpb-guests-caption" }, WORDS[what][1]);
    if (this.impl === "compact_select") {
      const select = el("select", { className: "wpb-guests-select", ariaLabel: name, dataset: data });
      for (let n = low; n <= high; n++) select.add(new Option(String(n), String(n), false, n === value));
      select.addEventListener("change", () => this.set(what, room, Number(select.value)));
      return el("label", { className: "wpb-guests-row" }, caption, select);
    }
    if (this.impl === "pill_buttons") {
      // A radio group: one tab stop (the chosen pill); the arrows move to a pill and choose it.
      const group = el("div", { className: "wpb-guests-pills", role: "radiogroup", ariaLabel: name, dataset: data });
      for (let n = low; n <= high; n++) {
        const pill = el("button", { type: "button", className: "wpb-pill", role: "radio", ariaChecked: String(n === value), ariaLabel: `${name}: ${n}`, tabIndex: n === value ? 0 : -1 }, String(n));
        pill.addEventListener("click", () => this.set(what, room, n));
        group.append(pill);
      }
      arrowFocus(group, () => [...group.children], { axis: "both", onMove: (pill) => pill.click() });
      return el("div", { className: "wpb-guests-row" }, caption, group);
    }
    const less = el("button", { type: "button", className: "secondary wpb-step", ariaLabel: `Меньше: ${name.toLowerCase()}`, disabled: value <= low, dataset: { step: "-1" } }, "−");
    const more = el("button", { type: "button", className: "secondary wpb-step", ariaLabel: `Больше: ${name.toLowerCase()}`, disabled: value >= high, dataset: { step: "1" } }, "+");
    less.addEventListener("click", () => this.set(what, room, this.value(what, room) - 1));
    more.addEventListener("click", () => this.set(what, room, this.value(what, room) + 1));
    const out = el("output", { className: "wpb-guests-value", ariaLive: "polite" }, String(value));
    return el("div", { className: "wpb-guests-row wpb-stepper", role: "group", ariaLabel: name, dataset: data }, caption, less, out, more);
  }

  ages(room) {
    const wrap = el("div", { className: "wpb-guests-ages" });
    this.rooms[room].kids.forEach((age, kid) => {
      const select = el("select", { className: "wpb-guests-age", ariaLabel: `Возраст ребёнка ${kid + 1} в номере ${room + 1}`, dataset: { age: "", room: String(room), kid: String(kid) } });
      select.add(new Option("Возраст", ""));
      const [youngest, oldest] = this.limits.age;
      for (let a = youngest; a <= oldest; a++) select.add(new Option(a === 0 ? "до 1 года" : plural(a, "год", "года", "лет"), String(a), false, age === a));
      select.addEventListener("change", () => {
        this.rooms[room].kids[kid] = select.value === "" ? null : Number(select.value);
        this.error.textContent = "";
      });
      wrap.append(select);
    });
    return wrap;
  }

  render(focusWhat, focusRoom) {
    // Keep keyboard focus on the same control across the redraw (by its name).
    const name = (node) => node.getAttribute("aria-label") || node.textContent;
    const focused = document.activeElement;
    const focusName = this.body.contains(focused) ? name(focused) : null;
    this.body.replaceChildren();
    if (this.impl !== "rooms_popup") this.body.append(this.control("rooms", null));
    this.rooms.forEach((room, index) => {
      const block = el("fieldset", { className: "wpb-guests-room", dataset: { room: String(index) } });
      block.append(el("legend", {}, `Номер ${index + 1}`), this.control("adults", index), this.control("kids", index), this.ages(index));
      if (this.impl === "rooms_popup" && this.rooms.length > 1) {
        const remove = el("button", { type: "button", className: "secondary", ariaLabel: `Удалить номер ${index + 1}` }, "Удалить номер");
        remove.addEventListener("click", () => {
          this.rooms.splice(index, 1);
          this.render();
          this.panel.querySelector("button")?.focus();
        });
        block.append(remove);
      }
      this.body.append(block);
    });
    const actions = el("div", { className: "wpb-guests-actions" });
    if (this.impl === "rooms_popup") {
      const add = el("button", { type: "button", className: "secondary", disabled: this.rooms.length >= this.limits.rooms[1] }, "Добавить номер");
      add.addEventListener("click", () => this.set("rooms", null, this.rooms.length + 1));
      actions.append(add);
    }
    const confirm = el("button", { type: "button", className: "wpb-guests-confirm" }, this.impl === "rooms_popup" ? "Готово" : "Применить");
    confirm.addEventListener("click", () => this.confirm());
    this.error = el("p", { className: "wpb-guests-error", role: "alert" });
    actions.append(confirm);
    this.body.append(actions, this.error);
    if (this.trigger) this.trigger.textContent = summary(decode(this.confirmed));
    this.root.querySelector(".wpb-guests-summary")?.replaceChildren(summary(decode(this.confirmed)));
    if (focusName) [...this.body.querySelectorAll("button, select, input")].find((n) => name(n) === focusName && !n.disabled)?.focus();
  }

  confirm() {
    const missing = this.rooms.some((r) => r.kids.some((age) => age === null));
    if (missing) {
      this.error.textContent = "Укажите возраст каждого ребёнка";
      return;
    }
    this.confirmed = encode(this.rooms);
    this.hidden.value = this.confirmed;
    this.root.dataset.value = this.confirmed;
    this.render();
    this.close();
    this.trigger?.focus();
    const rooms = this.rooms.map((r) => ({ adults: r.adults, kids: [...r.kids] }));
    const guestsCount = rooms.reduce((sum, r) => sum + r.adults + r.kids.length, 0);
    this.root.dispatchEvent(new CustomEvent("wpb-guests", { bubbles: true, detail: rooms }));
    emit(this.root.dataset.event, { rooms, roomsCount: rooms.length, guestsCount, widget: this.impl });
  }
}

document.querySelectorAll("[data-wpb-guests]").forEach((root) => {
  root.wpbGuests = new Guests(root);
});
