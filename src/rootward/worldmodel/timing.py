"""When a cascade shows: propagation along edges, then detection by the entity's alert rules.

An alert on a dependent arrives after two different delays, and they add up
differently:

- **propagation**, per edge: the time from the dependency's first sign of
  trouble to the dependent's (client timeouts running out, pools filling,
  retries giving up). It adds up along the path, hop by hop;
- **detection**, per entity: the time from its own first sign to its first
  alert (scrape and rule evaluation intervals, the rule's `for:` clause).
  It is paid once, by the entity that alerts, not once per hop.

Before any history the windows are priors that hold for common setups:
synchronous calls propagate within seconds to a couple of minutes, and a
Prometheus rule with a `for:` of one to a few minutes fires one to five
minutes after its signal moved. Learned samples narrow them, shrunk toward
the prior by the same pseudo-observations as every other learned number, so
one sample never makes a pinpoint window.

Records without telemetry stay consistent: when an entity's only sign is its
alert, its "first sign" is the alert, its detection delay is not sampled, and
the propagation sample into it then carries the detection time it absorbed.
"""

from __future__ import annotations

from dataclasses import dataclass

PRIOR_STRENGTH = 2.0
PROPAGATION_P50_S = 30.0
PROPAGATION_P95_S = 120.0
DETECTION_P50_S = 90.0
DETECTION_P95_S = 300.0


def quantile(samples: list[float], q: float) -> float:
    """Nearest-rank quantile (deterministic, no interpolation surprises on tiny samples)."""
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.999999) - 1))
    return ordered[index]


@dataclass(frozen=True)
class Window:
    """A delay distribution as prediction needs it: earliest plausible, typical, latest plausible."""

    min_s: float
    p50_s: float
    p95_s: float

    def __add__(self, other: Window) -> Window:
        return Window(self.min_s + other.min_s, self.p50_s + other.p50_s, self.p95_s + other.p95_s)


PROPAGATION_PRIOR = Window(0.0, PROPAGATION_P50_S, PROPAGATION_P95_S)
DETECTION_PRIOR = Window(0.0, DETECTION_P50_S, DETECTION_P95_S)
ZERO = Window(0.0, 0.0, 0.0)


def shrunk_window(samples: list[float], prior: Window) -> Window:
    """The window the next sample is expected in, pulled toward `prior` on few samples.

    The range of one or two samples is far narrower than the spread of the next
    one, and a window that narrow turns a normal cascade into a mistimed
    verdict. PRIOR_STRENGTH pseudo-observations pull each end toward the prior;
    the pull never narrows what the samples themselves span.
    """
    if not samples:
        return prior
    n = len(samples)
    low = min(samples)
    low = min(low, (n * low + PRIOR_STRENGTH * prior.min_s) / (n + PRIOR_STRENGTH))
    p50 = (n * quantile(samples, 0.5) + PRIOR_STRENGTH * prior.p50_s) / (n + PRIOR_STRENGTH)
    p95 = quantile(samples, 0.95)
    high = max(p95, (n * p95 + PRIOR_STRENGTH * prior.p95_s) / (n + PRIOR_STRENGTH))
    return Window(low, max(low, min(p50, high)), high)
