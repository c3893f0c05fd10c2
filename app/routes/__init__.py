"""HTTP routes. pages.py: the HTML site; ladder.py: the GEMM ladder page; errors.py: 404/500 pages;
language.py: the switch."""
