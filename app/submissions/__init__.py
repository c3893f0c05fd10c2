"""Submissions: learners' kernels in, verdicts out.

The submissions table IS the queue. A request stores a row (``queued``) and answers at once;
one dispatcher per GPU (a "lane") claims rows with an atomic UPDATE (a lease with an expiry and
an owner), runs the engine's ``grade()`` in its own thread, writes the Result back into the row
and pays XP through ``app.progress.grading.record_grading_result`` exactly once.

Modules, one job each:
  models      the ``submission`` and ``dispatcher_lane`` tables
  states      the state names and which are waiting, running or final
  messages    error/state codes with English msgids (translated per request)
  intake      reading and checking a POST body, per-user limits, storing the row
  queue       fair claim (round-robin by user, oldest first), lease renewal, finishing
  lanes       one dispatcher per GPU: the lane lease
  dispatcher  the loop that claims jobs and calls grade() off the event loop
  events      in-process change signals and the server-sent-event stream
  views       a row as JSON, with the code hidden from those who may not see it
  routes      the HTTP API
"""
