// The exercise panel's code editor: CodeMirror 6 with C++ highlighting (CUDA is C++ plus a few
// keywords, which the C++ grammar reads as identifiers - good enough to read kernels).
// Bundled by build.mjs into ../editor.js, which exposes window.MKCEditor; the page never needs npm.
import { EditorState, Compartment } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
         drawSelection, highlightSpecialChars } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { syntaxHighlighting, HighlightStyle, indentOnInput, bracketMatching } from "@codemirror/language";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { cpp } from "@codemirror/lang-cpp";
import { tags as t } from "@lezer/highlight";

// Colours come from CSS variables so light and dark themes both read well.
const style = HighlightStyle.define([
  { tag: [t.keyword, t.modifier, t.controlKeyword, t.operatorKeyword], class: "cm-tok-kw" },
  { tag: [t.typeName, t.standard(t.typeName)], class: "cm-tok-type" },
  { tag: [t.number, t.bool, t.null], class: "cm-tok-num" },
  { tag: [t.string, t.character], class: "cm-tok-str" },
  { tag: [t.comment, t.lineComment, t.blockComment], class: "cm-tok-comment" },
  { tag: [t.processingInstruction, t.macroName], class: "cm-tok-meta" },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], class: "cm-tok-fn" },
]);

// Tab and keyboard users (CodeMirror's accessibility guidance): the editor starts in tab-focus mode,
// so Tab moves focus past it like any field; once the learner starts typing, Tab indents. A visible
// toggle on the panel (and Ctrl-M / Shift-Alt-M) switches between the two; Escape then Tab always
// leaves the editor.
function create(parent, options) {
  const opts = options || {};
  const tabs = new Compartment();
  let tabIndents = false;
  let view = null;
  function setTabIndents(on) {
    tabIndents = !!on;
    if (view) view.setTabFocusMode(!tabIndents);
    if (opts.onTabModeChange) opts.onTabModeChange(tabIndents);
  }
  const submitKeys = keymap.of([{
    key: "Ctrl-m", mac: "Shift-Alt-m", preventDefault: true,
    run: () => { setTabIndents(!tabIndents); return true; },
  }, {
    key: "Mod-Enter", preventDefault: true,
    run: () => { if (opts.onSubmit) opts.onSubmit(); return true; },
  }, {
    // Escape hands focus back to the page so keyboard users are never trapped by Tab-indent.
    key: "Escape", run: (view) => { view.contentDOM.blur(); if (opts.onEscape) opts.onEscape(); return true; },
  }]);
  view = new EditorView({
    parent,
    state: EditorState.create({
      doc: opts.doc || "",
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
        indentOnInput(), bracketMatching(), highlightActiveLine(), highlightSelectionMatches(),
        syntaxHighlighting(style), cpp(), EditorState.tabSize.of(4),
        submitKeys,
        tabs.of(keymap.of([indentWithTab])),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap]),
        EditorView.lineWrapping,
        // tabindex: the editable area is in the tab order anyway (contenteditable); saying so lets checkers
        // (axe's scrollable-region-focusable) see that a scrolling editor holds something focusable.
        EditorView.contentAttributes.of({ "aria-label": opts.label || "CUDA source", "spellcheck": "false",
                                          "autocapitalize": "off", "autocorrect": "off", "tabindex": "0" }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          // The learner started editing (typing, deleting, pasting): from now on Tab indents.
          if (!tabIndents && u.transactions.some((tr) => tr.isUserEvent("input") || tr.isUserEvent("delete"))) setTabIndents(true);
          if (opts.onChange) opts.onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  view.setTabFocusMode(true);
  return {
    view,
    tabIndents: () => tabIndents,
    setTabIndents,
    getValue: () => view.state.doc.toString(),
    setValue: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    focus: () => view.focus(),
    // Move the cursor to a 1-based line (and column) and show it: used by compile-error links.
    gotoLine: (line, col) => {
      const doc = view.state.doc;
      const ln = doc.line(Math.max(1, Math.min(line, doc.lines)));
      const pos = Math.min(ln.from + Math.max(0, (col || 1) - 1), ln.to);
      view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
      view.focus();
    },
  };
}

window.MKCEditor = { create };
