// A month grid of day buttons, shared by the date widgets. Past days (before `min`) are
// disabled; arrows move between days, PageUp/PageDown between months, Enter picks.
import { focusOnly } from "/_kit/widgets/keys.js";

export const MONTHS = ["Январь", "Февраль", "Март", "Апрель", "Май", "Июнь", "Июль", "Август", "Сентябрь", "Октябрь", "Ноябрь", "Декабрь"];
export const MONTHS_GEN = ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"];
const WEEKDAYS = ["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"];

/** "2026-09-15" -> [2026, 9, 15] */
export function parts(iso) {
  return iso.split("-").map(Number);
}

export function isoOf(year, month, day) {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

export function addDays(iso, days) {
  const [y, m, d] = parts(iso);
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return isoOf(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/** «15 сентября 2026» */
export function spoken(iso) {
  const [y, m, d] = parts(iso);
  return `${d} ${MONTHS_GEN[m - 1]} ${y}`;
}

/** «15.09.2026» */
export function dotted(iso) {
  const [y, m, d] = parts(iso);
  return `${String(d).padStart(2, "0")}.${String(m).padStart(2, "0")}.${y}`;
}

function daysIn(year, month) {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export class MonthGrid {
  /**
   * @param {{min: string, label: string, onPick: (iso: string) => void,
   *          marks?: () => {selected: string[], from?: string, to?: string}}} options
   */
  constructor({ min, label, onPick, marks }) {
    this.min = min;
    this.onPick = onPick;
    this.marks = marks || (() => ({ selected: [] }));
    [this.year, this.month] = parts(min);
    this.el = document.createElement("div");
    this.el.className = "wpb-cal";
    this.el.setAttribute("role", "group");
    this.el.setAttribute("aria-label", label);
    this.el.addEventListener("keydown", (event) => this.keydown(event));
    this.render();
  }

  show(iso) {
    if (!iso) return;
    [this.year, this.month] = parts(iso < this.min ? this.min : iso);
    this.render();
  }

  shift(months) {
    let index = this.year * 12 + (this.month - 1) + months;
    const [minY, minM] = parts(this.min);
    index = Math.max(index, minY * 12 + minM - 1);
    this.year = Math.floor(index / 12);
    this.month = (index % 12) + 1;
    this.render();
  }

  /** Focus the day `iso` (or the first day that can be picked), making it the grid's tab stop. */
  focus(iso) {
    const day = (iso && this.el.querySelector(`button[data-date="${iso}"]:not(:disabled)`)) || this.el.querySelector("button[data-date]:not(:disabled)");
    if (day) focusOnly(this.el.querySelectorAll("button[data-date]"), day);
    else this.el.querySelector("button")?.focus();
  }

  render() {
    const { selected, from, to } = this.marks();
    const [minY, minM] = parts(this.min);
    const atStart = this.year * 12 + this.month <= minY * 12 + minM;
    this.el.replaceChildren();
    const head = document.createElement("div");
    head.className = "wpb-cal-head";
    const prev = button("‹", "Предыдущий месяц", "wpb-cal-prev");
    prev.disabled = atStart;
    prev.addEventListener("click", () => this.shift(-1));
    const title = document.createElement("span");
    title.className = "wpb-cal-title";
    title.setAttribute("aria-live", "polite");
    title.textContent = `${MONTHS[this.month - 1]} ${this.year}`;
    const next = button("›", "Следующий месяц", "wpb-cal-next");
    next.addEventListener("click", () => this.shift(1));
    head.append(prev, title, next);
    const grid = document.createElement("div");
    grid.className = "wpb-cal-grid";
    for (const name of WEEKDAYS) {
      const cell = document.createElement("span");
      cell.className = "wpb-cal-wd";
      cell.textContent = name;
      cell.setAttribute("aria-hidden", "true");
      grid.append(cell);
    }
    const first = (new Date(Date.UTC(this.year, this.month - 1, 1)).getUTCDay() + 6) % 7;
    for (let i = 0; i < first; i++) grid.append(document.createElement("span"));
    for (let day = 1; day <= daysIn(this.year, this.month); day++) {
      const iso = isoOf(this.year, this.month, day);
      const b = button(String(day), spoken(iso), "wpb-cal-day");
      b.dataset.date = iso;
      b.disabled = iso < this.min;
      b.tabIndex = -1;
      if (selected.includes(iso)) {
        b.classList.add("is-selected");
        b.setAttribute("aria-pressed", "true");
      }
      if (from && to && iso > from && iso < to) b.classList.add("is-between");
      b.addEventListener("click", () => this.onPick(iso));
      grid.append(b);
    }
    const focusable = grid.querySelector(".is-selected:not(:disabled)") || grid.querySelector("button:not(:disabled)");
    if (focusable) focusable.tabIndex = 0;
    this.el.append(head, grid);
  }

  keydown(event) {
    const current = event.target.dataset?.date;
    if (!current) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };
    let target = null;
    if (event.key in moves) target = addDays(current, moves[event.key]);
    else if (event.key === "PageDown") target = addDays(current, 30);
    else if (event.key === "PageUp") target = addDays(current, -30);
    if (!target) return;
    event.preventDefault();
    if (target < this.min) target = this.min;
    const [y, m] = parts(target);
    if (y !== this.year || m !== this.month) {
      this.year = y;
      this.month = m;
      this.render();
    }
    this.focus(target);
  }
}

function button(text, label, className) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  b.setAttribute("aria-label", label);
  return b;
}
