"""Log clustering on labelled LogHub samples, each line given a variable its system never wrote.

    python -m bench.log_perturbations DIR [--only prefix,host,...] [--seed 1]

DIR holds `<System>/<System>_2k.log_structured*.csv` files (logpai/loghub's
labelled samples; the repository's tests use `tests/fixtures/loghub/structured`).
The grouping accuracy of the eight systems the clusterer was written against
says little about a system it has never seen; what does is whether it holds
when the lines change the way other systems' lines differ from these: a
program name or a bracketed component in front, a user, host or path in the
text. Every perturbation keeps the ground truth (the variable is the same kind
of value for every event), so a drop is grouping the clusterer got wrong.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable
from pathlib import Path

from rootward.context.logs import ClusterConfig, assign_templates
from rootward.eval.loghub import find_systems, grouping_accuracy, load_structured

PROGRAMS = (
    "chrome.exe",
    "Dropbox.exe",
    "svchost.exe",
    "java",
    "python3",
    "QQ.exe",
    "nginx",
    "node",
    "firefox",
    "kubelet",
)
USERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")
HOSTS = ("proxy.cse.example.edu", "www.google.com", "api.github.com", "mail.yahoo.co.jp", "cdn.example.net")
WORDS = ("apple", "banana", "cherry", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima")

Perturbation = Callable[[str, random.Random], str]


def _middle(line: str, rng: random.Random) -> str:
    tokens = line.split()
    return " ".join([*tokens[: len(tokens) // 2], rng.choice(USERS), *tokens[len(tokens) // 2 :]])


PERTURBATIONS: dict[str, Perturbation] = {
    "none": lambda line, rng: line,
    "prefix": lambda line, rng: f"{rng.choice(PROGRAMS)} - {line}",
    "syslog": lambda line, rng: f"{rng.choice(PROGRAMS)}[{rng.randint(100, 9999)}]: {line}",
    "bracket": lambda line, rng: f"[{rng.choice(WORDS)}] {line}",
    "middle": _middle,
    "quoted": lambda line, rng: f"{line} for '{rng.choice(USERS)}'",
    "user": lambda line, rng: f"{line} user={rng.choice(USERS)}",
    "host": lambda line, rng: f"{line} from {rng.choice(HOSTS)}",
    "host_port": lambda line, rng: f"{line} via {rng.choice(HOSTS)}:{rng.randint(80, 9000)}",
    "path": lambda line, rng: f"{line} file /home/{rng.choice(USERS)}/{rng.choice(WORDS)}.txt",
    "duration": lambda line, rng: f"{line} took {rng.randint(1, 999)}ms",
    "phrase": lambda line, rng: f"{line} ({' '.join(rng.sample(WORDS, rng.randint(1, 3)))})",
    "quoted_phrase": lambda line, rng: f"{line} file '{' '.join(rng.sample(WORDS, rng.randint(1, 3)))}'",
    "bare_phrase": lambda line, rng: f"{line} reason: {' '.join(rng.sample(WORDS, rng.randint(1, 3)))}",
    "two": lambda line, rng: f"{rng.choice(PROGRAMS)}: {line} for {rng.choice(USERS)}",
}


def accuracy(root: Path, perturb: Perturbation, seed: int = 1) -> dict[str, float]:
    """Grouping accuracy per system of the one default configuration on the perturbed lines."""
    out = {}
    for system, path in find_systems(root).items():
        contents, events = load_structured(path)
        rng = random.Random(seed)
        assignment, _ = assign_templates([perturb(line, rng) for line in contents], ClusterConfig())
        out[system] = grouping_accuracy(events, assignment)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--only", default="", help=f"comma-separated, of {','.join(PERTURBATIONS)}")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(PERTURBATIONS)
    if unknown := set(names) - set(PERTURBATIONS):
        parser.error(f"unknown perturbation(s): {', '.join(sorted(unknown))}")
    if not find_systems(args.root):
        parser.error(f"no *_structured*.csv under {args.root}")
    systems = list(find_systems(args.root))
    print(f"{'':10s} " + " ".join(f"{s[:9]:>9s}" for s in systems) + "      mean       min")
    for name in names:
        ga = accuracy(args.root, PERTURBATIONS[name], args.seed)
        cells = " ".join(f"{ga[s]:9.3f}" for s in systems)
        print(f"{name:10s} {cells} {statistics.mean(ga.values()):9.3f} {min(ga.values()):9.3f}", flush=True)


if __name__ == "__main__":
    main()
