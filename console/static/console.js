// Keyboard shortcuts only: every action also works as a plain link or form without this file.
// "/" focuses the search field. On lists, "j" and "k" move between rows (Enter opens the focused one);
// in the inbox "x" selects the current row, and "p", "e" and "l" press Mark processed, Archive and Link to
// idea for the selection, or for the current row when nothing is selected.
(function () {
  "use strict";
  function typing(e) {
    var t = e.target;
    return t && ((t.tagName === "INPUT" && !/^(checkbox|radio|button|submit)$/.test(t.type)) || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
  }
  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll(".rows tbody tr"));
  }
  function current() {
    return document.querySelector(".rows tbody tr.current");
  }
  function move(by) {
    var all = rows();
    if (!all.length) { return; }
    var i = all.indexOf(current());
    i = i < 0 ? 0 : Math.max(0, Math.min(all.length - 1, i + by));
    all.forEach(function (r) { r.classList.remove("current"); });
    all[i].classList.add("current");
    var link = all[i].querySelector("td.title a");
    if (link) { link.focus(); }
  }
  function box(row) {
    return row ? row.querySelector("input[type=checkbox]") : null;
  }
  function act(key) {
    var form = document.getElementById("bulk");
    var button = form && form.querySelector("button[data-key='" + key + "']");
    if (!button) { return false; }
    if (!form.querySelector("input[name=id]:checked")) {
      var b = box(current());
      if (!b) { return false; }
      b.checked = true;
    }
    form.requestSubmit(button);
    return true;
  }
  // A row that gets focus by Tab or click becomes the current one, so the keys act where the reader is.
  document.addEventListener("focusin", function (e) {
    var row = e.target.closest && e.target.closest(".rows tbody tr");
    if (!row) { return; }
    rows().forEach(function (r) { r.classList.toggle("current", r === row); });
  });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) { return; }
    switch (e.key) {
    case "/":
      var search = document.getElementById("search");
      if (search) { e.preventDefault(); search.focus(); }
      return;
    case "j": move(1); return;
    case "k": move(-1); return;
    case "x":
      var b = box(current());
      if (b) { b.checked = !b.checked; }
      return;
    case "p": case "e": case "l":
      if (act(e.key)) { e.preventDefault(); }
      return;
    }
  });
})();

// Live refresh: a region marked data-live-region is fetched again from the same address every few seconds
// (while the tab is visible) and replaced by the server's new rendering of it; the note marked
// data-live="at" says when. The server escaped every outside text of the page it sent, and the nodes are
// moved over as parsed, so nothing becomes markup that was not markup there.
(function () {
  "use strict";
  var region = document.querySelector("[data-live-region]");
  if (!region || !window.fetch || !window.DOMParser) { return; }
  var name = region.getAttribute("data-live-region");
  function refresh() {
    if (document.hidden) { return; }
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (res) {
      if (!res.ok) { throw new Error(res.status); }
      return res.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.querySelector("[data-live-region='" + name + "']");
      var at = doc.querySelector("[data-live='at']");
      if (!fresh) { return; }
      region.replaceChildren.apply(region, Array.prototype.slice.call(fresh.childNodes).map(function (n) { return document.adoptNode(n); }));
      var note = document.querySelector("[data-live='at']");
      if (note && at) { note.textContent = at.textContent; }
    }).catch(function () {
      var note = document.querySelector("[data-live='at']");
      if (note) { note.textContent = note.textContent.replace(/( \(offline\))?$/, " (offline)"); }
    });
  }
  setInterval(refresh, 5000);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { refresh(); } });
})();
