// Маркет page behaviour beyond the shared `/_kit/commerce.js`: the login dialog and the
// showcase carousel.
import { emit } from "/_kit/emit.js";

// The login dialog.
document.querySelectorAll("[data-open-dialog]").forEach((button) =>
  button.addEventListener("click", () => {
    const name = button.dataset.openDialog;
    const dialog = document.getElementById(`${name}-dialog`);
    if (!dialog) return;
    dialog.showModal();
    dialog.querySelector("input:not([type=hidden])")?.focus();
    emit("dialog_opened", { dialog: name });
  }),
);
document.querySelectorAll("[data-close-dialog]").forEach((button) =>
  button.addEventListener("click", () => button.closest("dialog").close()),
);

// The carousel: one slide at a time.
document.querySelectorAll("[data-carousel]").forEach((carousel) => {
  const slides = [...carousel.querySelectorAll(".m-slide")];
  const pos = carousel.querySelector("[data-slide-pos]");
  let current = 0;
  carousel.querySelectorAll("[data-slide]").forEach((button) =>
    button.addEventListener("click", () => {
      current = (current + Number(button.dataset.slide) + slides.length) % slides.length;
      slides.forEach((slide, n) => (slide.hidden = n !== current));
      pos.textContent = `${current + 1} / ${slides.length}`;
    }),
  );
});
