// Small, optional: sorting of tables, "follow my team" (kept in this browser) and live filtering.
// Every page reads the same without it.
(function () {
  "use strict";
  var KEY = "shengji-site-follow";
  function store(value) { try { if (value) localStorage.setItem(KEY, value); else localStorage.removeItem(KEY); } catch (e) {} }
  function followed() { try { return localStorage.getItem(KEY) || ""; } catch (e) { return ""; } }
  function highlight() {
    var team = followed();
    document.querySelectorAll("[data-follow] tr[data-team]").forEach(function (row) {
      row.classList.toggle("followed", !!team && row.getAttribute("data-team").split(" ").indexOf(team) >= 0);
    });
    document.querySelectorAll("select[data-follow-select]").forEach(function (s) { s.value = team; });
  }
  document.querySelectorAll("select[data-follow-select]").forEach(function (s) {
    s.addEventListener("change", function () { store(s.value); highlight(); });
  });
  highlight();
  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    var text = cell ? cell.textContent.trim() : "";
    if (!numeric) return text;
    var n = parseFloat(text.replace(/[^0-9.+\-]/g, ""));
    return isNaN(n) ? -Infinity : n;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, index) {
      th.addEventListener("click", function () {
        var numeric = th.hasAttribute("data-sort");
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("thead th").forEach(function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          var order = numeric ? x - y : String(x).localeCompare(String(y));
          return ascending ? order : -order;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    input.addEventListener("input", function () {
      var words = input.value.trim().toLowerCase();
      document.querySelectorAll(input.getAttribute("data-filter") + " tbody tr").forEach(function (row) {
        row.hidden = !!words && row.textContent.toLowerCase().indexOf(words) < 0;
      });
    });
  });
}());
