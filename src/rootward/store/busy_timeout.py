"""How long a SQLite writer waits for the write lock, apart from the engine code.

Settings validate channel timeouts against it, and importing them must not load
SQLAlchemy (every CLI verb loads the settings; few open the database).
"""

from __future__ import annotations

# How long a SQLite writer waits for the write lock before "database is locked". Nothing may hold a
# transaction open for longer than this while it waits on something else (see notify.settings).
SQLITE_BUSY_TIMEOUT_S = 30
