from __future__ import annotations

import shutil
from pathlib import Path

from rootward.sources.replay import ReplaySettings, replay_bundle
from tests.conftest import EXAMPLES


def test_bundle_named_inside_an_allowed_dir_is_replayed(tmp_path: Path) -> None:
    allowed = tmp_path / "demo"
    bundle = allowed / "b1"
    shutil.copytree(EXAMPLES / "shop-disk-full-03", bundle)
    settings = ReplaySettings(dirs=[allowed])
    assert replay_bundle([{"summary": "x"}, {"rootward_bundle": str(bundle)}], settings) == bundle.resolve()


def test_paths_outside_the_allowed_dirs_or_not_bundles_are_ignored(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLES / "shop-disk-full-03", outside)
    settings = ReplaySettings(dirs=[tmp_path / "demo"])
    assert replay_bundle([{"rootward_bundle": str(outside)}], settings) is None
    assert replay_bundle([{"rootward_bundle": str(tmp_path / "demo" / ".." / "elsewhere")}], settings) is None
    assert replay_bundle([{"rootward_bundle": "/etc"}], ReplaySettings(dirs=[Path("/")])) is None
    assert replay_bundle([{}], settings) is None
