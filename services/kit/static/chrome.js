// The utility bar's region list (kit/topbar.html): a choice becomes the region shown and
// closes the list; nothing is sent, the region is the page's own.
for (const list of document.querySelectorAll("[data-region]")) {
  list.addEventListener("click", (event) => {
    const choice = event.target.closest("[data-region-choice]");
    if (!choice) return;
    for (const other of list.querySelectorAll("[data-region-choice]")) {
      other.setAttribute("aria-pressed", String(other === choice));
    }
    list.querySelector("[data-region-name]").textContent = choice.textContent;
    list.open = false;
  });
}
