// Date fields (DESIGN §5 key `date`). One root holds one or more slots (check-in and
// check-out, or departure and return); the implementation decides how a person picks:
//   split_popup / popup_grid — a button per slot opening a month grid;
//   single_popup             — one button, one grid that fills the slots in turn;
//   inline_calendar          — an always-open grid that fills the slots in turn;
//   text_input               — ДД.ММ.ГГГГ typed per slot, checked in the field;
//   native_input             — <input type="date"> per slot.
// Every implementation writes the same event per slot, adding only `widget`.
import { emit } from "/_kit/emit.js";
import { MonthGrid, addDays, dotted, spoken } from "/_kit/widgets/calendar.js";
import { onOutsideClick } from "/_kit/widgets/keys.js";

const PER_SLOT_POPUP = new Set(["split_popup", "popup_grid"]);
const SHARED_GRID = new Set(["single_popup", "inline_calendar"]);

class DateField {
  constructor(root) {
    this.root = root;
    this.impl = root.dataset.impl;
    this.today = root.dataset.min;
    this.slots = [...root.querySelectorAll(".wpb-date-slot")].map((el, index) => ({
      el,
      index,
      name: el.dataset.name,
      label: el.dataset.label,
      event: el.dataset.event,
      params: JSON.parse(el.dataset.params || "{}"),
      after: el.dataset.after || "",
      input: el.querySelector("input[type=hidden]"),
      value: el.dataset.value || "",
    }));
    this.ui = document.createElement("div");
    this.ui.className = `wpb-date-ui wpb-date-${this.impl}`;
    root.append(this.ui);
    if (PER_SLOT_POPUP.has(this.impl)) this.buildPopups();
    else if (SHARED_GRID.has(this.impl)) this.buildShared();
    else this.buildInputs(this.impl === "native_input");
    onOutsideClick(root, () => this.closeAll());
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.root.querySelector(".wpb-date-popup:not([hidden])")) {
        event.preventDefault();
        const open = this.root.querySelector(".wpb-date-popup:not([hidden])");
        this.closeAll();
        open.previousElementSibling?.focus();
      }
    });
    this.refresh();
  }

  // -- rules -----------------------------------------------------------------------------

  minFor(slot) {
    const before = slot.index > 0 ? this.slots[slot.index - 1] : null;
    if (before && slot.after && before.value) {
      return slot.after === "strict" ? addDays(before.value, 1) : before.value;
    }
    return this.today;
  }

  /** An error message for a date in this slot, or "" when it can be taken. */
  problem(slot, iso) {
    if (iso < this.today) return "Эта дата уже прошла";
    const before = slot.index > 0 ? this.slots[slot.index - 1] : null;
    if (before && slot.after && before.value) {
      if (slot.after === "strict" && iso <= before.value) return `${slot.label}: дата должна быть позже, чем ${before.label.toLowerCase()}`;
      if (iso < before.value) return `${slot.label}: дата не может быть раньше, чем ${before.label.toLowerCase()}`;
    }
    return "";
  }

  set(slot, iso) {
    slot.value = iso;
    slot.input.value = iso;
    slot.el.dataset.value = iso;
    // A later slot that no longer fits is cleared.
    for (const later of this.slots.slice(slot.index + 1)) {
      if (later.value && later.after && this.problem(later, later.value)) {
        later.value = later.input.value = later.el.dataset.value = "";
      }
    }
    this.refresh();
    this.root.dispatchEvent(new CustomEvent("wpb-date", { bubbles: true, detail: { name: slot.name, date: iso } }));
    return emit(slot.event, { ...slot.params, date: iso, widget: this.impl });
  }

  // -- per-slot popups -------------------------------------------------------------------

  buildPopups() {
    for (const slot of this.slots) {
      const box = document.createElement("div");
      box.className = "wpb-date-box";
      const [trigger, popup] = triggerAndPopup(`${slot.label}: выбор даты`);
      slot.grid = new MonthGrid({
        min: this.today,
        label: slot.label,
        marks: () => this.marks(),
        onPick: (iso) => {
          const error = this.problem(slot, iso);
          if (error) return this.say(error);
          this.say("");
          this.set(slot, iso);
          this.closeAll();
          const next = this.slots[slot.index + 1];
          if (next && next.after && !next.value) this.open(next);
          else trigger.focus();
        },
      });
      popup.append(slot.grid.el);
      trigger.addEventListener("click", () => (popup.hidden ? this.open(slot) : this.closeAll()));
      box.append(trigger, popup);
      slot.trigger = trigger;
      slot.popup = popup;
      this.ui.append(box);
    }
    this.addError();
  }

  open(slot) {
    this.closeAll();
    slot.grid.min = this.minFor(slot);
    slot.grid.show(slot.value || slot.grid.min);
    slot.popup.hidden = false;
    slot.trigger.setAttribute("aria-expanded", "true");
    slot.grid.focus(slot.value || slot.grid.min);
  }

  closeAll() {
    for (const popup of this.root.querySelectorAll(".wpb-date-popup")) popup.hidden = true;
    for (const trigger of this.root.querySelectorAll(".wpb-date-trigger")) trigger.setAttribute("aria-expanded", "false");
  }

  // -- one grid for all slots ------------------------------------------------------------

  buildShared() {
    const hint = document.createElement("p");
    hint.className = "wpb-date-hint muted";
    hint.setAttribute("aria-live", "polite");
    this.hint = hint;
    this.grid = new MonthGrid({
      min: this.today,
      label: this.slots.map((s) => s.label).join(" и "),
      marks: () => this.marks(),
      onPick: (iso) => this.pickShared(iso),
    });
    const body = document.createElement("div");
    body.append(hint, this.grid.el);
    if (this.impl === "single_popup") {
      const [trigger, popup] = triggerAndPopup("Выбор дат");
      const done = document.createElement("button");
      done.type = "button";
      done.textContent = "Готово";
      done.addEventListener("click", () => {
        this.closeAll();
        trigger.focus();
      });
      popup.append(body, done);
      trigger.addEventListener("click", () => {
        if (!popup.hidden) return this.closeAll();
        popup.hidden = false;
        trigger.setAttribute("aria-expanded", "true");
        this.grid.show(this.slots.find((s) => s.value)?.value || this.today);
        this.grid.focus(this.slots[0].value || this.today);
      });
      this.sharedTrigger = trigger;
      this.ui.append(trigger, popup);
    } else {
      this.ui.append(body);
    }
    this.addError();
  }

  /** The slot the next click fills: the first empty one, or a restart from the first. */
  nextSlot() {
    return this.slots.find((s) => !s.value) || null;
  }

  pickShared(iso) {
    let slot = this.nextSlot();
    if (slot && slot.index > 0 && slot.after && this.problem(slot, iso)) slot = null; // earlier than start: restart
    if (!slot) {
      for (const s of this.slots) s.value = s.input.value = s.el.dataset.value = "";
      slot = this.slots[0];
    }
    const error = this.problem(slot, iso);
    if (error) return this.say(error);
    this.say("");
    this.set(slot, iso);
    this.grid.focus(iso);
    if (this.impl === "single_popup" && this.slots.every((s) => s.value || s.el.dataset.optional)) {
      this.closeAll();
      this.sharedTrigger.focus();
    }
  }

  // -- typed fields ----------------------------------------------------------------------

  buildInputs(native) {
    for (const slot of this.slots) {
      const label = document.createElement("label");
      label.className = "wpb-date-field";
      const caption = document.createElement("span");
      caption.textContent = slot.label;
      const input = document.createElement("input");
      input.className = "wpb-date-input";
      if (native) {
        input.type = "date";
        input.min = this.today;
      } else {
        input.type = "text";
        input.inputMode = "numeric";
        input.placeholder = "ДД.ММ.ГГГГ";
        input.maxLength = 10;
        input.autocomplete = "off";
      }
      const error = document.createElement("span");
      error.className = "wpb-date-error";
      error.setAttribute("role", "alert");
      error.id = `${this.root.id}-${slot.name}-error`;
      input.setAttribute("aria-describedby", error.id);
      input.addEventListener("change", () => this.typed(slot, input, error, native));
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          this.typed(slot, input, error, native);
        }
      });
      label.append(caption, input, error);
      slot.field = input;
      this.ui.append(label);
    }
  }

  typed(slot, input, error, native) {
    const text = input.value.trim();
    let iso = "";
    let message = "";
    if (!text) {
      if (slot.value) {
        slot.value = slot.input.value = slot.el.dataset.value = "";
      }
      message = slot.el.dataset.optional ? "" : "Укажите дату";
    } else if (native) {
      iso = /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : "";
      if (!iso) message = "Укажите дату";
    } else {
      iso = parseDotted(text);
      if (iso === null) message = "Введите дату в виде ДД.ММ.ГГГГ";
      else if (iso === "") message = `Такой даты нет: ${text}`;
    }
    if (!message && iso) message = this.problem(slot, iso);
    error.textContent = message;
    input.setAttribute("aria-invalid", message ? "true" : "false");
    if (message || !iso || iso === slot.value) return;
    this.set(slot, iso);
  }

  // -- shared bits -----------------------------------------------------------------------

  marks() {
    const values = this.slots.map((s) => s.value).filter(Boolean);
    return { selected: values, from: values[0], to: values[1] };
  }

  addError() {
    this.error = document.createElement("p");
    this.error.className = "wpb-date-error";
    this.error.setAttribute("role", "alert");
    this.ui.append(this.error);
  }

  say(message) {
    if (this.error) this.error.textContent = message;
  }

  refresh() {
    for (const slot of this.slots) {
      if (slot.trigger) slot.trigger.textContent = `${slot.label}: ${slot.value ? spoken(slot.value) : "выберите дату"}`;
      if (slot.field && document.activeElement !== slot.field) {
        slot.field.value = slot.value ? (slot.field.type === "date" ? slot.value : dotted(slot.value)) : slot.field.value;
      }
      if (slot.grid && !slot.popup.hidden) slot.grid.render();
    }
    if (this.grid) this.grid.render();
    if (this.hint) {
      const next = this.nextSlot();
      this.hint.textContent = this.slots.map((s) => `${s.label}: ${s.value ? spoken(s.value) : "—"}`).join(" · ") + (next ? ` — выберите: ${next.label.toLowerCase()}` : "");
    }
    if (this.sharedTrigger) {
      const shown = this.slots.map((s) => (s.value ? spoken(s.value) : "…"));
      this.sharedTrigger.textContent = this.slots.some((s) => s.value) ? `Даты: ${shown.join(" — ")}` : "Выберите даты";
    }
  }
}

/** A button and the (closed) popup dialog named `label` that it opens. */
function triggerAndPopup(label) {
  const trigger = document.createElement("button");
  trigger.type = "button";
  trigger.className = "wpb-date-trigger secondary";
  trigger.setAttribute("aria-haspopup", "dialog");
  trigger.setAttribute("aria-expanded", "false");
  const popup = document.createElement("div");
  popup.className = "wpb-date-popup";
  popup.hidden = true;
  popup.setAttribute("role", "dialog");
  popup.setAttribute("aria-label", label);
  return [trigger, popup];
}

/** "15.09.2026" -> "2026-09-15"; "" when no such day (31.02); null when not ДД.ММ.ГГГГ. */
export function parseDotted(text) {
  const m = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(text);
  if (!m) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || month > 12 || t.getUTCDate() !== day || t.getUTCMonth() !== month - 1) return "";
  return `${m[3]}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

document.querySelectorAll("[data-wpb-date]").forEach((root) => {
  root.wpbDate = new DateField(root);
});
