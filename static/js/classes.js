// Classes: countdowns to due times, and a learner's assignments on the course page and in an
// exercise's panel (what is left, the due time in their zone and the class's, a live countdown).
// Every label comes translated from the page (data-label-*); the countdown's words come from the
// browser's Intl.RelativeTimeFormat in the page's language. Without JavaScript the class pages
// still show every due time; only the countdown and the course-page box need it.
(function () {
  "use strict";
  function lang() { return document.documentElement.lang === "en" ? "en" : "ko"; }

  function relative(ms) {
    var rtf = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" });
    var minutes = Math.round(ms / 60000);
    if (Math.abs(minutes) < 60) return rtf.format(minutes, "minute");
    var hours = Math.round(minutes / 60);
    if (Math.abs(hours) < 48) return rtf.format(hours, "hour");
    return rtf.format(Math.round(hours / 24), "day");
  }

  function tick() {
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var left = Date.parse(el.dataset.countdown) - Date.now();
      if (isNaN(left)) return;
      el.textContent = left <= 0 ? "· " + (el.dataset.labelPast || "") + " (" + relative(left) + ")" : "· " + relative(left);
      el.classList.toggle("is-past", left <= 0);
    });
  }

  function node(tag, text, attrs) {
    var el = document.createElement(tag);
    if (text) el.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }

  function render(box, items) {
    var d = box.dataset;
    var wanted = d.exercise || "";
    var mine = items.filter(function (m) { return !wanted || m.assignment.exercises.indexOf(wanted) >= 0; });
    if (!mine.length) return;
    box.textContent = "";
    box.appendChild(node(wanted ? "h3" : "h2", d.labelTitle));
    var list = node("ul", "", { "class": "class-list" });
    mine.forEach(function (m) {
      var a = m.assignment;
      var li = node("li", "", { "class": "class-card", "data-my-assignment": String(a.id) });
      var title = node("p", "", { "class": "class-card__title" });
      title.appendChild(node("strong", a.title));
      title.appendChild(node("span", " · " + m.class_name, { "class": "muted" }));
      li.appendChild(title);
      var due = node("p", d.labelDue + ": ");
      due.appendChild(node("time", a.due.yours, { datetime: a.due.utc }));
      if (a.due.class_zone !== a.due.yours) due.appendChild(node("span", " (" + a.due.class_zone + ")", { "class": "muted" }));
      due.appendChild(document.createTextNode(" "));
      due.appendChild(node("span", "", { "class": "muted", "data-countdown": a.due.utc, "data-label-past": d.labelPast }));
      li.appendChild(due);
      // "Done: 0 of 1", as the class page says it; a bare "0/1" left the reader guessing what was counted
      var score = d.labelScore.replace("%(score)s", m.score).replace("%(out_of)s", m.out_of);
      li.appendChild(node("p", score + (m.late ? " · " + d.labelLate : ""), { "data-score": m.score + "/" + m.out_of }));
      if (m.left.length) {
        var left = node("ul", "", { "data-left": "" });
        m.left.forEach(function (item) {
          var entry = node("li");
          entry.appendChild(node("a", (item.kind === "lesson" ? d.labelRead : d.labelPass) + ": " + item.title,
                                 { href: item.url, "data-left-item": item.ref }));
          left.appendChild(entry);
        });
        li.appendChild(node("p", d.labelLeft));
        li.appendChild(left);
      } else {
        li.appendChild(node("p", d.labelDone, { "data-all-done": "" }));
      }
      list.appendChild(li);
    });
    box.appendChild(list);
    box.hidden = false;
    tick();
  }

  function load() {
    var boxes = document.querySelectorAll("[data-my-assignments]");
    if (!boxes.length || !document.body.dataset.signedIn) return;
    fetch("/api/me/assignments?lang=" + lang(), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { assignments: [] }; })
      .then(function (data) { boxes.forEach(function (box) { render(box, data.assignments || []); }); })
      .catch(function () { /* the class pages still list every assignment */ });
  }

  function start() { load(); tick(); setInterval(tick, 30000); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
