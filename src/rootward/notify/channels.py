"""The channel protocol: deliver one notification, or raise `DeliveryFailed` (retried) / `DeliveryRefused` (not)."""

from __future__ import annotations

from typing import Protocol

from rootward.notify.message import Notification


class DeliveryFailed(Exception):
    """The channel did not take the message; the outbox will retry it in order."""


class DeliveryRefused(DeliveryFailed):
    """The target refused the message for a reason no retry can fix (bad credentials, no such incident).

    The outbox marks the row `failed` with this message and goes on with the
    channel's next row: one message a target will never take must not hold
    every later one behind it.
    """


class Channel(Protocol):
    name: str

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        """Deliver and return a receipt (message id or timestamp)."""
        ...
