// `clickables=divs` (services/kit/clickables.py): `div`s that act as the buttons they
// replace. A click, or Enter or Space on the focused div, sends its form as the button
// did (the kit's commerce.js then answers it without a reload) or downloads its file.

function act(el) {
  if (el.dataset.busy === "true") return; // its request is on its way (commerce.js)
  if (el.dataset.click === "submit") {
    el.closest("form").requestSubmit();
  } else if (el.dataset.click === "download") {
    const link = document.createElement("a");
    link.href = el.dataset.href;
    link.download = "";
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
  }
}

document.addEventListener("click", (event) => {
  const el = event.target.closest("[data-click]");
  if (el) act(el);
});

document.addEventListener("keydown", (event) => {
  const el = event.target.closest?.("[data-click]");
  if (!el || (event.key !== "Enter" && event.key !== " ")) return;
  event.preventDefault();
  act(el);
});
