// Download buttons (variant key `buttons`). Every implementation fetches the file's URL,
// which the server answers as an attachment and logs; this drives the split button's menu
// (open, arrows, Escape, outside click) and its «Скопировать ссылку».

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

document.addEventListener("click", (event) => {
  const split = event.target.closest(".wb-split");
  if (!split) return closeAll(null);
  const toggle = event.target.closest(".wb-more");
  if (toggle) {
    if (split.querySelector(".wb-menu").hidden) openMenu(split);
    else closeMenu(split);
    return;
  }
  const copy = event.target.closest("[data-copy]");
  if (copy) copyLink(copy, split);
  else if (event.target.closest('[role="menuitem"]')) closeMenu(split);
});

document.addEventListener("keydown", (event) => {
  const split = event.target.closest?.(".wb-split");
  if (!split) return;
  const menu = split.querySelector(".wb-menu");
  if (event.target.closest(".wb-more")) {
    // Enter and Space click the toggle (handled above); the arrows open it too.
    if (event.key === "ArrowDown") {
      event.preventDefault();
      openMenu(split, 0);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      openMenu(split, -1);
    }
    return;
  }
  if (menu.hidden || !menu.contains(event.target)) return;
  const list = items(menu);
  const index = list.indexOf(event.target);
  let handled = true;
  switch (event.key) {
    case "ArrowDown": list[(index + 1) % list.length].focus(); break;
    case "ArrowUp": list[(index - 1 + list.length) % list.length].focus(); break;
    case "Home": list[0].focus(); break;
    case "End": list[list.length - 1].focus(); break;
    case "Escape": closeMenu(split, true); break;
    case "Tab": closeMenu(split); handled = false; break;
    case " ": event.target.click(); break;
    default: handled = false;
  }
  if (handled) event.preventDefault();
});
