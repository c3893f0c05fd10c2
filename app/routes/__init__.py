"""HTTP routes. pages.py: the HTML site; errors.py: 404/500 pages; language.py: the switch."""
