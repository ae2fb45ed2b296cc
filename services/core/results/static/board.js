// Sorting the board by a column: a click on a numeric header orders the rows by the
// cells' data-value (descending first, again for ascending); rows without a value last.
for (const table of document.querySelectorAll("table.sortable")) {
  const headers = [...table.tHead.rows[0].cells];
  headers.forEach((th, column) => {
    if (!th.dataset.sort) return;
    th.tabIndex = 0;
    const sort = () => {
      const descending = th.getAttribute("aria-sort") !== "descending";
      headers.forEach((other) => other.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      const body = table.tBodies[0];
      const value = (row) => parseFloat(row.cells[column].dataset.value);
      const rows = [...body.rows].sort((a, b) => {
        const x = value(a), y = value(b);
        if (Number.isNaN(x)) return 1;
        if (Number.isNaN(y)) return -1;
        return descending ? y - x : x - y;
      });
      body.append(...rows);
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        sort();
      }
    });
  });
}
