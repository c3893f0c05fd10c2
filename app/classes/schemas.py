"""Request and response shapes of the classes' API (/api/classes, /api/boards, /api/me/assignments),
as the OpenAPI page (/docs) shows them. Times are UTC ISO 8601 with a trailing Z; each deadline also
comes as wall-clock text in the reader's zone and in the class's."""
from __future__ import annotations

from typing import Literal
from zoneinfo import available_timezones

from pydantic import BaseModel, Field, JsonValue

from app.core.ids import BodyRowId

Role = Literal["learner", "grader", "instructor"]

# The zone names this host's zone database knows, listed in the schema so that a client sees the
# accepted set; the field stays a string because the service (roster.valid_zone) refuses any other name
# with its own message ("bad_timezone"), which a framework validation error would replace.
KNOWN_ZONES: list[JsonValue] = [*sorted(available_timezones())]

# A wall-clock time as an instructor types it: YYYY-MM-DD, "T" or a space, HH:MM[:SS], and an optional
# "Z" or UTC offset. Only days that exist (29 February left out: a pattern cannot tell leap years) and
# years 1970-2999, the range the service converts without overflow.
_YEAR = r"(19[7-9][0-9]|2[0-9]{3})"
_MONTH_DAY = (r"((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)"
              r"|02-(0[1-9]|1[0-9]|2[0-8]))")
_CLOCK = r"([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?"
LOCAL_TIME_PATTERN = rf"^{_YEAR}-{_MONTH_DAY}[T ]{_CLOCK}(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$"


class ClassCreate(BaseModel):
    # a name needs a character that is not a space (the service collapses runs of spaces)
    name: str = Field(min_length=1, max_length=120, pattern=r"\S", examples=["GPU Programming 101"])
    term: str = Field(default="", max_length=64, examples=["2026 Fall"])
    notice_lang: Literal["ko", "en"] = Field(default="ko", description="the language of the class's notices")
    tz: str = Field(default="UTC", max_length=64, examples=["Asia/Seoul"], json_schema_extra={"enum": KNOWN_ZONES},
                    description="IANA time zone the class's deadlines are stated in")


class ClassOut(BaseModel):
    id: int
    name: str
    term: str
    notice_lang: str
    tz: str
    role: str | None = Field(description="your role in the class (null: an administrator not on its roster)")
    invite_code: str | None = Field(default=None, description="shown to those who manage the roster; null when closed")
    invite_url: str | None = None
    board_enabled: bool
    board_hide_until_due: bool
    board_gpu: str


class ClassList(BaseModel):
    classes: list[ClassOut]


class JoinRequest(BaseModel):
    code: str = Field(max_length=64, examples=["K7QM2XPA"])


class MemberAdd(BaseModel):
    username: str = Field(max_length=200)
    role: Role = "learner"
    email: str = Field(default="", max_length=254)


class MemberOut(BaseModel):
    user_id: int
    username: str
    role: str
    email: str
    source: str = Field(description="how they joined: owner | invite | csv | manual | lti")


class Roster(BaseModel):
    members: list[MemberOut]


class ImportOut(BaseModel):
    added: list[str]
    already: list[str]
    unknown: list[str] = Field(description="usernames with no account (nothing was created for them)")


# The roster CSV a client may send (POST /api/classes/{id}/members.csv): a header row naming the
# "username" column (and "email"), then one account a line (the last line break may be left out).
# Quotes and control characters are left out (a quoted field's rules are more than a pattern says); at
# most 128 Ki characters, which stays under the service's 512 KiB even in 4-byte characters. The service
# also takes a file of bare usernames without a header; the schema shows the one form that always reads
# the same. Its limit of 2000 rows (more: 413) is said in words: a counted repetition of these character
# classes is more than schema tools can generate.
_CSV_CELL = r'[^\x00-\x1f",\x7f]'
ROSTER_CSV_PATTERN = rf'^username(,email)?(\r?\n[^\x00-\x20",\x7f]{_CSV_CELL}{{0,63}}(,{_CSV_CELL}{{0,254}})?)*(\r?\n)?$'
ROSTER_CSV_BODY = {"requestBody": {"required": True, "content": {"text/csv": {
    "schema": {"type": "string", "pattern": ROSTER_CSV_PATTERN, "maxLength": 131072,
               "description": "a header row, then at most 2000 rows of username[,email]"},
    "example": "username,email\nminji,minji@example.edu\njun\n"}}}}


class AssignmentCreate(BaseModel):
    # The schema states what the service accepts; the keywords under json_schema_extra are checked by
    # the service alone, so a refusal keeps its own message (bad_time, title_required) instead of a
    # framework validation error. What no JSON Schema can state (it cannot compare two fields or know
    # the course): at least one lesson or exercise, each one of the course's, at most 40 in all;
    # due_at not before opens_at; a complete_tier other than "passed" is a tier every exercise has.
    # Each of those refusals answers 400 with its own message.
    title: str = Field(max_length=200, examples=["Week 3: tiling"], json_schema_extra={"maxLength": 120, "pattern": r"\S"},
                       description="runs of spaces count as one; at most 120 characters, one of them not a space")
    opens_at: str = Field(max_length=40, examples=["2026-11-30T09:00"], json_schema_extra={"pattern": LOCAL_TIME_PATTERN},
                          description="wall-clock time in the class's zone, or with an explicit offset")
    due_at: str = Field(max_length=40, examples=["2026-12-04T23:59"], json_schema_extra={"pattern": LOCAL_TIME_PATTERN},
                        description="wall-clock time like opens_at, not before it")
    lessons: list[str] = Field(default=[], max_length=40, description="lesson slugs of the course")
    exercises: list[str] = Field(default=[], max_length=40, description="exercise ids of the course")
    complete_tier: str = Field(default="passed", max_length=32,
                               description="passed, or a speed tier id every named exercise has")
    late_policy: Literal["mark", "close"] = Field(default="mark",
                                                  description="mark: late work counts, marked late; close: it does not")


class Deadline(BaseModel):
    utc: str = Field(examples=["2026-12-04T14:59:00Z"])
    yours: str = Field(description="in your time zone", examples=["2026-12-04 06:59 PST"])
    class_zone: str = Field(description="in the class's time zone", examples=["2026-12-04 23:59 KST"])


class AssignmentOut(BaseModel):
    id: int
    class_id: int
    title: str
    opens: Deadline
    due: Deadline
    complete_tier: str
    late_policy: str
    lessons: list[str]
    exercises: list[str]


class ClassDetail(ClassOut):
    assignments: list[AssignmentOut]


class ExerciseGrade(BaseModel):
    exercise: str
    verdict: str | None = Field(description="best effective verdict (after graders' overrides)")
    best_on_time: str | None = Field(description="highest level reached by the due time: passed or a tier id")
    best_late: str | None = Field(description="a higher level reached only after the due time")
    attempts: int
    first_pass_at: str | None
    complete: bool
    late: bool


class LessonGrade(BaseModel):
    lesson: str
    read_at: str | None
    complete: bool
    late: bool


class GradeCell(BaseModel):
    assignment_id: int
    score: int = Field(description="items complete (lessons read, exercises at the assignment's tier)")
    out_of: int
    late: bool
    exercises: list[ExerciseGrade]
    lessons: list[LessonGrade]


class GradebookRow(BaseModel):
    user_id: int
    username: str
    email: str
    cells: list[GradeCell]


class Gradebook(BaseModel):
    class_id: int
    assignments: list[AssignmentOut]
    learners: list[GradebookRow]


class TierCount(BaseModel):
    level: str
    learners: int


class CodeCount(BaseModel):
    code: str
    label: str = Field(description="the code's label in the reader's language")
    attempts: int


class ExerciseInsightOut(BaseModel):
    exercise: str
    started: int
    passed: int
    tiers: list[TierCount]
    failure_codes: list[CodeCount]
    median_attempts_to_pass: float | None
    median_minutes_to_pass: float | None


class InsightOut(BaseModel):
    assignment_id: int
    learners: int
    not_started: list[str]
    exercises: list[ExerciseInsightOut]


class BoardEntryOut(BaseModel):
    rank: int
    name: str = Field(description="the learner's username, or the alias they chose")
    is_alias: bool
    submission_id: int | None = Field(description="shown to those who may strike entries")
    speedup_ci_low: float = Field(description="the lower end of the speedup's confidence interval: what ranks")
    speedup: float
    speedup_ci_high: float
    against: str = Field(description="the reference kernel the speedup is measured against")
    gpu: str
    submitted_at: str


class StrikeOut(BaseModel):
    id: int
    submission_id: int
    class_id: int | None
    grader: str
    reason: str
    created_at: str
    learner: str | None = None


class BoardOut(BaseModel):
    exercise: str
    class_id: int | None
    hidden_until: str | None = Field(description="set while the board is hidden until the due time")
    entries: list[BoardEntryOut]
    strikes: list[StrikeOut] = Field(default=[], description="the struck entries, for those who may strike")


class StrikeRequest(BaseModel):
    submission_id: BodyRowId
    reason: str = Field(min_length=1, max_length=2000, pattern=r"\S",
                        description="why the entry is struck (shown to the learner and kept in the audit)")


class BoardProfileIn(BaseModel):
    # An alias is shown only with use_alias, and then it must have a character that is not a space:
    # said in the schema as well (if/then), so a client generated from it knows.
    model_config = {"json_schema_extra": {
        "if": {"properties": {"use_alias": {"const": True}}, "required": ["use_alias"]},
        "then": {"properties": {"alias": {"type": "string", "pattern": "\\S"}}, "required": ["alias"]}}}

    use_alias: bool = False
    alias: str = Field(default="", max_length=32)
    site_board: bool = Field(default=False, description="take part in the site-wide board")


class BoardProfileOut(BaseModel):
    use_alias: bool
    alias: str
    site_board: bool


class LeftItem(BaseModel):
    kind: Literal["lesson", "exercise"]
    ref: str
    title: str
    url: str


class MyAssignment(BaseModel):
    assignment: AssignmentOut
    class_name: str
    score: int
    out_of: int
    late: bool
    overdue: bool = Field(description="the due time has passed with items left")
    left: list[LeftItem]


class MyAssignments(BaseModel):
    assignments: list[MyAssignment]


class WorkOut(BaseModel):
    id: int
    learner: str
    exercise: str
    submitted_at: str
    state: str
    verdict: str | None = Field(description="effective verdict (a grader's override wins); null while not graded")
    overridden: bool
    speedup_ci_low: float | None
    source: str


class WorkList(BaseModel):
    submissions: list[WorkOut]
