"""Turn a decided `Scenario` into the files of a spec v1 bundle.

Output is bytes keyed by relative path, written with sorted JSON keys and
fixed float formatting so the same seed always produces byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path
from typing import Any

import yaml

from rootward.sim import logtext
from rootward.sim.faults import FaultPlan, LogEvent, host_of
from rootward.sim.knowledge import knowledge_for
from rootward.sim.scenario import AlertSpec, PreviousFault, Scenario, Victim, _iso
from rootward.sim.signals import COUNTER_METRICS, Shape, finish, fmt
from rootward.sim.traces import MAX_SPANS, traces_jsonl


def _dumps(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _fingerprint(bundle_id: str, labels: dict[str, str]) -> str:
    canonical = bundle_id + "\x1f" + "\x1f".join(f"{k}={labels[k]}" for k in sorted(labels))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _payload(sc: Scenario, a: AlertSpec, resolved: bool) -> dict[str, Any]:
    labels = {
        "alertname": a.name,
        "service": a.entity,
        "severity": a.severity,
        "instance": f"{a.entity}:9100",
        "team": "ops",
    }
    annotations = {"summary": a.summary, "description": f"{a.name} firing for {a.entity}"}
    status = "resolved" if resolved else "firing"
    return {
        "version": "4",
        "groupKey": '{}:{alertname="' + a.name + '"}',
        "truncatedAlerts": 0,
        "status": status,
        "receiver": "rootward",
        "groupLabels": {"alertname": a.name},
        "commonLabels": labels,
        "commonAnnotations": annotations,
        "externalURL": "http://alertmanager:9093",
        "alerts": [
            {
                "status": status,
                "labels": labels,
                "annotations": annotations,
                "startsAt": _iso(a.starts_at),
                "endsAt": _iso(a.ends_at) if resolved and a.ends_at else "0001-01-01T00:00:00Z",
                "generatorURL": f"http://prometheus:9090/graph?g0.expr={a.name}",
                "fingerprint": _fingerprint(sc.id, labels),
            }
        ],
    }


def alert_payloads(sc: Scenario) -> list[dict[str, Any]]:
    """Alertmanager v4 webhook payloads in the order they were sent (an alert storm).

    One payload per alert when it fires, and a `resolved` one later for flaky monitors that cleared.
    """
    sent: list[tuple[int, int, dict[str, Any]]] = []
    for i, a in enumerate(sc.alerts):
        sent.append((a.starts_at, i, _payload(sc, a, resolved=False)))
        if a.ends_at is not None:
            sent.append((a.ends_at, i, _payload(sc, a, resolved=True)))
    return [p for _, _, p in sorted(sent, key=lambda x: (x[0], x[1]))]


def _victim_value(victims: dict[str, Victim], onset: int, mode: str, name: str, metric: str, t: int, v: float) -> float:
    victim = victims.get(name)
    if victim is None:
        return v
    start = onset + victim.starts
    if t < start:
        return v
    p = min(1.0, (t - start) / 120.0) * victim.strength
    if victim.relation == "load":
        if metric == "request_rate":
            return v * (1.0 + 0.5 * p)
        if metric == "latency_p99_ms":
            return v * (1.0 + 1.5 * p)
        if metric == "cpu_usage":
            return v * (1.0 + 0.6 * p)
        return v
    if metric == "latency_p99_ms":
        return v * (1.0 + (3.0 if mode == "latency" else 0.8) * p)
    if metric == "error_rate" and (mode == "errors" or victim.relation == "runs_on"):
        return v + 0.1 * p
    if metric == "error_rate":
        return v + 0.02 * p
    return v


def _shape_of(plan: FaultPlan, cause: str, name: str, metric: str) -> Shape | None:
    return plan.shapes.get(metric) if name == cause else plan.other_shapes.get((name, metric))


def metrics_csv(sc: Scenario, rng: random.Random) -> str:
    rows = ["timestamp,service,metric,value"]
    stamps = list(range(sc.window_start, sc.window_end + 1, sc.resolution))
    for ent in sc.topology.entities:
        if ent.family == "external":
            continue
        for (name, metric), b in ((k, v) for k, v in sc.baselines.items() if k[0] == ent.name):
            shape = _shape_of(sc.plan, sc.cause.name, name, metric)
            earlier = [(p, _shape_of(p.plan, p.cause.name, name, metric)) for p in sc.previous]
            phase = rng.uniform(0, 2 * math.pi)
            for t in stamps:
                if name == sc.cause.name and sc.plan.metrics_stop is not None and t >= sc.plan.metrics_stop:
                    break
                v = b.level
                if metric not in COUNTER_METRICS and b.noise:
                    v *= 1.0 + 0.04 * math.sin(t / 900.0 + phase)
                    v *= max(0.0, 1.0 + rng.gauss(0, b.noise))
                for p, earlier_shape in earlier:
                    if t < p.end:  # an earlier fault of the session, over at its end
                        v = earlier_shape(t, v) if earlier_shape is not None else v
                        v = _victim_value(p.victims, p.onset, p.plan.victim_mode, name, metric, t, v)
                if shape is not None:
                    v = shape(t, v)
                v = _victim_value(sc.victims, sc.onset, sc.plan.victim_mode, name, metric, t, v)
                rows.append(f"{t},{name},{metric},{fmt(finish(metric, v, b.limit))}")
    return "\n".join(rows) + "\n"


def _pod(name: str) -> str:
    h = hashlib.sha256(name.encode()).hexdigest()
    return f"{name}-{h[:9]}-{h[9:14]}"


def _victim_lines(
    sc: Scenario, cause: str, plan: FaultPlan, victims: dict[str, Victim], onset: int, end: int, rng: random.Random
) -> list[LogEvent]:
    """What the fault's victims log from their symptoms' start until `end`: errors about the callee, host trouble."""
    topo = sc.topology
    events: list[LogEvent] = []
    for name, v in sorted(victims.items()):
        ent = topo.get(name)
        if ent.family in ("external", "host", "network"):
            continue
        gap = 10.0 * (1.6 ** (v.hops - 1)) / max(0.3, v.strength)
        t = onset + v.starts + rng.uniform(0, gap)
        while t < end:
            if v.relation == "depends_on":
                if v.via == cause and plan.caller_message is not None:
                    level, msg = plan.caller_message(ent, v.via, rng)
                else:
                    callee = topo.get(v.via)
                    level, msg = logtext.caller_error(
                        ent.software,
                        v.via,
                        plan.victim_mode,
                        rng,
                        callee.family,
                        callee.attributes.get("address", ""),
                    )
            else:
                level, msg = logtext.host_symptom(rng)
            events.append(LogEvent(round(t, 3), name, level, msg, host_of(ent)))
            t += rng.uniform(0.4, 1.6) * gap
    return events


def _log_events(sc: Scenario, rng: random.Random) -> list[LogEvent]:
    topo = sc.topology
    events: list[LogEvent] = []
    for ent in topo.entities:
        if ent.family == "external":
            continue
        gap = rng.uniform(30, 90)
        t = sc.window_start + rng.uniform(0, gap)
        stop = sc.plan.metrics_stop if ent.name == sc.cause.name and sc.plan.metrics_stop else sc.window_end
        host = "" if ent.family == "host" else host_of(ent)
        while t < stop:
            level, msg = logtext.background(ent.software, ent.family, ent.name, rng)
            events.append(LogEvent(round(t, 3), ent.name, level, msg, host))
            t += rng.uniform(0.3, 1.7) * gap
    events += _victim_lines(sc, sc.cause.name, sc.plan, sc.victims, sc.onset, sc.window_end, rng)
    for p in sc.previous:
        events += _victim_lines(sc, p.cause.name, p.plan, p.victims, p.onset, p.end, rng)
        events += [e for e in p.plan.logs if e.ts < p.end]
    events += sc.plan.logs
    events += sc.extra_logs
    lo, hi = sc.window_start, sc.window_end
    events = [e for e in events if lo <= e.ts <= hi]
    events.sort(key=lambda e: (e.ts, e.service, e.message))
    return events


def logs_jsonl(sc: Scenario, rng: random.Random) -> str:
    lines = []
    hosts = {e.name for e in sc.topology.entities if e.family == "host"}
    for e in _log_events(sc, rng):
        obj: dict[str, str] = {"ts": _iso(e.ts), "service": e.service, "level": e.level, "message": e.message}
        if e.host:
            obj["host"] = e.host
        if sc.kubernetes and e.service not in hosts:
            obj["pod"] = _pod(e.service)
        lines.append(json.dumps(obj, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def changes_json(sc: Scenario) -> str:
    out = []
    for c in sc.changes:
        item = dict(c)
        item["time"] = _iso(int(c["time"]))
        out.append(item)
    return _dumps(out)


def incident_yaml(sc: Scenario) -> str:
    first = sc.alerts[0]
    return (
        "format: rootward-bundle/v1\n"
        f"id: {sc.id}\n"
        f"title: {first.name} on {first.entity}\n"
        f"fired_at: '{_iso(sc.fired_at)}'\n"
        "window:\n"
        f"  start: '{_iso(sc.window_start)}'\n"
        f"  end: '{_iso(sc.window_end)}'\n"
    )


def truth_json(sc: Scenario) -> str:
    return _dumps(
        {
            "root_cause": {"entity": sc.cause.name, "fault_type": sc.fault_type},
            "also_acceptable": [{"entity": e, "fault_type": f} for e, f in sc.also_acceptable],
            "notes": sc.plan.notes,
            "topology": sc.topology.name,
            "fault_onset": _iso(sc.onset),
            "missing_sources": list(sc.missing),
            "distractors": list(sc.distractors),
            **({"previous_faults": [_earlier(p) for p in sc.previous]} if sc.previous else {}),
        }
    )


def _earlier(p: PreviousFault) -> dict[str, str]:
    return {"entity": p.cause.name, "fault_type": p.fault_type, "onset": _iso(p.onset), "end": _iso(p.end)}


def render(sc: Scenario, rng: random.Random, max_spans: int = MAX_SPANS) -> dict[str, bytes]:
    """All files of the bundle; sources listed in `sc.missing` are left out; at most `max_spans` spans."""
    files: dict[str, str] = {
        "incident.yaml": incident_yaml(sc),
        "alerts.json": _dumps(alert_payloads(sc)),
        "topology.yaml": yaml.safe_dump(sc.topology.to_yaml_dict(), sort_keys=False, default_flow_style=None),
        "metrics.csv": metrics_csv(sc, rng),
        "logs.jsonl": logs_jsonl(sc, rng),
        "changes.json": changes_json(sc),
        "traces.jsonl": traces_jsonl(sc, _pod, max_spans),  # its own random stream: the other files do not change
        "truth.json": truth_json(sc),
    }
    for rel, text in knowledge_for(sc, rng).items():
        files[f"knowledge/{rel}"] = text
    for name in sc.missing:
        files.pop(name, None)
    return {k: v.encode("utf-8") for k, v in sorted(files.items())}


def write_bundle(files: dict[str, bytes], dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return dest
