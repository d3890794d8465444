"""Decoders for the injection guard: what a line says once its common encodings are undone.

A model decodes base64, hex or percent-encoding without being asked, so an
instruction in one of them is an instruction. Each decoder finds the encoded
runs of a line and returns their text only when it reads as text (printable,
mostly letters, with a space): ids, hashes and binary payloads decode to
noise and are dropped, so ordinary log lines pay a regex search and nothing
else. ROT13 and reversed text need no finding: they are cheap transforms of
the whole line (see `rot13` and the matcher).
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Iterator
from urllib.parse import unquote_plus

_BASE64_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX_RUN = re.compile(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){8,}(?![0-9a-fA-F])")
_HEX_ESCAPED = re.compile(r"(?:(?:\\x|0x)[0-9a-fA-F]{2}[\s,]?){8,}")
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{16}")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_ENTITY = re.compile(r"&#(?:x[0-9a-fA-F]+|\d+);")
_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}")
_ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM"
)


def _reads_as_text(text: str) -> bool:
    """Decoded bytes that are prose: printable, a space, and mostly letters."""
    if len(text) < 8 or " " not in text.strip():
        return False
    printable = sum(ch.isprintable() or ch.isspace() for ch in text)
    letters = sum(ch.isalpha() for ch in text)
    return printable / len(text) > 0.95 and letters / len(text) > 0.6


def _utf8(raw: bytes) -> str | None:
    # Text needs a space, and UTF-8 writes one only as the byte 0x20: without it
    # (most decoded ids and hashes) there is nothing to decode.
    if len(raw) < 8 or b" " not in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if _reads_as_text(text) else None


def _base64(line: str) -> Iterator[str]:
    for token in _BASE64_TOKEN.findall(line):
        core = token.rstrip("=")
        if core.isdigit() or core.isalpha() and core.islower():
            continue  # numbers and plain words are not base64 worth decoding
        alphabet = base64.urlsafe_b64decode if ("-" in core or "_" in core) else base64.b64decode
        padded = core + "=" * (-len(core) % 4)
        try:
            raw = alphabet(padded)
        except (binascii.Error, ValueError):
            continue
        text = _utf8(raw)
        if text is not None:
            yield text


def _hex(line: str) -> Iterator[str]:
    runs = _HEX_RUN.findall(line)
    if "\\x" in line or "0x" in line:
        runs += [re.sub(r"\\x|0x|[\s,]", "", run) for run in _HEX_ESCAPED.findall(line)]
    for run in runs:
        if len(run) % 2:
            continue
        text = _utf8(bytes.fromhex(run))
        if text is not None:
            yield text


def _escapes(line: str) -> Iterator[str]:
    if "%" in line and len(_PERCENT.findall(line)) >= 3:
        yield unquote_plus(line)
    if "&#" in line and len(_ENTITY.findall(line)) >= 3:
        yield html.unescape(line)
    if "\\" in line and len(_ESCAPE.findall(line)) >= 3:
        yield _ESCAPE.sub(lambda match: chr(int(match.group()[2:], 16)), line)


def decoded_payloads(line: str) -> list[tuple[str, str]]:
    """(encoding, text) for every encoded run of `line` that decodes to text."""
    found: list[tuple[str, str]] = []
    if _LONG_TOKEN.search(line):
        found += [("base64", text) for text in _base64(line)]
        found += [("hex", text) for text in _hex(line)]
    found += [("urlencoded", text) for text in _escapes(line) if text != line]
    return found


def rot13(text: str) -> str:
    return text.translate(_ROT13)
