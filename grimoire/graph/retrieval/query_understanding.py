"""What a query says besides its words (issue 22): the times it names, and whether it asks for a
time. Pure parsing, no database: graph/retrieval/understood.py turns it into ranked lists.

Times: explicit dates ("October 13, 2023", "13 October, 2023", "2023-10-13"), months ("in June",
"July 2023"), years ("in 2022"), and expressions relative to the retrieval's time ("yesterday",
"last week", "three months ago"), each a window of valid time [start, end) in epoch ms. A month
without a year could be any year's: it gives one window per year up to the anchor's. "before X"
stretches X's window back, "after X" forward, by the slack. An item is in the window when its
valid_from is: for a conversation turn, the date of the session it was said in, which is on or a
little after the day the query names (people talk about what they did), so every window also
stretches `slack` days forward."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

DAY_MS = 86_400_000
MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}
MONTHS["sept"] = 9
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a few": 3, "few": 3, "several": 3,
           "a couple of": 2, "couple of": 2}
YEARS_BACK = 30  # a month without a year: this many years before the anchor's are candidates

_MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_NUMBER = r"(\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(day|week|month|year)s?"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(rf"\b{_YEAR}-(\d\d)-(\d\d)\b")),
    ("month_day_year", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b")),
    ("day_month_year", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")),
    ("month_year", re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")),
    ("month", re.compile(rf"\b(?:in|during|of|since|until|by|before|after|early|late|mid-?)\s+{_MONTH}\b(?!\s*\d)")),
    ("year", re.compile(rf"\b(?:in|during|since|until|by|before|after|of)\s+{_YEAR}\b")),
    ("ago", re.compile(rf"\b{_NUMBER}\s+{_UNIT}\s+ago\b")),
    ("last", re.compile(r"\b(yesterday|today|tonight|last night|this morning|last weekend|this weekend|"
                        r"last week|this week|last month|this month|last year|this year)\b")),
]
RELATIVE_KINDS = ("ago", "last")
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_RELATIVE = {"yesterday": (-1, 0), "today": (0, 1), "tonight": (0, 1), "last night": (-1, 0),
             "this morning": (0, 1), "last weekend": (-9, -1), "this weekend": (-3, 3), "last week": (-14, -3),
             "this week": (-7, 1), "last month": (-62, -20), "this month": (-31, 1), "last year": (-730, -300),
             "this year": (-366, 1)}


@dataclass(frozen=True)
class Window:
    """Valid time [start, end) in epoch ms."""

    start: int
    end: int

    def holds(self, at: int | None) -> bool:
        return at is not None and self.start <= at < self.end


def _ms(d: datetime) -> int:
    return int(d.timestamp() * 1000)


def _day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    return start, (datetime(year + 1, 1, 1, tzinfo=UTC) if month == 12 else datetime(year, month + 1, 1, tzinfo=UTC))


def _stretch(text: str, at: int, start: datetime, end: datetime, slack: timedelta) -> Window:
    """The window of a time named at text[at:], stretched by "before"/"after" just before it and by the
    slack forward (a turn's session is on or after the day it talks about)."""
    lead = text[max(0, at - 12):at]
    if re.search(r"\bbefore\s*$", lead):
        start -= max(slack, end - start) * 2
    elif re.search(r"\bafter\s*$", lead):
        start, end = end, end + max(slack, end - start) * 2
    return Window(_ms(start), _ms(end + slack))


def windows(query: str, anchor: int, slack_days: float = 1.0) -> list[Window]:
    """The valid-time windows the query names, relative ones counted back from `anchor` (epoch ms):
    empty when it names no time."""
    text = query.lower()
    slack = timedelta(days=slack_days)
    now = datetime.fromtimestamp(anchor / 1000, tz=UTC)
    absolute: list[Window] = []
    relative: list[Window] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(s <= m.start() < e or s < m.end() <= e for s, e in taken):
                continue  # part of a longer date already read
            found = _read(kind, m, now)
            if found is None:
                continue
            taken.append(m.span())
            (relative if kind in RELATIVE_KINDS else absolute).extend(
                _stretch(text, m.start(), start, end, slack) for start, end in found)
    # "the weekend before April 10, 2023": a relative expression beside a date is relative to that date.
    return absolute or relative


def _read(kind: str, m: re.Match[str], now: datetime) -> list[tuple[datetime, datetime]] | None:
    g = m.groups()
    if kind == "iso":
        day = _day(int(g[0]), int(g[1]), int(g[2]))
    elif kind == "month_day_year":
        day = _day(int(g[2]), MONTHS[g[0]], int(g[1]))
    elif kind == "day_month_year":
        day = _day(int(g[2]), MONTHS[g[1]], int(g[0]))
    else:
        return _span(kind, g, now)
    return [(day, day + timedelta(days=1))] if day else None


def _span(kind: str, g: tuple[str | None, ...], now: datetime) -> list[tuple[datetime, datetime]] | None:
    if kind == "month_year":
        return [_month_span(int(g[1] or 0), MONTHS[g[0] or ""])]
    if kind == "month":
        month = MONTHS[g[0] or ""]
        return [_month_span(year, month) for year in range(now.year - YEARS_BACK, now.year + 1)]
    if kind == "year":
        year = int(g[0] or 0)
        return [(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))]
    if kind == "ago":
        raw = g[0] or ""
        days = (int(raw) if raw.isdigit() else NUMBERS[raw]) * _UNIT_DAYS[g[1] or "day"]
        centre = now - timedelta(days=days)
        half = timedelta(days=max(1.0, days * 0.25))
        return [(centre - half, centre + half)]
    lo, hi = _RELATIVE[g[0] or ""]
    return [(now + timedelta(days=lo), now + timedelta(days=hi))]


# A question asking for a time: its answer is a date, so the turns that tell when carry one.
_ASKS_TIME = re.compile(r"^\s*(?:\w+\s*,\s*)?(?:when\b|since when\b|how long\b|how many (?:days|weeks|months|years)\b"
                        r"|how (?:long )?ago\b|what (?:year|month|date|day|time)\b|in what (?:year|month)\b"
                        r"|which (?:year|month|day)\b|at what time\b)")
# The expressions a turn tells a time with: relative days, weekdays, months, years, "ago".
_TELLS_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|last (?:night|week|weekend|month|year|summer|winter|spring|fall|time)"
    r"|this (?:morning|week|weekend|month|year|summer)|next (?:week|month|year|weekend)|ago|recently|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekend|(?:19|20)\d\d|since|"
    + "|".join(name.lower() for name in calendar.month_name if name and name != "May") + r"|may \d)\b")


def asks_time(query: str) -> bool:
    """Whether the query asks when something happened or how long ago."""
    return bool(_ASKS_TIME.search(query.lower()))


def tells_time(text: str | None) -> bool:
    """Whether a text says when: a relative day, a weekday, a month, a year, "ago"."""
    return bool(text) and bool(_TELLS_TIME.search((text or "").lower()))
