"""Roles of the people who use rootward, and what each may do.

Ordered: each role may do everything the roles below it may.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    VIEWER = "viewer"  # read incidents and RCAs
    RESPONDER = "responder"  # plus feedback, questions, safe actions
    APPROVER = "approver"  # plus approve or reject remediation
    ADMIN = "admin"  # plus users, tokens and configuration

    @property
    def level(self) -> int:
        return _ORDER.index(self)

    def at_least(self, other: Role) -> bool:
        return self.level >= other.level


_ORDER = [Role.VIEWER, Role.RESPONDER, Role.APPROVER, Role.ADMIN]
