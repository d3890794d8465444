"""The channel protocol: deliver one notification or raise `DeliveryFailed`."""

from __future__ import annotations

from typing import Protocol

from rootward.notify.message import Notification


class DeliveryFailed(Exception):
    """The channel did not take the message; the outbox will retry it in order."""


class Channel(Protocol):
    name: str

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        """Deliver and return a receipt (message id or timestamp)."""
        ...
