"""Row ids made in Python, so a batch of alerts needs no round trip to learn its ids.

Time-ordered (48-bit milliseconds, then 80 random bits, as 32 hex characters),
so ids sort by creation time on SQLite and PostgreSQL alike. Ids are not
secrets (the API needs a token), so the fast Mersenne Twister is enough; it
is reseeded after fork.
"""

from __future__ import annotations

import random
import time


def new_id() -> str:
    return f"{time.time_ns() // 1_000_000:012x}{random.getrandbits(80):020x}"
