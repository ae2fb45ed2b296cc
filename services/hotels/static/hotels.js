// The search form refuses to leave while a field is empty, naming it in Russian; the server
// checks the same and answers 422 with the same messages.
const MESSAGES = { city: "Выберите город из списка", start: "Укажите дату заезда", end: "Укажите дату выезда" };

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches("form.h-search")) return;
  let missing = false;
  for (const [name, message] of Object.entries(MESSAGES)) {
    const slot = form.querySelector(`[data-error-for~="${name}"]`);
    if (!form.elements[name]?.value) {
      if (slot && !(missing && slot.textContent)) slot.textContent = message;
      missing = true;
    } else if (slot && slot.textContent === message) {
      slot.textContent = "";
    }
  }
  if (missing) event.preventDefault();
});
