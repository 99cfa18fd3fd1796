// SPDX-License-Identifier: MIT
// The web UI's conveniences (issue 16); no page depends on them.  Text is
// set through textContent alone, and elements made with createElement:
// Trusted Types are enforced with no policy, so no HTML is ever parsed from
// a string here.
"use strict";
(function () {
  // "/" focuses the search field, unless one is typing already.
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var q = document.getElementById("site-search");
    if (!q) return;
    e.preventDefault();
    q.focus();
    q.select();
  });

  // A session opened at an event (at=): its turn in view.
  var at = document.querySelector(".turn.at");
  if (at && at.scrollIntoView) at.scrollIntoView({block: "start"});

  // An event's raw line, loaded in place: the form's button posts to the
  // JSON API with the session's CSRF token (from <meta name="csrf">).
  var meta = document.querySelector('meta[name="csrf"]');
  var csrf = meta ? meta.getAttribute("content") : "";
  document.querySelectorAll("form[data-raw-line]").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      var id = form.getAttribute("data-raw-line");
      var out = document.getElementById(form.getAttribute("data-target"));
      if (!id || !out || !window.fetch) return;  // the form's own GET does it
      e.preventDefault();
      out.textContent = "Loading…";
      fetch("/admin/api/sources", {
        method: "POST",
        credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
        body: JSON.stringify({id: id})
      }).then(function (r) {
        return r.json().then(function (body) { return {ok: r.ok, body: body}; });
      }).then(function (res) {
        if (!res.ok) {
          out.textContent = (res.body && res.body.error && res.body.error.message) || "Could not load the raw line.";
          return;
        }
        var src = firstSource(res.body);
        if (src && typeof src.withheld === 'string') {
          out.textContent = 'The raw line is not shown: ' + src.withheld + '.';
          return;
        }
        var raw = src ? src.raw : null;
        if (raw === null) { out.textContent = "No raw line is stored for this event."; return;
        }
        var limit = 4000;
        var pre = document.createElement("pre");
        pre.textContent = raw.length > limit ? raw.slice(0, limit) : raw;
        out.textContent = "";
        out.appendChild(pre);
        if (raw.length > limit) {
          var note = document.createElement("p");
          note.className = "meta";
          note.textContent = "Cut at " + limit + " of " + raw.length + " characters.";
          out.appendChild(note);
        }
      }).catch(function () {
        out.textContent = "Could not load the raw line.";
      });
    });
  });

  // The answer of `sources` (docs/architecture.md): {id, sources: [{file,
  // mirror, generation, line, raw, withheld}]}, alone or as the API's
  // "result": its first line, as {raw} or {withheld}; null when none.
  function firstSource(body) {
    if (body && body.result) body = body.result;
    var chain = (body && body.sources) || [];
    for (var i = 0; i < chain.length; i++) {
      if (typeof chain[i].withheld === 'string') return {withheld: chain[i].withheld};
      if (typeof chain[i].raw === 'string') return {raw: chain[i].raw};
    }
    return typeof (body && body.raw) === 'string' ? {raw: body.raw} : null;
  }
})();
