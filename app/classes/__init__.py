"""Classes: a roster (invite link or code, CSV, co-instructors and graders), assignments with opening
and due times, a gradebook, leaderboards per exercise and class, and insight per assignment.

Modules: models (tables), roster (create a class, members and their roles, invites; the API other
features such as an LMS link build on), permissions (what each role in a class may do), assignments,
gradebook, boards (leaderboards and strikes), insight, api (JSON), pages (HTML).
"""
