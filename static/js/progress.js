// Progress for signed-in readers, and the hand-over of a visitor's local progress.
// A visitor's progress lives in localStorage (see site.js). When a signed-in page loads and this
// browser holds local progress the account has not seen yet, it is sent once to
// /api/progress/merge (union, earliest time kept) and the strip is repainted from the answer,
// without a reload; once the server has it, the local copy is cleared. Lesson completion for a signed-in reader goes to the server.
(function () {
  "use strict";
  var PROGRESS_KEY = "mkc-progress-v1";
  var MERGED_KEY = "mkc-progress-merged"; // "<username>\n<JSON sent>": what this account already got

  function load(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }
  function localProgress() {
    try {
      var p = JSON.parse(load(PROGRESS_KEY) || "{}");
      return { completed: (p && typeof p.completed === "object" && p.completed) || {}, read: (p && typeof p.read === "object" && p.read) || {} };
    } catch (e) { return { completed: {}, read: {} }; }
  }
  function csrf() { var m = document.querySelector('meta[name="csrf-token"]'); return m ? m.content : ""; }
  function lang() { return document.documentElement.lang === "en" ? "en" : "ko"; }

  function post(url, body) {
    return fetch(url + "?lang=" + lang(), {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body || {})
    }).then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
  }

  function completedSlugs() {
    var strip = document.querySelector("[data-strip]");
    return strip ? (strip.dataset.completed || "").split(" ").filter(Boolean) : [];
  }

  function announce(list) {
    var region = document.querySelector("[data-announce]");
    if (!region || !list) return;
    list.forEach(function (a) {
      var item = document.createElement("div");
      item.className = "announce__item"; item.setAttribute("role", "status"); item.dataset.achievementId = a.id;
      // The achievement's SVG icon from our sprite (static/img/achievements.svg), not an emoji.
      var ns = "http://www.w3.org/2000/svg";
      var icon = document.createElementNS(ns, "svg"); icon.setAttribute("class", "badge-icon");
      icon.setAttribute("aria-hidden", "true"); icon.setAttribute("focusable", "false");
      var use = document.createElementNS(ns, "use"); use.setAttribute("href", "/static/img/achievements.svg#" + a.id);
      icon.appendChild(use);
      var title = document.createElement("strong"); title.textContent = region.dataset.label + ": " + a.name;
      var text = document.createElement("span"); text.textContent = a.description;
      item.appendChild(icon); item.appendChild(title); item.appendChild(text);
      dismissible(region, item);  // before it enters the live region, so it is read once, whole
      region.appendChild(item);
    });
  }

  // On a phone a card lies over the bottom of the screen (the comment box, the submit button): a tap on
  // its close button takes it away at once, and it goes by itself after a while. The cards the server
  // drew into the page (earned on the previous request) get the same button and timer.
  function dismissible(region, item) {
    function remove() { if (item.parentNode) item.parentNode.removeChild(item); }
    var close = document.createElement("button");
    close.type = "button"; close.className = "announce__close"; close.textContent = "×";
    close.setAttribute("aria-label", region.dataset.labelClose || "");
    close.addEventListener("click", remove);
    item.insertBefore(close, item.firstChild);
    setTimeout(remove, 12000);
  }
  function initAnnouncements() {
    var region = document.querySelector("[data-announce]");
    if (region) region.querySelectorAll(".announce__item").forEach(function (item) { dismissible(region, item); });
  }

  function paint() {
    var done = {};
    completedSlugs().forEach(function (s) { done[s] = true; });
    document.querySelectorAll("[data-lesson-slug]").forEach(function (card) {
      var mark = card.querySelector("[data-progress-mark]");
      if (!mark) return;
      var isDone = !!done[card.dataset.lessonSlug];
      mark.querySelector(".mark").className = isDone ? "mark mark--done" : "mark mark--todo";
      mark.querySelector(".mark__label").textContent = isDone ? mark.dataset.labelDone : mark.dataset.labelTodo;
    });
    var box = document.querySelector("[data-progress]");
    if (box) {
      var button = box.querySelector("[data-mark-complete]");
      var isDone = !!done[box.dataset.slug];
      // signed in, completion is kept (no undo; "reset my progress" lives on the profile)
      var doneLabel = (document.querySelector("[data-strip]") || {dataset: {}}).dataset.labelCompleted;
      button.textContent = isDone ? "✓ " + (doneLabel || button.dataset.labelDone) : button.dataset.labelTodo;
      button.classList.toggle("is-done", isDone);
      button.setAttribute("aria-pressed", isDone ? "true" : "false");
    }
    var strip = document.querySelector("[data-strip]");
    document.querySelectorAll(".local-note").forEach(function (note) {
      if (strip && strip.dataset.labelSynced) note.textContent = strip.dataset.labelSynced;
    });
  }

  function applyAnswer(answer) {
    var strip = document.querySelector("[data-strip]");
    if (strip && answer.strip_html) {
      var holder = document.createElement("div");
      holder.innerHTML = answer.strip_html.trim();
      var fresh = holder.querySelector("[data-strip]");
      if (fresh) strip.parentNode.replaceChild(fresh, strip);
    }
    paint();
    announce(answer.new_achievements);
  }

  function mergeLocal(user) {
    var local = localProgress();
    if (!Object.keys(local.completed).length && !Object.keys(local.read).length) return;
    var payload = JSON.stringify(local);
    if (load(MERGED_KEY) === user + "\n" + payload) return; // this account has it already
    post("/api/progress/merge", local).then(function (answer) {
      store(MERGED_KEY, user + "\n" + payload);
      // The account holds it now (the server confirmed the union). Clearing the local copy keeps
      // it from flowing into the next account signed in on a shared computer.
      try { localStorage.removeItem(PROGRESS_KEY); } catch (e) { /* private mode */ }
      applyAnswer(answer);
    }).catch(function () { /* try again on the next page */ });
  }

  function initSignedInButton() {
    var box = document.querySelector("[data-progress]");
    if (!box) return;
    var button = box.querySelector("[data-mark-complete]");
    button.addEventListener("click", function () {
      if (button.getAttribute("aria-pressed") === "true") return; // completion is kept; reset lives on the profile
      button.disabled = true;
      post("/api/progress/lessons/" + encodeURIComponent(box.dataset.slug) + "/complete", { lang: lang() })
        .then(applyAnswer).catch(function () {}).then(function () { button.disabled = false; });
    });
  }

  // "Read to the end": the end of the lesson scrolled into view after the reader scrolled, and
  // not before a minimum time on the page (nobody reads a lesson in under half a minute).
  var MIN_READ_MS = 30000;
  var openedAt = Date.now();
  function initReadToEnd() {
    var box = document.querySelector("[data-progress]");
    var end = document.querySelector(".pager") || box;
    if (!box || !end || !("IntersectionObserver" in window)) return;
    var scrolled = false;
    window.addEventListener("scroll", function () { scrolled = true; }, { passive: true, once: true });
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting || !scrolled || Date.now() - openedAt < MIN_READ_MS) return;
        var button = box.querySelector("[data-mark-complete]");
        if (button && button.getAttribute("aria-pressed") !== "true") button.click();
        observer.disconnect();
      });
    });
    observer.observe(end);
  }

  function initTimeZoneField() {
    var field = document.querySelector("[data-tz-field]");
    try { if (field) field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch (e) {}
  }

  document.addEventListener("DOMContentLoaded", function () {
    initTimeZoneField();
    initAnnouncements();
    var user = document.body.dataset.signedIn;
    if (user) {
      paint();
      initSignedInButton();
      mergeLocal(user);
    }
    initReadToEnd();
  });
})();
