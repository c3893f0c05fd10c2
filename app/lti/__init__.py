"""LTI 1.3 / LTI Advantage tool: a school's LMS (Canvas, Moodle, ...) launches learners into the course.

pylti1p3 does the protocol (OIDC login, id_token checks, Deep Linking, service tokens); this package
stores platform registrations and our key pairs in the database, adapts pylti1p3 to FastAPI, and turns
a verified launch into a signed-in learner on the right page.
"""
