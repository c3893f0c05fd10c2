// Comments on lesson pages, the notification bell, and the "report a problem" quote.
// The lesson page is cached for visitors, so comments are fetched here; the server renders the
// list (sanitised HTML) and this script inserts it, then wires the buttons. Messages shown to
// the reader come from the server (in their language) or from data-label-* attributes, and are
// always set with textContent.
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.content : "";

  function api(method, url, body) {
    var options = { method: method, credentials: "same-origin", headers: { "Accept": "application/json" } };
    if (method !== "GET") options.headers["X-CSRF-Token"] = csrf;
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(url, options).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var error = new Error(data.message || "");
          error.status = response.status;
          throw error;
        }
        return data;
      });
    });
  }

  // ---- the bell -----------------------------------------------------------------------------
  function refreshBell() {
    var bell = document.querySelector("[data-bell]");
    if (!bell) return;
    api("GET", "/api/notifications/summary").then(function (data) {
      var count = bell.querySelector("[data-bell-count]");
      bell.setAttribute("data-unread", String(data.unread));
      count.textContent = data.unread > 99 ? "99+" : String(data.unread);
      count.hidden = !(data.unread > 0);
      var inbox = document.querySelector("[data-inbox]");
      if (inbox && typeof data.inbox === "number") {
        inbox.hidden = false;
        inbox.querySelector("[data-inbox-count]").textContent = String(data.inbox);
      }
    }).catch(function () {});
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-notification-link]");
    if (!link) return;
    event.preventDefault();
    api("POST", "/api/notifications/" + link.getAttribute("data-notification-link") + "/read")
      .catch(function () {}).then(function () { window.location.href = link.href; });
  });

  // ---- report a problem: carry the selected text along ----------------------------------------
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-report-link]");
    if (!link || !window.getSelection) return;
    var text = String(window.getSelection()).trim().slice(0, 1000);
    if (text) {
      event.preventDefault();
      window.location.href = link.getAttribute("href") + "?quote=" + encodeURIComponent(text);
    }
  });

  // ---- comments -------------------------------------------------------------------------------
  var section = document.querySelector("[data-comments]");
  if (!section) { refreshBell(); return; }
  var slug = section.getAttribute("data-slug");
  var lang = section.getAttribute("data-lang");
  var list = section.querySelector("[data-comments-list]");
  var sectionError = section.querySelector("[data-comments-error]");
  var composer = section.querySelector("[data-comment-form]");
  var state = { sort: "newest", page: 1 };
  var base = "/api/lessons/" + encodeURIComponent(slug) + "/comments";

  function label(name) { return section.getAttribute("data-label-" + name) || ""; }

  function showError(where, error) {
    where.textContent = (error && error.message) || label("error");
    where.hidden = false;
  }

  function focusId() {
    var match = /^#comment-(\d+)$/.exec(window.location.hash);
    return match ? match[1] : null;
  }

  function load(focus) {
    var url = base + "?lang=" + lang + "&sort=" + state.sort + "&page=" + state.page + (focus ? "&focus=" + focus : "");
    return api("GET", url).then(function (data) {
      state.page = data.page;
      list.innerHTML = data.html;  // server-rendered; comment bodies sanitised by nh3
      document.querySelectorAll("[data-comment-count]").forEach(function (el) { el.textContent = data.count_text; });
      if (composer) composer.hidden = !!data.locked;
      section.setAttribute("data-loaded", "1");
      section.setAttribute("data-count", String(data.count));
      if (focus) {
        var target = document.getElementById("comment-" + focus);
        if (target) { target.classList.add("is-focused"); target.scrollIntoView({ block: "center" }); }
      }
    }).catch(function (error) { showError(sectionError, error); });
  }

  function inlineForm(item, options) {
    var old = item.querySelector(".comment-inline");
    if (old) old.remove();
    var form = document.createElement("form");
    form.className = "comment-inline";
    var box = document.createElement("textarea");
    box.rows = options.rows || 3;
    box.value = options.value || "";
    box.placeholder = options.placeholder || "";
    box.setAttribute("aria-label", options.placeholder || options.submit);
    var error = document.createElement("p");
    error.className = "form-error";
    error.setAttribute("role", "alert");
    error.hidden = true;
    var buttons = document.createElement("div");
    buttons.className = "comment-inline__buttons";
    var send = document.createElement("button");
    send.type = "submit";
    send.className = "button";
    send.textContent = options.submit;
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "linkish";
    cancel.textContent = label("cancel");
    cancel.addEventListener("click", function () { form.remove(); });
    buttons.append(send, cancel);
    if (!options.noText) form.append(box);
    else if (options.text) { var p = document.createElement("p"); p.textContent = options.text; form.append(p); }
    form.append(error, buttons);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      send.disabled = true;
      error.hidden = true;
      options.onSubmit(box.value).catch(function (e) { showError(error, e); }).then(function () { send.disabled = false; });
    });
    item.append(form);
    if (!options.noText) box.focus();
    return form;
  }

  function act(item, action) {
    var id = item.getAttribute("data-comment-id");
    var url = "/api/comments/" + id;
    if (action === "reply") {
      inlineForm(item, { submit: label("reply"), placeholder: label("reply-placeholder"), onSubmit: function (text) {
        return api("POST", base, { body: text, lang: lang, parent_id: Number(id) }).then(function (data) { return load(data.id); });
      } });
    } else if (action === "edit") {
      api("GET", url + "?lang=" + lang).then(function (data) {
        inlineForm(item, { submit: label("save"), value: data.body, rows: 4, onSubmit: function (text) {
          return api("PATCH", url + "?lang=" + lang, { body: text, lang: lang }).then(function () { return load(id); });
        } });
      }).catch(function (e) { showError(sectionError, e); });
    } else if (action === "delete") {
      inlineForm(item, { submit: item.querySelector('[data-action="delete"]').textContent, noText: true,
        text: label("confirm-delete"), onSubmit: function () {
          return api("DELETE", url + "?lang=" + lang).then(function () { return load(); });
        } });
    } else if (action === "report") {
      inlineForm(item, { submit: label("send-report"), placeholder: label("report-reason"), onSubmit: function (text) {
        return api("POST", url + "/report?lang=" + lang, { reason: text, lang: lang }).then(function () {
          var form = item.querySelector(".comment-inline");
          var done = document.createElement("p");
          done.className = "form-notice";
          done.setAttribute("data-reported", "1");
          done.textContent = label("reported");
          form.replaceWith(done);
        });
      } });
    } else if (action === "helpful" || action === "hide" || action === "unhide") {
      api("POST", url + "/" + action + "?lang=" + lang).then(function () { return load(id); })
        .catch(function (e) { showError(sectionError, e); });
    }
  }

  section.addEventListener("click", function (event) {
    var target = event.target.closest("button, a");
    if (!target || !section.contains(target)) return;
    var item = target.closest("[data-comment-id]");
    if (target.hasAttribute("data-action") && item) {
      event.preventDefault();
      sectionError.hidden = true;
      act(item, target.getAttribute("data-action"));
    } else if (target.hasAttribute("data-comments-sort")) {
      event.preventDefault();
      state.sort = target.getAttribute("data-comments-sort");
      state.page = 1;
      load();
    } else if (target.hasAttribute("data-comments-page")) {
      event.preventDefault();
      state.page = Number(target.getAttribute("data-comments-page"));
      load().then(function () { section.scrollIntoView({ block: "start" }); });
    } else if (target.hasAttribute("data-comments-follow")) {
      var follow = target.getAttribute("data-comments-follow") === "1";
      api(follow ? "PUT" : "DELETE", base + "/follow?lang=" + lang).then(function () { return load(); })
        .catch(function (e) { showError(sectionError, e); });
    } else if (target.hasAttribute("data-comments-lock")) {
      var lock = target.getAttribute("data-comments-lock") === "1";
      api("POST", base + (lock ? "/lock" : "/unlock") + "?lang=" + lang).then(function () { return load(); })
        .catch(function (e) { showError(sectionError, e); });
    }
  });

  if (composer) {
    composer.addEventListener("submit", function (event) {
      event.preventDefault();
      var box = composer.querySelector("textarea");
      var button = composer.querySelector("button[type=submit]");
      button.disabled = true;
      sectionError.hidden = true;
      api("POST", base, { body: box.value, lang: lang }).then(function (data) {
        box.value = "";
        if (state.sort === "newest") state.page = 1;
        return load(data.id);
      }).catch(function (e) { showError(sectionError, e); }).then(function () { button.disabled = false; });
    });
  }

  window.addEventListener("hashchange", function () {
    var id = focusId();
    if (id && !document.getElementById("comment-" + id)) load(id);
  });
  load(focusId());
  refreshBell();
})();
