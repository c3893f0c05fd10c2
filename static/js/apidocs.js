// Starts Swagger UI (/docs) or ReDoc (/redoc) on the page's element; both read /openapi.json.
// A file, not an inline script: the Content-Security-Policy allows scripts from our origin only.
(function () {
  "use strict";
  var swagger = document.getElementById("swagger-ui");
  if (swagger && window.SwaggerUIBundle) {
    // deepLinking off: with it on, Swagger UI puts each operation's path link inside the button that
    // opens the operation (a link nested in a button: screen readers and keyboards get one or the other).
    window.SwaggerUIBundle({ url: swagger.dataset.openapi, dom_id: "#swagger-ui", deepLinking: false,
      // syntaxHighlight off: its theme colours numbers #d36363 on #333 (3.6:1, under the 4.5:1 text needs)
      syntaxHighlight: false,
      presets: [window.SwaggerUIBundle.presets.apis], layout: "BaseLayout" });
  }
  var redoc = document.getElementById("redoc");
  // disableSearch: its search runs in a blob: worker, which the Content-Security-Policy does not allow.
  if (redoc && window.Redoc) window.Redoc.init(redoc.dataset.openapi, { disableSearch: true }, redoc);
})();
