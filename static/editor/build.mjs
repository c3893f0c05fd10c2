// Bundles src/editor.js into editor.js (one file, no imports, committed). Run: npm ci && npm run build
import { build } from "esbuild";

await build({
  entryPoints: ["src/editor.js"],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2019"],
  outfile: "editor.js",
  legalComments: "eof",
  banner: { js: "/* CodeMirror 6 bundle for the exercise panel; source: static/editor/src, build: static/editor/build.mjs */" },
});
