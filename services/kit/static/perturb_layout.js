// The list perturbations (services/core/perturb.py), on the lists a site marks with
// `kit/widgets/layout.html`'s `list()`: the element's children are its cards.
// - `lazy`: the first `data-kit-first` cards show; each time the person scrolls with the end
//   of the list in view, after a short load, `data-kit-step` more. The rest are `hidden`: out
//   of the page and of its accessibility tree until they come.
// - `paginated`: pages of `data-kit-page` cards and a pager after the list («Назад», the pages
//   «Страница N», «Вперёд»). The page is client-side: the server renders the whole list, so the
//   events it writes stay as they are; the page shown is kept in the address (`#page=N`, which
//   holds the trajectory's id like every address of it), so going back returns to it.
const LOAD_MS = 400;
const WAITING = "Прокрутите вниз, чтобы загрузить ещё";
const INTENTS = ["scroll", "wheel", "touchmove", "keydown"];
const SCROLL_KEYS = new Set(["ArrowDown", "PageDown", "End", " "]);

function lazy(list) {
  const cards = [...list.children];
  let shown = Number(list.dataset.kitFirst);
  const step = Number(list.dataset.kitStep);
  cards.forEach((card, index) => (card.hidden = index >= shown));
  list.dataset.kitReady = "";
  if (cards.length <= shown) return;
  const more = document.createElement("p");
  more.className = "kit-lazy-more";
  more.setAttribute("role", "status");
  more.textContent = WAITING;
  list.after(more);
  let loading = false;
  // Each scroll (the wheel, a key, a swipe, the page moving) that finds the end of the list
  // in view loads the next cards: one batch for each, none before the person scrolls.
  function load() {
    if (loading || more.getBoundingClientRect().top > innerHeight + 100) return;
    loading = true;
    more.textContent = "Загружаем ещё…";
    setTimeout(() => {
      shown += step;
      cards.forEach((card, index) => (card.hidden = index >= shown));
      loading = false;
      more.textContent = WAITING;
      if (shown < cards.length) return;
      more.remove();
      INTENTS.forEach((type) => removeEventListener(type, intent));
    }, LOAD_MS);
  }
  function intent(event) {
    if (event.type !== "keydown" || SCROLL_KEYS.has(event.key)) load();
  }
  INTENTS.forEach((type) => addEventListener(type, intent, { passive: true }));
}

function pageInAddress() {
  const match = /^#page=(\d+)$/.exec(location.hash);
  return match ? Number(match[1]) : 1;
}

function button(caption, label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = caption;
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

function paginated(list, keepInAddress) {
  const cards = [...list.children];
  const size = Number(list.dataset.kitPage);
  const pages = Math.ceil(cards.length / size);
  if (pages <= 1) {
    list.dataset.kitReady = "";
    return;
  }
  const pager = document.createElement("nav");
  pager.className = "kit-pager";
  pager.setAttribute("aria-label", "Страницы списка");
  const status = document.createElement("p");
  status.className = "kit-pager-status";
  status.setAttribute("aria-live", "polite");
  let current = 1;
  const back = button("Назад", "", () => show(current - 1, true));
  const numbers = [];
  for (let n = 1; n <= pages; n++) numbers.push(button(String(n), `Страница ${n}`, () => show(n, true)));
  const forward = button("Вперёд", "", () => show(current + 1, true));
  pager.append(status, back, ...numbers, forward);
  list.after(pager);

  function show(page, moved) {
    current = Math.min(Math.max(page, 1), pages);
    cards.forEach((card, index) => (card.hidden = Math.floor(index / size) + 1 !== current));
    back.disabled = current === 1;
    forward.disabled = current === pages;
    numbers.forEach((b, index) => {
      const on = index + 1 === current;
      b.className = on ? "" : "secondary";
      if (on) b.setAttribute("aria-current", "page");
      else b.removeAttribute("aria-current");
    });
    status.textContent = `Страница ${current} из ${pages}`;
    if (!moved) return;
    if (keepInAddress) history.replaceState(null, "", current === 1 ? location.pathname + location.search : `#page=${current}`);
    list.scrollIntoView({ block: "start" });
  }

  show(keepInAddress ? pageInAddress() : 1, false);
  list.dataset.kitReady = "";
}

document.querySelectorAll('[data-kit-list="lazy"]').forEach(lazy);
document
  .querySelectorAll('[data-kit-list="paginated"]')
  .forEach((list, index) => paginated(list, index === 0));
