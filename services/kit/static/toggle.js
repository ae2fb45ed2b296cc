// A toggle of the page that sends nothing (kit/reviews.html: a review's «Полезно», a
// subscription): a press flips `aria-pressed` and its caption.
for (const button of document.querySelectorAll("button[data-toggle]")) {
  button.addEventListener("click", () => {
    const on = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? button.dataset.on : button.dataset.off;
  });
}
