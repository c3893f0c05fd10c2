"""Row ids and days as they arrive in paths and queries.

Database integer keys are signed 64-bit. An id of 2^63 or more can name no row, and passed to the
driver it overflows (SQLite: OverflowError, PostgreSQL: NumericValueOutOfRange) — a 500. Every route
declares its ids with these types, so such input is refused by validation (a 422 in the reader's
language) before any query is built.
"""
from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import Path, Query
from pydantic import BeforeValidator, Field

MAX_ROW_ID = 2**63 - 1

RowId = Annotated[int, Path(ge=0, le=MAX_ROW_ID, description="a row id (signed 64-bit)")]
RowIdQuery = Annotated[int, Query(ge=0, le=MAX_ROW_ID, description="a row id (signed 64-bit)")]
OptionalRowIdQuery = Annotated[int | None, Query(ge=0, le=MAX_ROW_ID)]
# A page number: anything past the last page shows the last page, but it must be an integer we can
# multiply by a page size without leaving 64 bits.
PageNumber = Annotated[int, Query(ge=1, le=1_000_000)]
# An id inside a JSON body: at most 2^53 - 1, the largest integer every JSON parser keeps exactly. Past it
# a number may arrive as a float (2^63 - 1 written by a client that parses numbers as doubles is 2^63),
# so a value the schema allows could be refused; no row id comes near it.
MAX_JSON_ROW_ID = 2**53 - 1
BodyRowId = Annotated[int, Field(ge=0, le=MAX_JSON_ROW_ID, description="a row id (at most 2^53 - 1)")]

# A day in a filter (YYYY-MM-DD). Bounded so that the day after it, which a "to" filter compares
# against, exists: 9999-12-31 + 1 day overflows Python's date (a 500). An empty field (a date
# input left blank in a form) means no filter.
FIRST_DAY = dt.date(1970, 1, 1)
LAST_DAY = dt.date(2999, 12, 31)
# JSON Schema bounds no date, so the schema states the range as a pattern on the year
Day = Annotated[dt.date, Field(ge=FIRST_DAY, le=LAST_DAY, description="a day, YYYY-MM-DD, from 1970-01-01 to 2999-12-31",
                               json_schema_extra={"pattern": r"^(19[7-9][0-9]|2[0-9]{3})-[0-9]{2}-[0-9]{2}$"})]


def row_id(text: object) -> int | None:
    """A row id typed as text (a form field, a query, an LMS's claim): ASCII digits naming an id a row
    can have, else None. ``str.isdigit`` alone also takes "²", which ``int`` refuses (a 500), and "٣" or
    "３", which it reads as 3: another id than the one the page offered."""
    value = str(text or "").strip()
    if not (value.isascii() and value.isdigit()) or len(value) > len(str(MAX_ROW_ID)):
        return None
    number = int(value)
    return number if number <= MAX_ROW_ID else None


def _blank_is_none(value: object) -> object:
    return None if value == "" else value


# as a query parameter: ``to: OptionalDayQuery = None``, ``Annotated[OptionalDayQuery, Query(alias=...)]``
OptionalDayQuery = Annotated[Day | None, BeforeValidator(_blank_is_none), Query()]
