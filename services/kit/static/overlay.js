// The shell's overlay dialogs (kit/overlay.html): the consent at once, the promo after its
// seeded delay. Each writes `dialog_opened` when it opens and `dialog_closed` (how) when the
// person closes it; the server keeps what the trajectory is done with and never renders that
// dialog again, on any of its sites. A dialog closes once its event is stored, so the next
// page already knows. The consent wants an answer: Esc does not close it.
import { emit } from "/_kit/emit.js";

function open(dialog) {
  dialog.showModal();
  emit("dialog_opened", { dialog: dialog.dataset.overlay });
}

async function close(dialog, how) {
  if (dialog.dataset.closing) return; // a second click on the way out is not a second answer
  dialog.dataset.closing = how;
  await emit("dialog_closed", { dialog: dialog.dataset.overlay, how });
  dialog.close();
}

for (const dialog of document.querySelectorAll("dialog[data-overlay]")) {
  dialog.querySelectorAll("[data-close]").forEach((button) =>
    button.addEventListener("click", () => close(dialog, button.dataset.close)),
  );
  dialog.addEventListener("cancel", (event) => {
    event.preventDefault();
    if (dialog.dataset.overlay === "promo") close(dialog, "escape");
  });
  const after = Number(dialog.dataset.afterMs ?? 0);
  if (after > 0) setTimeout(() => open(dialog), after);
  else open(dialog);
}
