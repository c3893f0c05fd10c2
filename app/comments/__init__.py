"""Per-lesson comment threads: models, markup, listing, the service and its routes."""
