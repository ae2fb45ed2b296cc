// Station choice (key `select_station`, rail): `typeahead` or `native_select`, on the
// combobox of select_city.js. Each choice writes `select_city` with the field (from/to).
import { combobox } from "/_kit/widgets/select_city.js";

document.querySelectorAll("[data-wpb-combo=station]").forEach((root) => {
  combobox(root, {
    placeholder: "Город или вокзал",
    empty: "Такой станции нет",
    unchosen: "Выберите станцию из списка",
    pick: (station, widget) => ["select_city", { field: root.dataset.field, name: station.id, widget }],
  });
});
