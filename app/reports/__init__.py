"""'Report a problem' on lessons (visitors too) and the instructors' inbox (with reported comments)."""
