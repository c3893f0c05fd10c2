"""The GEMM ladder on the site: rung texts (kernels/ladder), measured numbers (contract D files of
kind "ladder"), server-side SVG charts, the /{lang}/ladder page's context and the ``::: ladder``
lesson block. The page's route is app/routes/ladder.py, beside the other site pages: it adds the
signed-in reader's strip (app.progress), which this package, embedded in lessons, does not know."""
