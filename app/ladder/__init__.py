"""The GEMM ladder on the site: rung texts (kernels/ladder), measured numbers (contract D files of
kind "ladder"), server-side SVG charts, the /{lang}/ladder page and the ``::: ladder`` lesson block."""
