// Small progressive enhancements: theme toggle, copy buttons, and local reading progress.
// Everything works without JavaScript except these conveniences.
(function () {
  "use strict";
  var THEME_KEY = "mkc-theme";
  var PROGRESS_KEY = "mkc-progress-v1"; // {"completed": {"<slug>": "<ISO time>"}, "read": {"<slug>": ["ko", "en"]}}

  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }
  function load(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }

  // --- Theme -------------------------------------------------------------
  function currentTheme() {
    var t = document.documentElement.dataset.theme;
    if (t) return t;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function initTheme() {
    var button = document.querySelector("[data-theme-toggle]");
    if (!button) return;
    function label() {
      button.setAttribute("aria-label", currentTheme() === "dark" ? button.dataset.labelLight : button.dataset.labelDark);
      button.title = button.getAttribute("aria-label");
    }
    label();
    button.addEventListener("click", function () {
      var next = currentTheme() === "dark" ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      store(THEME_KEY, next);
      label();
    });
  }

  // --- Phone menu: a disclosure button (aria-expanded), closed by Escape or a click elsewhere ---
  function initMenu() {
    var nav = document.querySelector("[data-site-nav]");
    var button = nav && nav.querySelector("[data-nav-toggle]");
    if (!button) return;
    function set(open, focusButton) {
      nav.classList.toggle("is-open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) { var first = nav.querySelector(".site-menu a, .site-menu button"); if (first) first.focus(); }
      else if (focusButton) button.focus();
    }
    button.addEventListener("click", function () { set(button.getAttribute("aria-expanded") !== "true", false); });
    nav.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && nav.classList.contains("is-open")) { e.preventDefault(); set(false, true); }
    });
    document.addEventListener("click", function (e) {
      if (nav.classList.contains("is-open") && !nav.contains(e.target)) set(false, false);
    });
  }

  // --- Scrolling regions reachable by keyboard (WCAG 2.1.1) --------------------------
  // A code block or table that scrolls sideways gets tabindex=0, so a keyboard user can focus it and
  // scroll with the arrow keys; it loses it again when it fits. Content that scripts add later (comments,
  // the exercise result, the insight panel) is seen through a MutationObserver.
  var SCROLLERS = "pre, .table-scroll, .xres__scroll, .xdiff, .chart, .toc, .graders__source, .ins__src, .ins__list";
  // A table wider than the screen also gets a visible hint above it (shown on phones, site.css .scroll-hint).
  function scrollHint(el, scrolls) {
    if (!el.classList.contains("table-scroll") && !el.classList.contains("xres__scroll")) return;
    var hint = el.previousElementSibling;
    if (!hint || !hint.classList.contains("scroll-hint")) {
      if (!scrolls) return;
      hint = document.createElement("p");
      hint.className = "scroll-hint";
      hint.setAttribute("aria-hidden", "true");  // a gesture hint for the eyes; the table itself is read in full
      hint.textContent = document.body.getAttribute("data-label-scroll-hint") || "";
      el.parentNode.insertBefore(hint, el);
    }
    hint.hidden = !scrolls;
  }
  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      if (el.closest(".cm-editor")) return;  // CodeMirror's own scroller holds the focusable editor
      var scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
      scrollHint(el, el.scrollWidth > el.clientWidth + 1);
      if (scrolls && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("data-scroll-focus", "");
      } else if (!scrolls && el.hasAttribute("data-scroll-focus")) {
        el.removeAttribute("tabindex");
        el.removeAttribute("data-scroll-focus");
      }
    });
  }
  function initScrollers() {
    var pending = false;
    function soon() {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; markScrollers(); });
    }
    markScrollers();
    window.addEventListener("resize", soon);
    window.addEventListener("load", soon);
    if (window.MutationObserver) new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
    // A table can start to scroll without any of those events: a web font that arrives late widens its
    // text, a panel opening changes a box's width. Fonts say when they are done; boxes are watched.
    if (document.fonts && document.fonts.addEventListener) document.fonts.addEventListener("loadingdone", soon);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(soon);
    if (window.ResizeObserver) {
      var sizes = new ResizeObserver(soon), watched = new WeakSet();
      var watchNew = function () {
        document.querySelectorAll(SCROLLERS).forEach(function (el) {
          if (watched.has(el)) return;
          watched.add(el);
          sizes.observe(el);
          if (el.firstElementChild) sizes.observe(el.firstElementChild);  // the table inside: its width is what scrolls
        });
      };
      watchNew();
      if (window.MutationObserver) new MutationObserver(watchNew).observe(document.body, { childList: true, subtree: true });
    }
  }

  // --- Copy buttons on code blocks --------------------------------------------
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text; area.setAttribute("readonly", ""); area.style.position = "fixed"; area.style.opacity = "0";
      document.body.appendChild(area); area.select();
      try { document.execCommand("copy") ? resolve() : reject(); } catch (e) { reject(e); }
      document.body.removeChild(area);
    });
  }
  // One listener for every copy button, also those in code loaded later (the ladder's sources).
  function initCopy() {
    document.addEventListener("click", function (e) {
      var button = e.target.closest && e.target.closest("[data-copy]");
      if (!button || button.classList.contains("is-copied")) return;
      var original = button.textContent;
      var code = button.closest(".code").querySelector("pre code");
      copyText(code.innerText).then(function () {
        button.textContent = button.dataset.copied; button.classList.add("is-copied");
        setTimeout(function () { button.textContent = original; button.classList.remove("is-copied"); }, 1600);
      });
    });
  }

  // The ladder page keeps each rung's source out of the page until its <details> is opened.
  function initLazySources() {
    document.querySelectorAll("details[data-source-url]").forEach(function (box) {
      box.addEventListener("toggle", function () {
        if (!box.open || box.hasAttribute("data-loaded")) return;
        box.setAttribute("data-loaded", "");
        var body = box.querySelector("[data-source-body]");
        body.setAttribute("aria-busy", "true");
        fetch(box.dataset.sourceUrl, { credentials: "same-origin" }).then(function (r) {
          if (!r.ok) throw new Error(r.status);
          return r.text();
        }).then(function (html) {
          body.innerHTML = html; body.removeAttribute("aria-busy");
        }).catch(function () { box.removeAttribute("data-loaded"); body.removeAttribute("aria-busy"); });
      });
    });
  }

  // --- Reading progress, kept in this browser only ------------------------------
  function readProgress() {
    try { var p = JSON.parse(load(PROGRESS_KEY) || "{}"); return p && typeof p.completed === "object" ? p : { completed: {} }; }
    catch (e) { return { completed: {} }; }
  }
  function saveProgress(p) { store(PROGRESS_KEY, JSON.stringify(p)); }

  function renderStrip(progress) {
    var strip = document.querySelector("[data-strip]");
    if (!strip) return;
    var total = parseInt(strip.dataset.lessonsTotal, 10) || 0;
    var known = (strip.dataset.lessonSlugs || "").split(" ").filter(Boolean);
    var done = known.filter(function (s) { return progress.completed[s]; }).length;
    strip.querySelector("[data-strip-done]").textContent = done;
    strip.querySelector("[data-strip-percent]").textContent = total ? Math.floor(100 * done / total) : 0;
  }
  function initIndexMarks(progress) {
    document.querySelectorAll("[data-lesson-slug]").forEach(function (card) {
      if (!progress.completed[card.dataset.lessonSlug]) return;
      var mark = card.querySelector("[data-progress-mark]");
      mark.querySelector(".mark").className = "mark mark--done";
      mark.querySelector(".mark__label").textContent = mark.dataset.labelDone;
    });
  }
  function initMarkComplete(progress) {
    var box = document.querySelector("[data-progress]");
    if (!box) return;
    var slug = box.dataset.slug;
    var button = box.querySelector("[data-mark-complete]");
    function paint() {
      var done = !!progress.completed[slug];
      button.textContent = done ? button.dataset.labelDone : button.dataset.labelTodo;
      button.classList.toggle("is-done", done);
      button.setAttribute("aria-pressed", done ? "true" : "false");
    }
    paint();
    button.addEventListener("click", function () {
      if (progress.completed[slug]) delete progress.completed[slug];
      else {
        progress.completed[slug] = new Date().toISOString();
        // which language was read: merged into an account on sign-in (bilingual achievement)
        var read = progress.read = progress.read || {}, lang = document.documentElement.lang;
        read[slug] = (read[slug] || []).filter(function (l) { return l !== lang; }).concat([lang]);
      }
      saveProgress(progress); paint(); renderStrip(progress);
    });
  }

  // The signed-in reader's completed lessons as the server rendered them into the strip.
  function serverProgress() {
    var strip = document.querySelector("[data-strip]"), completed = {};
    (strip ? strip.dataset.completed || "" : "").split(" ").forEach(function (slug) {
      if (slug) completed[slug] = true;
    });
    return { completed: completed };
  }

  // On the course page, point the main button at the first lesson not yet completed here.
  function initContinue(progress) {
    var button = document.querySelector("[data-continue]");
    if (!button) return;
    var cards = document.querySelectorAll("[data-lesson-slug]");
    var anyDone = false, next = null;
    cards.forEach(function (card) {
      if (progress.completed[card.dataset.lessonSlug]) anyDone = true;
      else if (!next) next = card;
    });
    if (!anyDone || !next) return;
    var number = next.querySelector(".lesson-card__number").textContent.trim();
    button.href = next.querySelector("a").getAttribute("href");
    button.textContent = button.dataset.labelContinue.replace("%(number)s", number) + " →";
  }

  // A page that answered a refused form (the typed text kept in it) shows the page's own address,
  // not the form's: a reload or a copied link then opens the page instead of sending the form again.
  function initReplaceUrl() {
    var node = document.querySelector("[data-replace-url]");
    if (node && window.history && history.replaceState) history.replaceState(null, "", node.getAttribute("data-replace-url"));
  }

  // The language switch keeps the reader's place: sections have the same ids in both languages, so
  // the link carries the section now at the top of the screen (the redirect keeps the #fragment).
  function currentSection() {
    var heads = document.querySelectorAll("article h2[id], article h3[id]");
    var line = Math.min(window.innerHeight / 3, 200), current = null;
    for (var i = 0; i < heads.length; i++) {
      if (heads[i].getBoundingClientRect().top <= line) current = heads[i];
      else break;
    }
    return current ? current.id : "";
  }
  function initLanguageSwitch() {
    document.querySelectorAll("[data-lang-switch]").forEach(function (link) {
      function carry() {
        var id = currentSection();
        link.href = link.href.split("#")[0] + (id ? "#" + encodeURIComponent(id) : "");
      }
      link.addEventListener("click", carry);
      link.addEventListener("auxclick", carry);  // middle click: a new tab at the same place
      link.addEventListener("focus", carry);  // the keyboard, and "copy link address" after a focus
    });
  }

  // --- Refused form fields, explained in the page's language -------------------------------
  // The browser words "Please fill out this field." in the language of ITS menus, which is not the page's
  // for a learner reading /ko in an English browser (a shared lab machine). A refused field gets the page's
  // sentence instead (base.html, partials/validity.html); typing clears it, so the browser checks anew.
  function validityMessage(box, el) {
    var v = el.validity, type = (el.type || "").toLowerCase();
    function say(name, values) {
      var text = box.getAttribute("data-" + name) || "";
      Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(String(values[k])); });
      return text;
    }
    if (v.valueMissing) return say(type === "checkbox" ? "tick" : type === "radio" || el.tagName === "SELECT" ? "choose" : "required");
    if (v.tooShort) return say("too-short", {min: el.minLength, len: el.value.length});
    if (v.tooLong) return say("too-long", {max: el.maxLength, len: el.value.length});
    if (v.badInput) return say(type === "number" ? "number" : "date");
    if (v.rangeUnderflow) return say("min", {min: el.min});
    if (v.rangeOverflow) return say("max", {max: el.max});
    if (v.stepMismatch) return say("step", {step: el.step || 1});
    if (v.typeMismatch || v.patternMismatch) return el.title || say("format");
    return "";
  }
  function initValidity() {
    var box = document.querySelector("[data-validity-messages]");
    if (!box) return;
    // "invalid" does not bubble: listen in the capture phase, for fields that scripts add later too
    document.addEventListener("invalid", function (e) {
      var el = e.target;
      if (!el.setCustomValidity) return;
      if (el.validity.customError && !el.hasAttribute("data-validity-ours")) return;  // another script's own message
      el.setCustomValidity("");
      var text = validityMessage(box, el);
      if (!text) return;
      el.setCustomValidity(text);
      el.setAttribute("data-validity-ours", "");
    }, true);
    function clear(e) {
      var el = e.target;
      if (el.hasAttribute && el.hasAttribute("data-validity-ours")) {
        el.setCustomValidity("");
        el.removeAttribute("data-validity-ours");
      }
    }
    document.addEventListener("input", clear, true);
    document.addEventListener("change", clear, true);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var progress = readProgress();
    initReplaceUrl(); initLanguageSwitch(); initValidity();
    initTheme(); initMenu(); initCopy(); initScrollers(); initLazySources();
    // A signed-in reader's progress comes from the server (progress.js), not from this browser:
    // the course page's main button follows the lessons the strip says are completed.
    if (document.body.hasAttribute("data-signed-in")) { initContinue(serverProgress()); return; }
    initIndexMarks(progress); initContinue(progress); initMarkComplete(progress); renderStrip(progress);
  });
})();
