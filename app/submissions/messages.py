"""What the submissions API can say: codes with English msgids (gettext extracts the ``_`` calls).

Every refusal is ``{"error": code, "message": text in the reader's language, "params": {...}}``;
every submission view carries ``state_text`` the same way. The engine's own Result codes are
returned unchanged inside ``result`` (the page translates those).
"""
from __future__ import annotations

from app.core.errors import AppError


def _(text: str) -> str:
    return text


ERRORS = {  # auth_required and not_found: app/core/errors.py
    "unknown_exercise": _("There is no exercise called %(exercise)s."),
    "body_too_large": _("The request is too large (%(bytes)s bytes; at most %(limit)s)."),
    "source_too_large": _("The source is too large: %(bytes)s bytes, at most %(limit)s bytes (64 KiB)."),
    "bad_json": _("The request body must be a JSON object like {\"source\": \"...\", \"launch\": {...}}."),
    "bad_content_type": _("Send the submission as JSON (Content-Type: application/json)."),
    "unknown_field": _("Unknown field %(field)s: only \"source\" and \"launch\" are accepted."),
    "source_missing": _("The field \"source\" (the CUDA code, a string) is missing."),
    "source_not_text": _("The field \"source\" must be a string of CUDA code."),
    "source_empty": _("The source is empty."),
    "bad_launch": _("The launch request is malformed (%(detail)s). Expected {\"block\": [x, y, z], \"tile\": [tx, ty], \"smem\": bytes}."),
    "too_many_in_flight": _("You already have %(limit)s submission(s) waiting or running. Wait for the result, then submit again."),
    "hourly_limit": _("You reached the limit of %(limit)s submissions per hour. Try again in %(minutes)s minute(s)."),
    "not_cancellable": _("Only a submission that is still waiting can be cancelled; this one is being graded or is finished."),
    "daily_limit": _("You reached the limit of %(limit)s submissions per day. Try again in %(minutes)s minute(s)."),
}

STATES = {
    "queued": _("Waiting in the queue (position %(position)s)."),
    "compiling": _("Compiling."),
    "checking": _("Checking correctness on the GPU."),
    "timing": _("Timing against the reference kernels."),
    "awaiting_gpu": _("Compiled. This server has no GPU right now; it will be graded when one is available "
                      "(position %(position)s)."),
    "done": _("Done."),
    "cancelled": _("Cancelled."),
    # queued, after its compile: what the compile stage hands to the GPU stage
    "compiled": _("Compiled. Waiting for the GPU (position %(position)s)."),
}

# Why a queued submission waits longer than its turn, with when it may go on: the compile reasons are
# stored in ``submission.waiting_reason``; "gpu_budget" is worked out when the row is shown.
WAITING = {
    "gpu_budget": _("Waiting: you used %(used)s of your %(budget)s seconds of GPU time this hour. "
                    "Your next job can run at %(time)s (UTC)."),
    "compile_budget": _("Waiting: you used this hour's compile time, so your next compile starts in about "
                        "%(minutes)s min, at %(until)s UTC. Submissions of other learners are not slowed."),
    "compile_cooldown": _("Waiting: your last compile ran out of time, so your compiles only take a slot that "
                          "other learners leave free. Next try at %(until)s UTC."),
    "compile_long": _("Waiting: your kernel needs more compile time than a first try gives, so it compiles again "
                      "with the full time limit in a slot that other learners leave free."),
}


class SubmissionError(AppError):
    """A refusal of the submissions API: an AppError that reads its texts here."""

    messages = ERRORS
