"""Scrubbing: every secret kind is fully redacted; benign look-alikes are kept."""

from __future__ import annotations

import pytest

from rootward.context.scrub import scrub, scrub_text

# (log line, the sensitive value that must disappear, placeholder expected)
SECRETS = [
    ("payment failed for customer jane.doe+shop@example.co.uk", "jane.doe+shop@example.co.uk", "<EMAIL>"),
    ("login attempt from 203.0.113.45 rejected", "203.0.113.45", "<IP>"),
    ("upstream 10.0.12.7:5432 refused connection", "10.0.12.7", "<IP>"),
    ("client 2001:db8:85a3::8a2e:370:7334 disconnected", "2001:db8:85a3::8a2e:370:7334", "<IP>"),
    ("peer fe80::1ff:fe23:4567:890a timed out", "fe80::1ff:fe23:4567:890a", "<IP>"),
    ("charge declined card=4111111111111111 amount=12.50", "4111111111111111", "<CARD>"),
    ("card 5500 0000 0000 0004 expired", "5500 0000 0000 0004", "<CARD>"),
    ("amex 3782-822463-10005 on file", "3782-822463-10005", "<CARD>"),
    (
        'Charge invoked {"credit_card_number":"4432-8015-6152-0454","credit_card_cvv":672}',
        "4432-8015-6152-0454",
        "<CARD>",
    ),
    ('{"credit_card_cvv":672,"credit_card_expiration_year":2039}', "672", "<CARD>"),
    (
        "GET /api/orders Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e",
        "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e",
        "<TOKEN>",
    ),
    (
        "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c rejected",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "<TOKEN>",
    ),
    ("using aws key AKIAIOSFODNN7EXAMPLE for s3", "AKIAIOSFODNN7EXAMPLE", "<TOKEN>"),
    (
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY loaded",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "<SECRET>",
    ),
    (
        "git clone with ghp_16C7e42F292c6912E7710c838347Ae178B4a failed",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "<TOKEN>",
    ),
    (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF used",
        "github_pat_11ABCDEFG0123456789",
        "<TOKEN>",
    ),
    ("notify via xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012", "<TOKEN>"),
    (
        "webhook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "<TOKEN>",
    ),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc rejected", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "<TOKEN>"),
    ("maps key AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI quota", "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "<TOKEN>"),
    (
        "llm call with sk-proj-Abc123Def456Ghi789Jkl012Mno345 failed",
        "sk-proj-Abc123Def456Ghi789Jkl012Mno345",
        "<TOKEN>",
    ),
    ("glpat-xYz12345AbCdEfGhIjKl pushed", "glpat-xYz12345AbCdEfGhIjKl", "<TOKEN>"),
    ("db connect password=hunter2 host=db", "hunter2", "<SECRET>"),
    ('config {"db_password": "S3cr3t!pass", "pool": 5}', "S3cr3t!pass", "<SECRET>"),
    ("API_KEY=f00b4rB4zQuuxSecret env loaded", "f00b4rB4zQuuxSecret", "<SECRET>"),
    ("x-api-key: Zm9vYmFyYmF6cXV1eDEyMzQ1Ng== sent", "Zm9vYmFyYmF6cXV1eDEyMzQ1Ng==", "<SECRET>"),
    ("GET /callback?code=abc&token=Tk9PEnr8vW2qLx7 200", "Tk9PEnr8vW2qLx7", "<SECRET>"),
    ("client_secret='p@ss w0rd with space'", "p@ss w0rd with space", "<SECRET>"),
    ("connecting to postgres://app:Pa55w0rdXyz@db.internal:5432/orders", "Pa55w0rdXyz", "<SECRET>"),
    ("Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l", "<SECRET>"),
    (
        "loaded -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7V1x\nq2w3e4r5t6y7\n-----END RSA PRIVATE KEY----- ok",
        "MIIEowIBAAKCAQEA7V1x",
        "<SECRET>",
    ),
    ("key dump -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA", "<SECRET>"),
    ("signed url sig=Q2hhbmdlTWUxMjM0NTY3ODkwQWJjRGVm expires", "Q2hhbmdlTWUxMjM0NTY3ODkwQWJjRGVm", "<SECRET>"),
    ("session cookie set to Kx9vQ2mZ7pL4tR8wN3bY6cJ1hF5dG0sA", "Kx9vQ2mZ7pL4tR8wN3bY6cJ1hF5dG0sA", "<SECRET>"),
]

BENIGN = [
    "processed 1532 requests in 250ms (p99 1.2s)",
    "listening on port 8080",
    "upstream timeout after 30s, retry 3 of 5",
    "deployed checkout v2.14.3 (build 4821)",
    "release 1.2.3 rolled out to 10% of pods",
    "request_id=3fa85f64-5717-4562-b3fc-2c963f66afa6 completed",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
    "deploy commit 9fceb02d0ae598e95dc970b74767f19372d61af8 by ci",
    "rolled back to a1b2c3d",
    "image sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae pulled",
    "2024-05-01T12:34:56.789Z INFO started",
    "at 12:30:45 queue depth 1234567",
    "pod checkout-7d9f8b6c5d-x2k4p OOMKilled, restarts=4",
    "order 1234567890123 created",  # 13 digits, not a card (fails brand/Luhn)
    "epoch 1714566896123 ms",
    "token bucket refilled, 40 tokens available",
    "password reset email queued",
    "invalid token: expired",
    "auth token missing from request",
    "max_tokens=4096 temperature=0.2",
    "Bearer token rejected: signature mismatch",
    "org.springframework.web.servlet.DispatcherServlet initialised",
    "AbstractHttpConnectionFactory2Impl created",
    "CPU usage 85.5%, memory 3.2GiB",
    "GET /api/v1/users/42/orders?page=2 200",
    "file /var/lib/kubelet/pods/abc/volumes not found",
    "secret kube-system/default-token not found",
    "mac 00:1a:2b:3c:4d:5e link up",
    "temperature sensor 12.5.6 firmware",
    "PermissionDenied: missing scope repo:status",
    "queue=orders-high partitions=12 lag=0",
    "password=true passed to validator",  # a flag value, not a secret
]


@pytest.mark.parametrize(("line", "secret", "placeholder"), SECRETS)
def test_each_secret_kind_is_fully_redacted(line: str, secret: str, placeholder: str) -> None:
    result = scrub(line)
    assert secret not in result.text
    assert placeholder in result.text
    assert result.redactions


@pytest.mark.parametrize("line", BENIGN)
def test_benign_look_alike_is_left_alone(line: str) -> None:
    assert scrub_text(line) == line


def test_redaction_spans_point_into_the_original_text() -> None:
    line = "user bob@example.com from 198.51.100.7 with key AKIAIOSFODNN7EXAMPLE"
    result = scrub(line)
    assert result.text == "user <EMAIL> from <IP> with key <TOKEN>"
    originals = [line[r.start : r.end] for r in result.redactions]
    assert originals == ["bob@example.com", "198.51.100.7", "AKIAIOSFODNN7EXAMPLE"]
    assert [r.kind for r in result.redactions] == ["EMAIL", "IP", "TOKEN"]


def test_luhn_invalid_sixteen_digit_number_is_not_a_card() -> None:
    assert scrub_text("ref 4111111111111112 settled") == "ref 4111111111111112 settled"


def test_corpus_covers_every_placeholder_kind() -> None:
    kinds = {r.kind for line, _, _ in SECRETS for r in scrub(line).redactions}
    assert kinds == {"EMAIL", "IP", "CARD", "TOKEN", "SECRET"}
