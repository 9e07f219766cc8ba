// The table's page, progressively: typed values kept on the phone (localStorage) until the server
// has stored them, posted without leaving the page, resent with the same server nonce after a
// dropped connection. Without this script the forms post and the server redirects back.
(function () {
  "use strict";
  var head = document.querySelector("[data-sheet]");
  if (!head) { return; }
  var sheet = head.getAttribute("data-sheet").split("?")[0];
  var net = document.getElementById("net");
  var store = window.localStorage;
  function key(slot) { return "sjd:" + sheet + ":" + slot; }
  function read(slot) {
    try { return JSON.parse(store.getItem(key(slot)) || "null"); } catch (e) { return null; }
  }
  function write(slot, value) {
    try { if (value) { store.setItem(key(slot), JSON.stringify(value)); } else { store.removeItem(key(slot)); } }
    catch (e) { /* private mode: the page still works, without keeping values */ }
  }
  function fields(form) {
    var out = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && el.name !== "nonce" && el.name !== "code" && el.name !== "slot") { out[el.name] = el.value; }
    });
    return out;
  }
  function showNet() {
    if (!net) { return; }
    net.textContent = navigator.onLine ? net.getAttribute("data-online") : net.getAttribute("data-offline");
    net.className = "net " + (navigator.onLine ? "on" : "off");
  }
  function say(form, text, bad) {
    var box = form.querySelector(".reply");
    if (!box) { box = document.createElement("div"); box.className = "reply"; form.appendChild(box); }
    box.textContent = text;
    box.setAttribute("role", bad ? "alert" : "status");
    box.className = "reply" + (bad ? " bad" : "");
  }
  function pending(form, on) {
    var mark = form.querySelector(".pending");
    if (mark) { mark.hidden = !on; }
  }
  function shown(nonce) {
    // the page again, saying what the server did (as the server's redirect does without script)
    var next = new URL(head.getAttribute("data-sheet"), window.location.href);
    if (nonce) { next.searchParams.set("said", nonce); }
    window.location.assign(next.toString());
  }
  function send(form, body, slot) {
    var button = form.querySelector("button");
    if (button) { button.disabled = true; }
    return fetch(form.action, {
      method: "POST", body: body, credentials: "same-origin",
      headers: {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"}
    }).then(function (reply) {
      return reply.json().then(function (data) {
        if (button) { button.disabled = false; }
        if (reply.ok) {
          if (slot) { write(slot, null); }
          pending(form, false);
          shown(form.elements.nonce ? form.elements.nonce.value : null);
          return;
        }
        if (slot && data.key === "serve.not_stored") {
          // the server's write failed and stored nothing: sent again, with the same nonce
          pending(form, true);
          window.setTimeout(resend, 2000);
          return;
        }
        if (slot) { var kept = read(slot); if (kept) { kept.pending = false; write(slot, kept); } }
        pending(form, false);
        say(form, [data.message].concat(data.problems || []).join(" "), true);
      });
    }, function () {
      if (button) { button.disabled = false; }
      pending(form, true);   // not sent: kept, and sent again when the phone is back online
    });
  }
  function encode(form, nonce) {
    var parts = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name) { return; }
      var value = el.name === "nonce" && nonce ? nonce : el.value;
      parts.push(encodeURIComponent(el.name) + "=" + encodeURIComponent(value));
    });
    return parts.join("&");
  }
  function resend() {
    Array.prototype.forEach.call(document.querySelectorAll("form.enter"), function (form) {
      var slot = form.getAttribute("data-slot");
      var kept = read(slot);
      if (kept && kept.pending && navigator.onLine) { send(form, encode(form, kept.nonce), slot); }
    });
  }
  function bindEntry(form) {
    var slot = form.getAttribute("data-slot");
    var kept = read(slot);
    if (kept) {
      Object.keys(kept.fields || {}).forEach(function (name) {
        var el = form.elements[name];
        if (el && !el.value) { el.value = kept.fields[name]; }
        else if (el && kept.pending) { el.value = kept.fields[name]; }
      });
      if (kept.pending) { form.elements.nonce.value = kept.nonce; pending(form, true); }
    }
    form.addEventListener("input", function () {
      var now = read(slot) || {};
      if (!now.pending) { write(slot, {fields: fields(form), nonce: form.elements.nonce.value, pending: false}); }
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var nonce = form.elements.nonce.value;
      write(slot, {fields: fields(form), nonce: nonce, pending: true});
      send(form, encode(form, nonce), slot);
    });
  }
  function bindCode(form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      send(form, encode(form, null), null);
    });
  }
  // The forms of `root` (the page, or a part refresh.js swapped in when the sheet changed).
  function bind(root) {
    Array.prototype.forEach.call(root.querySelectorAll("form.enter"), bindEntry);
    Array.prototype.forEach.call(root.querySelectorAll("form.confirm-form, form.recap-form, form.dispute-form"),
      bindCode);
  }
  window.sjdBind = bind;
  bind(document);
  window.addEventListener("online", function () { showNet(); resend(); });
  window.addEventListener("offline", showNet);
  showNet();
  resend();
}());
