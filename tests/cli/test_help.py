"""Small things a first-time user reads: help text and the links messages carry."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from rootward.cli import app
from rootward.cli.serve import console_url
from rootward.settings import load_settings


def test_flags_are_not_shown_as_if_they_took_a_value() -> None:
    shown = CliRunner().invoke(app, ["investigate", "--help"], env={"COLUMNS": "120"}).output
    assert "--json" in shown and "<bool>" not in shown
    assert "<path>" in shown  # options and arguments that take a value still say what kind


def test_message_links_follow_the_served_port_unless_configured(tmp_path: Path) -> None:
    assert console_url(load_settings(data_dir=tmp_path), "127.0.0.1", 9090) == "http://127.0.0.1:9090"
    configured = load_settings(data_dir=tmp_path, notify={"console_url": "https://rootward.example.org"})
    assert console_url(configured, "127.0.0.1", 9090) == "https://rootward.example.org"
