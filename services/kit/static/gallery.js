// An item's gallery (kit/gallery.html): a thumbnail shows its picture in the main place and
// stays pressed until another is chosen.
for (const gallery of document.querySelectorAll(".kit-gallery")) {
  const main = gallery.querySelector(".kit-gallery-main");
  const thumbs = [...gallery.querySelectorAll(".kit-gallery-thumb")];
  for (const thumb of thumbs) {
    thumb.addEventListener("click", () => {
      main.src = thumb.dataset.src;
      for (const other of thumbs) other.setAttribute("aria-pressed", String(other === thumb));
    });
  }
}
