// The search form refuses to leave while a station or the departure date is empty, naming
// the field in Russian; the server checks the same and answers 422 with the same messages.
const MESSAGES = { from: "Выберите станцию отправления из списка", to: "Выберите станцию прибытия из списка", date: "Укажите дату отправления" };

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches("form.r-search")) return;
  let missing = false;
  for (const [name, message] of Object.entries(MESSAGES)) {
    const slot = form.querySelector(`[data-error-for~="${name}"]`);
    if (!form.elements[name]?.value) {
      missing = true;
      if (slot) slot.textContent = message;
    } else if (slot && slot.textContent === message) {
      slot.textContent = "";
    }
  }
  if (missing) event.preventDefault();
});
