// The live pages of dealer serve (standings, a round, a match): on each `changed` event of
// /-/events the page is fetched again and its content swapped in place ("已更新 hh:mm:ss").
// Without it (JavaScript off, or no EventSource) the page refreshes itself every 30 s
// (<noscript>); it reads the same either way.
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch || !window.DOMParser) return;
  var busy = false, again = false, added = null;

  function two(n) { return (n < 10 ? "0" : "") + n; }
  function clock() {
    var d = new Date();
    return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }
  function status() { return document.getElementById("live-time"); }

  // The site's own script binds the tables' sorting and filters: run again on the new content,
  // the filters keeping what was typed in them.
  function rebind(kept) {
    var first = document.querySelector('script[src$="assets/site.js"]');
    if (!first) return;
    if (added) added.remove();
    added = document.createElement("script");
    added.src = first.src;
    added.onload = function () {
      Object.keys(kept).forEach(function (id) {
        var input = document.getElementById(id);
        if (input && input.matches("input[data-filter]") && kept[id]) {
          input.value = kept[id];
          input.dispatchEvent(new Event("input"));
        }
      });
    };
    document.body.appendChild(added);
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { "Accept": "text/html" }, cache: "no-store", credentials: "same-origin" })
      .then(function (reply) {
        if (!reply.ok) throw new Error("HTTP " + reply.status);
        return reply.text();
      })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        var fresh = page.getElementById("main"), main = document.getElementById("main");
        if (!fresh || !main) return;
        var kept = {};
        main.querySelectorAll("input[id]").forEach(function (input) { kept[input.id] = input.value; });
        main.replaceChildren.apply(main, Array.prototype.slice.call(fresh.childNodes).map(function (node) {
          return document.importNode(node, true);
        }));
        document.title = page.title;
        var s = status();
        if (s) {
          var said = s.querySelector(".live-updated");
          if (said) said.textContent = (s.getAttribute("data-updated") || "{time}").replace("{time}", clock());
        }
        rebind(kept);
      })
      .catch(function () { /* the next event, or the reader's reload, brings it */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  // The site's filter forms filter as one types: never sent (the server's pages run no inline handler).
  document.addEventListener("submit", function (event) {
    if (event.target.matches("form.tools")) event.preventDefault();
  });

  var source = new EventSource("/-/events");
  source.addEventListener("changed", function (event) {
    var s = status();
    if (s && s.getAttribute("data-version") === String(event.data)) return;  // already shown
    refresh();
  });
}());
