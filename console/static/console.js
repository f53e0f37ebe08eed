// Keyboard shortcuts only: every action also works as a plain link or form without this file.
// "/" focuses the search field; on lists, "j" and "k" move between rows and Enter opens the focused one.
(function () {
  "use strict";
  function typing(e) {
    var t = e.target;
    return t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) { return; }
    if (e.key === "/") {
      var search = document.getElementById("search");
      if (search) { e.preventDefault(); search.focus(); }
      return;
    }
    if (e.key !== "j" && e.key !== "k") { return; }
    var links = Array.prototype.slice.call(document.querySelectorAll(".rows td.title a"));
    if (!links.length) { return; }
    var i = links.indexOf(document.activeElement);
    i = e.key === "j" ? Math.min(i + 1, links.length - 1) : Math.max(i - 1, 0);
    links[i].focus();
  });
})();
