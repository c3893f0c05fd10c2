"""The exercise panel on lesson pages: exercise config for the editor, and the result,
history and diff fragments, rendered on the server in the reader's language.

Modules: texts (msgids for every engine code), present (Result -> view model, speedup SVG
geometry), overridden (a grader's verdict over the engine's), submission (one submission presented:
the panel's and the graders' pages'), history (own submissions, diffs), routes (HTTP). Korean texts
live in the .po catalog only.
"""
