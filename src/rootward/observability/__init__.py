"""Operational telemetry: Prometheus metrics computed from the database, and OpenTelemetry spans."""
