// Cart buttons without a page reload: the server changes the cart and writes the event;
// this only redraws the card. Without JS the same forms post and redirect back.
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!form.matches("form[data-cart]")) return;
  event.preventDefault();
  const box = form.closest(".g-qty");
  const buttons = box.querySelectorAll("button");
  buttons.forEach((b) => (b.disabled = true));
  try {
    const response = await fetch(form.action, {
      method: "POST", body: new FormData(form), headers: { Accept: "application/json" },
    });
    const answer = await response.json();
    box.querySelector(".g-error")?.remove();
    if (!response.ok) {
      box.insertAdjacentHTML("beforeend", `<p class="g-error" role="alert"></p>`);
      box.querySelector(".g-error").textContent = answer.detail?.includes("stock") ? "Больше нет в наличии" : "Не получилось, попробуйте ещё раз";
      return;
    }
    box.dataset.amount = answer.amount;
    box.querySelector(".g-amount").textContent = answer.amount;
    box.querySelector(".g-add").hidden = answer.amount > 0;
    box.querySelector(".g-stepper").hidden = answer.amount === 0;
    document.querySelectorAll(".g-cart-count").forEach((el) => (el.textContent = answer.count));
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
});
