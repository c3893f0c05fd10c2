// Apply the remembered theme before first paint, so a dark-mode reader never sees a white flash.
// Loaded without defer in <head> (a file, not inline: the Content-Security-Policy allows no inline script).
(function () { try { var t = localStorage.getItem("mkc-theme"); if (t) document.documentElement.dataset.theme = t; } catch (e) {} })();
// Scripts run: CSS may fold the phone header's links behind the menu button (static/js/site.js opens it).
document.documentElement.classList.add("js");
