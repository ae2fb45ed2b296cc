// The bank's page of `payment=bank` (kit/bank.html): the number in groups of four as it is
// typed, the expiry as ММ/ГГ, the drawn card following both; on «Оплатить» the fields are
// checked here as the server checks them (services/kit/account.py: Luhn, not before this
// month by the stand's date, three digits of CVC) and, when they pass, «Обрабатываем платёж…»
// is shown for a moment before the form goes. The server writes `submit_payment`; this only
// shows and sends.
const PROCESSING_MS = 900;
const form = document.querySelector("form[data-bank]");
const number = form.elements.card_number;
const expiry = form.elements.card_expiry;
const cvc = form.elements.card_cvc;

function digits(value, most) {
  return value.replace(/\D/g, "").slice(0, most);
}

function luhn(text) {
  let sum = 0;
  [...text].reverse().forEach((d, i) => {
    const n = Number(d) * (i % 2 ? 2 : 1);
    sum += n > 9 ? n - 9 : n;
  });
  return sum % 10 === 0;
}

/** Rewrite a field's value, keeping the caret at the end when it was there (typing). */
function rewrite(field, text) {
  const atEnd = field.selectionStart === field.value.length;
  field.value = text;
  if (atEnd) field.setSelectionRange(text.length, text.length);
}

function drawCard() {
  const shown = digits(number.value, 16).padEnd(16, "•");
  form.querySelector("[data-card-number]").textContent = shown.match(/.{4}/g).join(" ");
  form.querySelector("[data-card-expiry]").textContent = expiry.value || "ММ/ГГ";
}

number.addEventListener("input", () => {
  rewrite(number, digits(number.value, 16).replace(/(.{4})(?=.)/g, "$1 "));
  drawCard();
});
expiry.addEventListener("input", () => {
  const d = digits(expiry.value, 4);
  rewrite(expiry, d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d);
  drawCard();
});
cvc.addEventListener("input", () => rewrite(cvc, digits(cvc.value, 3)));

/** What is wrong with each field, as the server would say it (none: an empty object). */
function problems() {
  const found = {};
  const n = digits(number.value, 99);
  if (n.length !== 16 || !luhn(n)) found.card_number = "номер карты — 16 цифр, проверьте его";
  const m = expiry.value.match(/^\s*(\d{2})\s*\/\s*(\d{2})\s*$/);
  if (!m || Number(m[1]) < 1 || Number(m[1]) > 12) {
    found.card_expiry = "срок действия в виде ММ/ГГ";
  } else {
    const [year, month] = form.dataset.today.split("-").map(Number);
    if (2000 + Number(m[2]) < year || (2000 + Number(m[2]) === year && Number(m[1]) < month)) {
      found.card_expiry = "срок действия карты истёк";
    }
  }
  if (!/^\d{3}$/.test(cvc.value.trim())) found.card_cvc = "код CVC — три цифры с обратной стороны карты";
  return found;
}

function say(found) {
  for (const field of [number, expiry, cvc]) {
    const text = found[field.name] ?? "";
    const box = form.querySelector(`[data-msg="${field.name}"]`);
    box.textContent = text;
    if (text) box.setAttribute("role", "alert");
    else box.removeAttribute("role");
    if (text) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const found = problems();
  say(found);
  const first = [number, expiry, cvc].find((field) => found[field.name]);
  if (first) {
    first.focus();
    return;
  }
  form.querySelector("button[type=submit]").disabled = true;
  form.querySelector("[data-processing]").hidden = false;
  document.querySelector("[data-declined]")?.remove();
  setTimeout(() => form.submit(), PROCESSING_MS);
});

// After a decline: the fields emptied for another card.
document.querySelector("[data-bank-retry]")?.addEventListener("click", () => {
  document.querySelector("[data-declined]").remove();
  form.reset();
  say({});
  drawCard();
  number.focus();
});
