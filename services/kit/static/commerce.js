// The shops' page behaviour (grocery, shop, books): cart and favourite buttons without a
// reload, the sort select, the payment method. The server changes the cart, favourites and
// payment method and writes their events; this only sends and redraws. Without JS the same forms post and redirect
// back. The controls come from `kit/commerce.html`; `data-qty` and `data-fav` hold the site's
// class prefix. A change the server refused or never answered is said in an alert beside the
// control, which keeps showing what the server holds.
const FAILED = "Не получилось, попробуйте ещё раз";

/** An expired session (`session=expire`) answers 401 with its login screen: go there; the
 * site keeps the refused change and makes it after the login. True when it did. */
function expired(response, answer) {
  if (response.status !== 401 || !answer?.login) return false;
  location.assign(answer.login);
  return true;
}

/** Post the form; `{ok, answer}`. A lost connection or an answer that is not JSON (a proxy's
 * 502 page) is a failure with an empty answer: the caller says so and changes nothing. */
async function send(form) {
  try {
    const response = await fetch(form.action, {
      method: "POST", body: new FormData(form), headers: { Accept: "application/json" },
    });
    const answer = await response.json().catch(() => null);
    if (expired(response, answer)) return { ok: true, answer: null };
    return { ok: response.ok && answer !== null, answer: answer ?? {} };
  } catch {
    return { ok: false, answer: {} };
  }
}

/** Show `text` (none: remove it) as an alert at the end of `box`, styled `<prefix>-msg`. */
function message(box, prefix, text) {
  box.querySelector(`.${prefix}-msg`)?.remove();
  if (!text) return;
  const p = document.createElement("p");
  p.className = `${prefix}-msg`;
  p.setAttribute("role", "alert");
  p.textContent = text;
  box.append(p);
}

/** Hold `controls` while a request of theirs is on its way: a button disabled, a
 * `clickables=divs` div (clickables.js) marked busy. */
function hold(controls, on) {
  controls.forEach((c) => (c.matches("button") ? (c.disabled = on) : (c.dataset.busy = on)));
}

async function changeCart(form) {
  const box = form.closest("[data-qty]");
  const prefix = box.dataset.qty;
  const buttons = box.querySelectorAll("button, [data-click]");
  hold(buttons, true);
  try {
    const { ok, answer } = await send(form);
    if (answer === null) return; // on the way to the login
    message(box, prefix, ok ? "" : answer.message || FAILED);
    if (!ok) return;
    box.dataset.amount = answer.amount;
    box.querySelector(`.${prefix}-amount`).textContent = answer.amount;
    box.querySelector(`.${prefix}-add`).hidden = answer.amount > 0;
    box.querySelector(`.${prefix}-stepper`).hidden = answer.amount === 0;
    document.querySelectorAll(`.${prefix}-cart-count`).forEach((el) => (el.textContent = answer.count));
  } finally {
    hold(buttons, false);
  }
}

async function changeFavorite(form) {
  const button = form.querySelector("button, [data-click]");
  hold([button], true);
  try {
    const { ok, answer } = await send(form);
    if (answer === null) return; // on the way to the login
    // Refused: the heart keeps saying what the server holds.
    message(form, form.dataset.fav, ok ? "" : answer.message || FAILED);
    if (!ok) return;
    button.textContent = answer.favorite ? "♥" : "♡";
    if (!button.matches("button")) {
      button.dataset.pressed = String(answer.favorite); // a clickables div: no name, no state
    } else {
      button.setAttribute("aria-pressed", String(answer.favorite));
      const action = answer.favorite ? "Убрать из избранного" : "Добавить в избранное";
      button.setAttribute("aria-label", `${action}: ${button.dataset.title}`);
      button.title = answer.favorite ? "В избранном" : "В избранное";
    }
    document.querySelectorAll('[data-testid="fav-count"]').forEach((el) => (el.textContent = answer.count));
  } finally {
    hold([button], false);
  }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.matches("form[data-cart]")) {
    event.preventDefault();
    changeCart(form);
  } else if (form.matches("form[data-select]")) {
    event.preventDefault();
    sendSelection(form);
  } else if (form.matches("form[data-fav]")) {
    event.preventDefault();
    changeFavorite(form);
  }
});

// Sort applies on change; the filters wait for «Применить».
document.querySelectorAll("select[data-autosubmit]").forEach((select) =>
  select.addEventListener("change", () => select.form.requestSubmit()),
);

// Checkout: the chosen payment method goes to the server (`POST …/checkout/method`), which
// writes `select_pay_method`; card fields only for a card.
async function choosePayMethod(radio) {
  const fields = document.querySelector("[data-card-fields]");
  if (fields) fields.hidden = radio.value !== "card";
  const body = new FormData();
  body.set("method", radio.value);
  const box = radio.closest("fieldset[data-prefix]");
  try {
    const response = await fetch(`${radio.form.action}/method`, {
      method: "POST", body, headers: { Accept: "application/json" },
    });
    if (expired(response, await response.clone().json().catch(() => null))) return;
    message(box, box.dataset.prefix, response.ok ? "" : FAILED);
  } catch {
    message(box, box.dataset.prefix, FAILED);
  }
}

document.querySelectorAll("input[data-pay-method]").forEach((radio) =>
  radio.addEventListener("change", () => {
    if (radio.checked) choosePayMethod(radio);
  }),
);

// Cart selection (`kit/commerce.html`'s select macros): every change sends the form
// (`POST …/cart/select`, the ticked lines), the server keeps the selection and answers what
// the selected lines hold; the summary shows it. «Отметить все» ticks or unticks them all.
async function sendSelection(form) {
  const { ok, answer } = await send(form);
  if (answer === null) return; // on the way to the login
  message(form, form.dataset.select, ok ? "" : answer.message || FAILED);
  if (!ok) return;
  document.querySelectorAll("[data-selected-count]").forEach((el) => (el.textContent = answer.count));
  document.querySelectorAll("[data-selected-total]").forEach((el) => (el.textContent = answer.total));
}

// The boxes sit in the table, outside their form (the `form` attribute): listen on the page.
document.addEventListener("change", (event) => {
  const box = event.target;
  const form = box.form;
  if (!form?.matches("form[data-select]")) return;
  const lines = [...form.elements].filter((el) => el.matches("[data-select-line]"));
  const all = [...form.elements].find((el) => el.matches("[data-select-all]"));
  if (box === all) lines.forEach((line) => (line.checked = all.checked));
  else if (all) all.checked = lines.every((line) => line.checked);
  sendSelection(form);
});

// A promo code is checked here and never sent: every code is unknown.
document.querySelectorAll("[data-promo]").forEach((box) => {
  const field = box.querySelector("input");
  const check = () => message(box, box.dataset.promo, field.value.trim()
    ? "Такого промокода нет или срок его действия истёк" : "Введите промокод");
  box.querySelector("button").addEventListener("click", check);
  field.addEventListener("keydown", (event) => {
    if (event.key === "Enter") check();
  });
});
