/* The exercise panel: CodeMirror editor (static/editor/editor.js), launch fields with checks,
   drafts in localStorage, Ctrl/Cmd+Enter to submit, live result over server-sent events with a
   polling fallback, history and diffs. Texts come from data-t-* attributes (server-translated);
   results arrive as server-rendered HTML fragments, so no message is translated here. */
(function () {
  "use strict";

  var FIELDS = ["bx", "by", "bz", "tx", "ty", "smem"];
  var END_STATES = { done: true, awaiting_gpu: true, cancelled: true };

  function fill(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, function (_, k) { return values[k] != null ? values[k] : ""; });
  }

  function store(key, value) {
    try {
      if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, JSON.stringify(value));
    } catch (e) { /* private mode or full: drafts are a convenience */ }
  }

  function load(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }

  function Panel(root) {
    this.root = root;
    this.exercise = root.getAttribute("data-exercise");
    this.lang = root.getAttribute("data-lang") || "en";
    this.canSubmit = root.hasAttribute("data-can-submit");
    this.t = function (name) { return root.getAttribute("data-t-" + name) || ""; };
    this.draftKey = "mkc-draft:" + this.exercise;
    this.lastKey = "mkc-last:" + this.exercise + ":" + (document.body.getAttribute("data-signed-in") || "");
    this.sentKey = "mkc-sent:" + this.exercise + ":" + (document.body.getAttribute("data-signed-in") || "");
    this.form = root.querySelector("[data-launch]");
    this.result = root.querySelector("[data-result]");
    this.watching = null;
    this.busy = false;
    root.mkcPanel = this;  // for tests and the browser console: el.mkcPanel.editor.getValue()
  }

  Panel.prototype.start = function () {
    var self = this;
    var mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
    Array.prototype.forEach.call(this.root.querySelectorAll("[data-mod-key]"), function (el) { el.textContent = mac ? "⌘" : "Ctrl"; });
    fetch("/api/panel/exercises/" + encodeURIComponent(this.exercise)).then(function (r) {
      if (!r.ok) throw new Error("exercise " + r.status);
      return r.json();
    }).then(function (config) { self.setup(config); }).catch(function (err) {
      self.showText(String(err), true);
    });
  };

  // The starter in the page's language: Korean pages get the same code with Korean comments.
  Panel.prototype.starter = function () {
    return (this.lang === "ko" && this.config.starter_ko) || this.config.starter;
  };

  Panel.prototype.setup = function (config) {
    var self = this;
    this.config = config;
    var draft = load(this.draftKey);
    var doc = draft && typeof draft.source === "string" && draft.source.trim() ? draft.source : this.starter();
    var mount = this.root.querySelector("[data-editor]");
    mount.innerHTML = "";
    if (window.MKCEditor) {
      this.editor = window.MKCEditor.create(mount, {
        doc: doc, label: this.t("editor-label"),
        onSubmit: function () { self.submit(); },
        onChange: function () { self.saveDraftSoon(); },
        onTabModeChange: function (indents) { self.showTabMode(indents); },
      });
      this.bindTabToggle();
    } else {
      // The bundle failed to load: a plain textarea still lets the learner work.
      var area = document.createElement("textarea");
      area.className = "xpanel__fallback"; area.value = doc; area.setAttribute("aria-label", this.t("editor-label"));
      area.spellcheck = false;
      area.addEventListener("input", function () { self.saveDraftSoon(); });
      mount.appendChild(area);
      this.editor = { getValue: function () { return area.value; }, setValue: function (v) { area.value = v; },
                      focus: function () { area.focus(); }, gotoLine: function () { area.focus(); } };
    }
    this.setLaunch(draft && draft.launch ? draft.launch : config.launch_defaults);
    if (draft && draft.source && draft.source !== this.starter()) this.note(this.t("draft-restored"));
    this.form.addEventListener("input", function () { self.validate(); self.saveDraftSoon(); });
    this.form.addEventListener("submit", function (e) { e.preventDefault(); self.submit(); });
    this.bindButtons();
    this.bindKeys();
    // Which result to show: one named in the address (?submission=N, the profile's links), this
    // browser's last one, or else the account's latest for this exercise (a fresh browser).
    var asked = parseInt(new URLSearchParams(location.search).get("submission") || "", 10);
    var last = this.canSubmit ? load(this.lastKey) : null;
    if (this.canSubmit && asked > 0) { this.follow(asked, false); this.root.scrollIntoView(); }
    else if (last) this.follow(last, true);
    else if (this.canSubmit) this.followLatest(!(draft && draft.source));
    this.root.setAttribute("data-ready", "");
  };

  // The "Tab indents" toggle (aria-pressed) mirrors the editor's mode: off until the learner types.
  Panel.prototype.bindTabToggle = function () {
    var self = this;
    this.tabToggle = this.root.querySelector("[data-tab-toggle]");
    if (!this.tabToggle) return;
    this.tabToggle.hidden = false;
    this.tabToggle.addEventListener("click", function () { self.editor.setTabIndents(!self.editor.tabIndents()); });
    this.showTabMode(this.editor.tabIndents());
  };
  Panel.prototype.showTabMode = function (indents) {
    if (this.tabToggle) this.tabToggle.setAttribute("aria-pressed", indents ? "true" : "false");
  };

  Panel.prototype.bindButtons = function () {
    var self = this;
    var submit = this.root.querySelector("[data-submit]");
    if (submit) submit.addEventListener("click", function () { self.submit(); });
    this.root.querySelector("[data-reset]").addEventListener("click", function () {
      if (!window.confirm(self.t("reset-confirm"))) return;
      self.editor.setValue(self.starter());
      self.setLaunch(self.config.launch_defaults);
      store(self.draftKey, null);
      self.note("");
      self.validate();
    });
    var dialog = this.root.querySelector("[data-shortcuts]");
    this.root.querySelector("[data-shortcuts-open]").addEventListener("click", function () { self.openShortcuts(); });
    this.dialog = dialog;
    this.result.addEventListener("click", function (e) {
      var jump = e.target.closest("[data-jump-line]");
      if (jump) self.jumpTo(parseInt(jump.getAttribute("data-jump-line"), 10));
      if (e.target.closest("[data-load-source]")) self.loadSource(false);
      var cancel = e.target.closest("[data-cancel-submission]");
      if (cancel) self.cancel(parseInt(cancel.getAttribute("data-cancel-submission"), 10));
    });
    var box = this.root.querySelector("[data-history-box]");
    if (box) {
      box.addEventListener("toggle", function () { if (box.open) self.loadHistory(); });
      box.addEventListener("click", function (e) {
        var show = e.target.closest("[data-show-submission]");
        if (show) { self.follow(parseInt(show.getAttribute("data-show-submission"), 10), false); self.result.focus(); }
      });
      box.addEventListener("submit", function (e) {
        if (!e.target.matches("[data-history-form]")) return;
        e.preventDefault();
        var picked = Array.prototype.map.call(e.target.querySelectorAll("input[name=pick]:checked"), function (i) { return i.value; });
        var out = self.root.querySelector("[data-diff]");
        if (picked.length !== 2) { out.innerHTML = ""; out.textContent = self.t("pick-two"); return; }
        self.fragment("/" + self.lang + "/panel/diff?a=" + picked[0] + "&b=" + picked[1], out);
      });
    }
  };

  Panel.prototype.openShortcuts = function () {
    if (this.dialog.showModal) { if (!this.dialog.open) this.dialog.showModal(); } else this.dialog.setAttribute("open", "");
  };

  Panel.prototype.bindKeys = function () {
    var self = this;
    this.root.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.defaultPrevented) { e.preventDefault(); self.submit(); }
    });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "?" || e.ctrlKey || e.metaKey || e.altKey) return;
      var el = document.activeElement;
      if (el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))) return;
      e.preventDefault();
      self.openShortcuts();
    });
  };

  Panel.prototype.setLaunch = function (launch) {
    var values = { bx: launch.block[0], by: launch.block[1], bz: launch.block[2], tx: launch.tile[0], ty: launch.tile[1], smem: launch.smem };
    var form = this.form;
    FIELDS.forEach(function (name) { form.elements[name].value = values[name]; });
    this.validate();
  };

  // The same limits the engine checks (kernels/engine/launch.py); the server checks again.
  Panel.prototype.validate = function () {
    var limits = this.config.limits, form = this.form, t = this.t, problems = [], nums = {};
    FIELDS.forEach(function (name) {
      var input = form.elements[name], raw = input.value.trim(), label = input.getAttribute("data-field");
      var min = name === "smem" ? 0 : 1, max = name === "smem" ? limits.max_smem
        : name[0] === "t" ? limits.max_tile : limits.max_block[{ bx: 0, by: 1, bz: 2 }[name]];
      var bad = null;
      if (!/^\d+$/.test(raw)) bad = fill(t("whole"), { field: label });
      else if (+raw < min) bad = fill(t("min"), { field: label, min: min });
      else if (+raw > max) bad = fill(t("max"), { field: label, max: max });
      input.setAttribute("aria-invalid", bad ? "true" : "false");
      if (bad) problems.push(bad); else nums[name] = +raw;
    });
    if (!problems.length) {
      var threads = nums.bx * nums.by * nums.bz;
      if (threads > limits.max_threads) {
        problems.push(fill(t("threads"), { threads: threads, limit: limits.max_threads }));
        ["bx", "by", "bz"].forEach(function (n) { form.elements[n].setAttribute("aria-invalid", "true"); });
      }
    }
    var box = this.root.querySelector("[data-launch-error]");
    box.textContent = problems.join(" ");
    box.hidden = !problems.length;
    return problems.length ? null : { block: [nums.bx, nums.by, nums.bz], tile: [nums.tx, nums.ty], smem: nums.smem };
  };

  Panel.prototype.saveDraftSoon = function () {
    var self = this;
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(function () {
      var f = self.form.elements;
      store(self.draftKey, { source: self.editor.getValue(), saved: new Date().toISOString(),
        launch: { block: [+f.bx.value, +f.by.value, +f.bz.value], tile: [+f.tx.value, +f.ty.value], smem: +f.smem.value } });
    }, 250);
  };

  Panel.prototype.note = function (text) { this.root.querySelector("[data-draft-note]").textContent = text; };

  Panel.prototype.showText = function (text, isError) {
    this.result.innerHTML = "";
    var p = document.createElement("p");
    p.className = isError ? "xpanel__error" : "muted";
    p.setAttribute("role", isError ? "alert" : "status");
    p.textContent = text;
    this.result.appendChild(p);
  };

  Panel.prototype.submit = function () {
    var self = this;
    if (!this.config || this.busy) return;
    if (!this.canSubmit) {
      var link = this.root.querySelector("[data-signin-to-submit]");
      if (link) link.focus();
      return;
    }
    var launch = this.validate();
    if (!launch) { this.form.querySelector("[aria-invalid=true]").focus(); return; }
    // The same bytes and launch as a submission already sent: its result will say the same again.
    var source = this.editor.getValue();
    var same = [this.shownSource(), load(this.sentKey)].filter(function (s) {
      return s && s.source === source && JSON.stringify(s.launch) === JSON.stringify(launch);
    })[0];
    if (same && !window.confirm(fill(this.t("same-again"), { id: same.id }))) return;
    this.saveDraftSoon();
    this.busy = true;
    this.showText(this.t("submitting"), false);
    var meta = document.querySelector('meta[name="csrf-token"]');
    fetch("/api/exercises/" + encodeURIComponent(this.exercise) + "/submissions?lang=" + this.lang, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": meta ? meta.content : "" },
      body: JSON.stringify({ source: this.editor.getValue(), launch: launch }),
    }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body }; });
    }).then(function (res) {
      self.busy = false;
      if (!res.ok) { self.showText(self.t("failed") + " " + (res.body.message || res.body.error), true); return; }
      store(self.lastKey, res.body.id);
      store(self.sentKey, { id: res.body.id, source: source, launch: launch });
      self.follow(res.body.id, false);
    }).catch(function () {
      self.busy = false;
      self.showText(self.t("network"), true);
    });
  };

  Panel.prototype.cancel = function (id) {
    var self = this;
    var meta = document.querySelector('meta[name="csrf-token"]');
    fetch("/api/submissions/" + id + "/cancel?lang=" + this.lang, {
      method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": meta ? meta.content : "" },
    }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) self.note(self.t("failed") + " " + (body.message || body.error));
        self.follow(id, false);
      });
    }).catch(function () { self.showText(self.t("network"), true); });
  };

  // Show one submission and keep it current until it reaches an end state.
  Panel.prototype.follow = function (id, quiet) {
    var self = this;
    if (this.source) { this.source.close(); this.source = null; }
    clearTimeout(this.pollTimer);
    this.watching = id;
    this.lastState = null;
    this.render(id).then(function (state) {
      if (self.watching !== id) return;
      if (state === null && quiet) { store(self.lastKey, null); self.result.innerHTML = ""; return; }
      if (state && !END_STATES[state]) self.listen(id);
    });
  };

  Panel.prototype.render = function (id) {
    var self = this;
    return fetch("/" + this.lang + "/panel/submissions/" + id, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) return null;
      return r.text().then(function (html) {
        if (self.watching !== id) return null;
        self.result.innerHTML = html;
        if (self.sourceWanted === id) {
          self.sourceWanted = null;
          if (self.editor.getValue() === self.starter()) self.loadSource(true);  // the starter in the page's language
        }
        var node = self.result.querySelector("[data-result-state]");
        var state = node ? node.getAttribute("data-result-state") : null;
        if (state && END_STATES[state] && self.lastState && !END_STATES[self.lastState]) self.loadHistory();
        self.lastState = state;
        return state;
      });
    }).catch(function () { return undefined; });
  };

  Panel.prototype.listen = function (id) {
    var self = this;
    if (!window.EventSource || this.root.hasAttribute("data-force-polling")) { this.poll(id); return; }
    var source = new EventSource("/api/submissions/" + id + "/events");
    this.source = source;
    source.addEventListener("state", function (e) {
      var data;
      try { data = JSON.parse(e.data); } catch (err) { return; }
      if (self.watching !== id) { source.close(); return; }
      self.render(id);
      if (END_STATES[data.state]) { source.close(); self.source = null; }
    });
    source.onerror = function () {
      // Closed by the server after the end state, or no SSE through a proxy: poll instead.
      source.close();
      if (self.source === source) self.source = null;
      if (self.watching === id && !END_STATES[self.lastState]) { self.note(self.t("polling")); self.poll(id); }
    };
  };

  Panel.prototype.poll = function (id) {
    var self = this;
    this.pollTimer = setTimeout(function () {
      if (self.watching !== id) return;
      self.render(id).then(function (state) {
        if (self.watching === id && !(state && END_STATES[state])) self.poll(id);
      });
    }, 2000);
  };

  Panel.prototype.followLatest = function (intoEditor) {
    var self = this;
    fetch("/api/exercises/" + encodeURIComponent(this.exercise) + "/submissions", { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { submissions: [] }; })
      .then(function (body) {
        var latest = body.submissions && body.submissions[0];
        if (!latest || self.watching !== null) return;
        // A browser with no draft of its own (a new device) starts from the learner's latest code.
        if (intoEditor) self.sourceWanted = latest.id;
        self.follow(latest.id, true);
      }).catch(function () {});
  };

  // The code of the submission shown under the result (templates/panel/submission.html).
  Panel.prototype.shownSource = function () {
    var text = this.result.querySelector("[data-source-text]");
    return text ? { source: text.value, launch: JSON.parse(text.getAttribute("data-launch") || "null"),
                    id: text.closest("[data-submission-source]").getAttribute("data-submission-source") } : null;
  };
  Panel.prototype.loadSource = function (quietly) {
    var shown = this.shownSource();
    if (!shown) return;
    this.editor.setValue(shown.source);
    if (shown.launch && shown.launch.block) this.setLaunch(shown.launch);
    store(this.draftKey, { source: shown.source, saved: new Date().toISOString(), launch: shown.launch });
    this.note(fill(this.t("source-loaded"), { id: shown.id }));
    if (!quietly) this.editor.focus();
  };
  // "Line N" of a result: in the editor when it holds that submission's code, else in the code shown
  // under the result (the editor may hold other code by now, where line N means something else).
  Panel.prototype.jumpTo = function (line) {
    var shown = this.shownSource();
    if (!shown || shown.source === this.editor.getValue()) { this.editor.gotoLine(line, 1); return; }
    var box = this.result.querySelector("[data-submission-source]");
    box.open = true;
    var old = box.querySelector(".is-jumped");
    if (old) old.classList.remove("is-jumped");
    var anchor = box.querySelector("#sub" + shown.id + "-line-" + line);
    if (!anchor) return;
    (anchor.nextElementSibling || anchor).classList.add("is-jumped");  // the line's number
    anchor.scrollIntoView({ block: "center" });
  };

  Panel.prototype.loadHistory = function () {
    var box = this.root.querySelector("[data-history]");
    if (box) this.fragment("/" + this.lang + "/panel/exercises/" + encodeURIComponent(this.exercise) + "/history", box);
  };

  Panel.prototype.fragment = function (url, target) {
    target.setAttribute("aria-busy", "true");
    return fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : ""; })
      .then(function (html) { target.innerHTML = html; target.removeAttribute("aria-busy"); });
  };

  // The editor bundle (CodeMirror, ~450 KB) loads only when a panel comes near the screen or the
  // reader reaches into it (focus, pointer): a reader of the lesson text never downloads it.
  var editorLoading = null;
  function loadEditor(src) {
    if (window.MKCEditor || !src) return Promise.resolve();
    if (!editorLoading) {
      editorLoading = new Promise(function (resolve) {
        var script = document.createElement("script");
        script.src = src;
        script.onload = resolve;
        script.onerror = resolve;  // the panel falls back to a plain textarea
        document.head.appendChild(script);
      });
    }
    return editorLoading;
  }
  function startWhenNear(root) {
    var started = false;
    function go() {
      if (started) return;
      started = true;
      loadEditor(root.getAttribute("data-editor-src")).then(function () { new Panel(root).start(); });
    }
    root.addEventListener("focusin", go, { once: true });
    root.addEventListener("pointerdown", go, { once: true });
    // a link to one submission (?submission=N, from the profile) opens the panel at once
    if (!("IntersectionObserver" in window) || new URLSearchParams(location.search).has("submission")) { go(); return; }
    var watcher = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { watcher.disconnect(); go(); }
    }, { rootMargin: "800px 0px" });
    watcher.observe(root);
  }
  function boot() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-panel]"), startWhenNear);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot); else boot();
})();
