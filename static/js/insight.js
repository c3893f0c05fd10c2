/* "Inside your kernel" (templates/panel/_insight.html): click a source line to highlight its
   instructions, click an instruction to find its line, switch SASS/PTX, emphasise one class of
   instructions. One delegated listener, so result fragments loaded later work too. No text is
   made here: everything visible comes translated from the server. */
(function () {
  "use strict";

  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  function highlight(section, line, from) {
    var same = section.getAttribute("data-hl-line") === String(line);
    each(section.querySelectorAll(".is-hl"), function (el) { el.classList.remove("is-hl"); });
    each(section.querySelectorAll(".ins__srcbtn[aria-pressed='true']"), function (el) { el.setAttribute("aria-pressed", "false"); });
    if (same) { section.removeAttribute("data-hl-line"); return; }
    section.setAttribute("data-hl-line", String(line));
    var src = section.querySelector("[data-src-line='" + line + "']");
    if (src) {
      src.classList.add("is-hl");
      var btn = src.querySelector(".ins__srcbtn");
      if (btn) btn.setAttribute("aria-pressed", "true");
    }
    var first = null;
    each(section.querySelectorAll(".ins__list li[data-line='" + line + "']"), function (el) {
      el.classList.add("is-hl");
      if (!first && !el.parentNode.hidden) first = el;
    });
    var target = from === "src" ? first : src;
    if (target) scrollWithin(target);
  }

  function scrollWithin(el) {
    var box = el.parentNode;
    if (box && box.scrollHeight > box.clientHeight) {
      box.scrollTop = el.offsetTop - box.offsetTop - box.clientHeight / 3;
    }
  }

  // "Profile this kernel": a new submission of the same code with counters; the panel follows it.
  function profile(button) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    var note = button.parentNode.querySelector("[data-profile-note]");
    var lang = document.documentElement.getAttribute("lang") || "en";
    button.disabled = true;
    fetch("/api/panel/submissions/" + encodeURIComponent(button.getAttribute("data-profile")) + "/profile?lang=" + lang, {
      method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": meta ? meta.content : "" },
    }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body }; });
    }).then(function (res) {
      if (!res.ok) {
        button.disabled = false;
        if (note) { note.textContent = res.body.message || res.body.error; note.setAttribute("role", "alert"); }
        return;
      }
      var root = button.closest("[data-panel]");
      var panel = root && root.mkcPanel;
      if (panel) {
        try { localStorage.setItem(panel.lastKey, JSON.stringify(res.body.id)); } catch (err) { /* a convenience */ }
        panel.follow(res.body.id, false);
      }
    }).catch(function () { button.disabled = false; });
  }

  document.addEventListener("click", function (e) {
    var section = e.target.closest && e.target.closest("[data-insight]");
    if (!section) return;
    var srcBtn = e.target.closest(".ins__srcbtn");
    if (srcBtn) { highlight(section, srcBtn.getAttribute("data-line"), "src"); return; }
    var ins = e.target.closest(".ins__list li[data-line]");
    if (ins) { highlight(section, ins.getAttribute("data-line"), "asm"); return; }
    var prof = e.target.closest("[data-profile]");
    if (prof) { profile(prof); return; }
    var cls = e.target.closest("[data-ins-class]");
    if (cls) {
      var name = cls.getAttribute("data-ins-class");
      var on = cls.getAttribute("aria-pressed") !== "true";
      each(section.querySelectorAll("[data-ins-class]"), function (b) { b.setAttribute("aria-pressed", "false"); });
      section.removeAttribute("data-show-class");
      if (on) {
        cls.setAttribute("aria-pressed", "true");
        section.setAttribute("data-show-class", name);
        var first = section.querySelector(".ins__list:not([hidden]) li.is-" + name);
        if (first) scrollWithin(first);
      }
    }
  });

  document.addEventListener("change", function (e) {
    if (!e.target.matches || !e.target.matches("[data-ins-view]")) return;
    var section = e.target.closest("[data-insight]");
    each(section.querySelectorAll("[data-ins-list]"), function (list) {
      list.hidden = list.getAttribute("data-ins-list") !== e.target.value;
    });
  });
})();
