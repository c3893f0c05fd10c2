"""Cluster mode: PostgreSQL + procrastinate + one grading worker per GPU on any host.

The one-box default (SQLite, the in-process dispatcher of ``app/submissions``) is unchanged. With
``MKC_QUEUE=procrastinate`` only *how a job reaches a GPU* differs:

  jobs     the procrastinate tasks: ``grade_submission`` (deferred in the same transaction as the
           submission row, lock keyed by learner, fair priority) and the periodic ``retry_stalled``
  worker   ``python -m app worker --gpu N``: one worker bound to one device, one job at a time
  watch    ``python -m app queue``: queued, running per GPU, oldest wait; draining a worker

Grading, storing the Result, XP, events and the live status are the submissions package's own
code (``Dispatcher.run_claimed`` runs the same claim -> grade -> finish -> record steps).
"""
