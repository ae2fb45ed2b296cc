// Download buttons (variant key `buttons`). Every implementation fetches the file's URL,
// which the server answers as an attachment and logs; this drives the split button's menu
// (open, arrows, Escape, outside click) and its «Скопировать ссылку».
import { arrowFocus, onOutsideClick } from "/_kit/widgets/keys.js";

function items(menu) {
  return [...menu.querySelectorAll('[role="menuitem"]')];
}

function openMenu(split, focusIndex = 0) {
  const menu = split.querySelector(".wb-menu");
  closeAll(split);
  menu.hidden = false;
  split.querySelector(".wb-more").setAttribute("aria-expanded", "true");
  const list = items(menu);
  list[(focusIndex + list.length) % list.length].focus();
}

function closeMenu(split, focusToggle = false) {
  const menu = split.querySelector(".wb-menu");
  if (menu.hidden) return;
  menu.hidden = true;
  split.querySelector(".wb-more").setAttribute("aria-expanded", "false");
  if (focusToggle) split.querySelector(".wb-more").focus();
}

function closeAll(except) {
  document.querySelectorAll(".wb-split").forEach((split) => split !== except && closeMenu(split));
}

async function copyLink(button, split) {
  const url = new URL(button.dataset.copy, location.href).href;
  const note = split.querySelector(".wb-note");
  try {
    await navigator.clipboard.writeText(url);
    note.textContent = "Ссылка скопирована";
  } catch {
    note.textContent = url;
  }
  closeMenu(split, true);
}

function initSplit(split) {
  const toggle = split.querySelector(".wb-more");
  const menu = split.querySelector(".wb-menu");
  toggle.addEventListener("click", () => (menu.hidden ? openMenu(split) : closeMenu(split)));
  // Enter and Space click the toggle; the arrows open it too.
  toggle.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    event.preventDefault();
    openMenu(split, event.key === "ArrowDown" ? 0 : -1);
  });
  menu.addEventListener("click", (event) => {
    const copy = event.target.closest("[data-copy]");
    if (copy) copyLink(copy, split);
    else if (event.target.closest('[role="menuitem"]')) closeMenu(split);
  });
  arrowFocus(menu, () => items(menu));
  menu.addEventListener("keydown", (event) => {
    if (event.key === "Tab") closeMenu(split); // and the focus moves on as usual
    if (event.key !== "Escape" && event.key !== " ") return;
    event.preventDefault();
    if (event.key === "Escape") closeMenu(split, true);
    else event.target.click();
  });
  onOutsideClick(split, () => closeMenu(split));
}

document.querySelectorAll(".wb-split").forEach(initSplit);
