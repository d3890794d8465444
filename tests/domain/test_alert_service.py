"""Which service an alert is about: the spec's label order, but never the exporter that raised it."""

from __future__ import annotations

import pytest

from rootward.domain.alert import service_label, service_of
from rootward.ingest.admission import service_field


@pytest.mark.parametrize(
    ("labels", "service"),
    [
        ({"service": "cart", "job": "shop"}, "cart"),
        ({"job": "checkout"}, "checkout"),
        ({"instance": "node-3:9100"}, "node-3"),
        ({"instance": "[fe80::1]:9100"}, "fe80::1"),
        ({"instance": "fe80::1"}, "fe80::1"),  # a bare IPv6 address has no port to drop
        ({}, "unknown"),
        # kube-prometheus' KubePodCrashLooping: `service` and `job` name kube-state-metrics.
        (
            {
                "alertname": "KubePodCrashLooping",
                "service": "prometheus-kube-state-metrics",
                "job": "kube-state-metrics",
                "namespace": "shop",
                "pod": "cart-6d4f8b9c7-k2m5x",
                "container": "cart",
            },
            "cart",  # a Deployment's pod is read as its Deployment: its replicas are one service
        ),
        ({"job": "kube-state-metrics", "pod": "kafka-0"}, "kafka-0"),  # a StatefulSet's pod: no map to say
        ({"job": "kube-state-metrics", "deployment": "checkout", "pod": "x"}, "checkout"),
        ({"job": "node-exporter", "instance": "node-3:9100", "mountpoint": "/"}, "node-3"),
        ({"job": "blackbox", "instance": "https://shop.example.com/health"}, "shop.example.com"),
        # The Prometheus chart's scrape job of annotated pods names how they were found, not which.
        ({"job": "kubernetes-pods", "app": "cart", "pod": "cart-6d4f8b9c7-k2m5x"}, "cart"),
        ({"job": "kubernetes-service-endpoints", "instance": "10.0.3.7:8080"}, "10.0.3.7"),
        # What a service's own exporter says about it is still about that service.
        ({"service": "cart", "job": "kube-state-metrics"}, "cart"),
        # Nothing else to go on: the exporter it is.
        ({"job": "node-exporter"}, "node-exporter"),
    ],
)
def test_the_affected_service(labels: dict[str, str], service: str) -> None:
    assert service_of(labels) == service


def test_messages_name_the_label_the_service_was_read_from() -> None:
    labels = {"service": "prometheus-kube-state-metrics", "pod": "cart-6d4f8b9c7-k2m5x"}
    assert service_label(labels) == "pod" and service_of(labels) == "cart"
    assert service_field(labels) == "labels.pod"
    assert service_field({}) == "labels.service"
