// Pages that change by themselves (the table's page, the director's console): on each `changed`
// event of the page's stream (data-events) the page is fetched again and its parts marked
// data-live are swapped in place. What the reader was doing is kept: values typed and not sent,
// ticked boxes, open <details>, the focused field and its cursor. The server sends at most one
// event a second. Without this script the page says how to reload it (<noscript>); a page the
// server now refuses (a replaced sheet, the round over) is opened again, to show why.
(function () {
  "use strict";
  var marked = document.querySelector("[data-events]");
  if (!marked || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  var busy = false, again = false;

  function pageUrl() {
    var url = new URL(window.location.href);
    url.searchParams.delete("said");
    return url.toString();
  }
  function formKey(form) {
    return (form.getAttribute("action") || "") + "|" + (form.getAttribute("data-key") || "");
  }
  function fieldKey(el) {
    var form = el.form;
    var own = el.name + (el.type === "radio" || el.type === "checkbox" ? "=" + el.value : "");
    return (form ? formKey(form) : "") + "|" + own;
  }
  function changed(el) {
    if (el.type === "hidden" || el.type === "submit" || !el.name) { return false; }
    if (el.type === "checkbox" || el.type === "radio") { return el.checked !== el.defaultChecked; }
    if (el.tagName === "SELECT") {
      return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    return el.value !== el.defaultValue;
  }
  function detailsKey(d) {
    var form = d.querySelector("form");
    return d.id || (form ? formKey(form) : d.querySelector("summary") && d.querySelector("summary").textContent);
  }
  function keep(region) {
    var kept = {values: {}, open: {}, focus: null};
    region.querySelectorAll("input, select, textarea").forEach(function (el) {
      if (changed(el)) {
        kept.values[fieldKey(el)] = el.type === "checkbox" || el.type === "radio" ? el.checked : el.value;
      }
    });
    region.querySelectorAll("details[open]").forEach(function (d) { kept.open[detailsKey(d)] = true; });
    var active = document.activeElement;
    if (active && region.contains(active) && active.name) {
      kept.focus = {key: fieldKey(active), start: active.selectionStart, end: active.selectionEnd};
    }
    return kept;
  }
  function restore(region, kept) {
    region.querySelectorAll("details").forEach(function (d) {
      if (kept.open[detailsKey(d)]) { d.open = true; }
    });
    region.querySelectorAll("input, select, textarea").forEach(function (el) {
      var key = fieldKey(el);
      if (Object.prototype.hasOwnProperty.call(kept.values, key)) {
        if (el.type === "checkbox" || el.type === "radio") { el.checked = kept.values[key]; }
        else { el.value = kept.values[key]; }
      }
      if (kept.focus && kept.focus.key === key) {
        el.focus();
        try { el.setSelectionRange(kept.focus.start, kept.focus.end); } catch (e) { /* not a text field */ }
      }
    });
  }
  function swap(page) {
    var done = false;
    var fresh = page.querySelector("[data-events]");
    if (fresh) { marked.setAttribute("data-version", fresh.getAttribute("data-version")); }
    document.querySelectorAll("[data-live][id]").forEach(function (region) {
      var fresh = page.getElementById(region.id);
      if (!fresh) { return; }
      var kept = keep(region);
      region.replaceChildren.apply(region, Array.prototype.map.call(fresh.childNodes, function (node) {
        return document.importNode(node, true);
      }));
      restore(region, kept);
      if (window.sjdBind) { window.sjdBind(region); }
      done = true;
    });
    var stamp = document.getElementById("updated");
    if (done && stamp) {
      var d = new Date();
      var two = function (n) { return (n < 10 ? "0" : "") + n; };
      stamp.textContent = (stamp.getAttribute("data-text") || "{time}").replace(
        "{time}", two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds()));
    }
  }
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    var url = pageUrl();
    fetch(url, {headers: {"Accept": "text/html"}, cache: "no-store", credentials: "same-origin"})
      .then(function (reply) {
        if (!reply.ok) { window.location.assign(url); return null; }  // the server's reason, shown
        return reply.text();
      })
      .then(function (text) {
        if (text) { swap(new DOMParser().parseFromString(text, "text/html")); }
      })
      .catch(function () { /* offline: the next event, or the reader's reload, brings it */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }
  var source = new EventSource(marked.getAttribute("data-events"));
  source.addEventListener("changed", function (event) {
    if (String(event.data) === marked.getAttribute("data-version")) { return; }  // already shown
    refresh();
  });
}());
