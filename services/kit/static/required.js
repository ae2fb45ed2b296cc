// A form that names its required fields (`data-required`: [["field", "message"], …] in the
// form's order, rendered by the server from the very messages it answers an empty field
// with) does not leave while one is empty: the message goes into the field's error slot
// (`[data-error-for~=field]`; a slot shared by two fields shows the first one missing).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.required) return;
  const filled = new Set();
  let missing = false;
  for (const [name, message] of JSON.parse(form.dataset.required)) {
    const slot = form.querySelector(`[data-error-for~="${name}"]`);
    if (!form.elements[name]?.value) {
      if (slot && !filled.has(slot)) slot.textContent = message;
      if (slot) filled.add(slot);
      missing = true;
    } else if (slot && !filled.has(slot) && slot.textContent === message) {
      slot.textContent = "";
    }
  }
  if (missing) event.preventDefault();
});
