"""The vocabulary of the knowledge-base evaluation corpus: topologies and how each fault reads.

Two phrase banks per fault on purpose: `doc_symptoms` is how runbooks and
postmortems describe a fault, `ask_symptoms` is how an on-call engineer
describes what they see when they do not yet know the cause. Queries are built
only from the second bank, so the evaluation measures retrieval by meaning,
not string overlap with the documents.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Svc:
    name: str
    kind: str  # service | database | cache | queue | proxy | job
    code: str  # error-code prefix in its logs
    topology: str


@dataclass(frozen=True)
class Fault:
    name: str  # the closed fault vocabulary of the bundle spec
    human: str
    kinds: tuple[str, ...]
    monitor: str  # monitor name suffix, e.g. "PoolSaturated"
    code_meaning: str
    doc_symptoms: tuple[str, ...]
    ask_symptoms: tuple[str, ...]
    causes: tuple[str, ...]
    diagnosis: tuple[str, ...]
    commands: tuple[str, ...]
    fixes: tuple[str, ...]
    legacy_fix: str  # what the stale runbook still says


TOPOLOGIES: dict[str, tuple[Svc, ...]] = {
    "shop": (
        Svc("frontend", "service", "FE", "shop"),
        Svc("checkout", "service", "CHK", "shop"),
        Svc("payment", "service", "PAY", "shop"),
        Svc("payment-db", "database", "PDB", "shop"),
        Svc("cart", "service", "CRT", "shop"),
        Svc("cart-redis", "cache", "CRD", "shop"),
        Svc("catalog", "service", "CAT", "shop"),
        Svc("catalog-db", "database", "CDB", "shop"),
        Svc("shipping", "service", "SHP", "shop"),
        Svc("search", "service", "SRCH", "shop"),
        Svc("ingress-nginx", "proxy", "NGX", "shop"),
        Svc("email", "service", "EML", "shop"),
    ),
    "homelab": (
        Svc("nextcloud", "service", "NXC", "homelab"),
        Svc("home-assistant", "service", "HASS", "homelab"),
        Svc("pihole", "service", "PIH", "homelab"),
        Svc("traefik", "proxy", "TRF", "homelab"),
        Svc("homelab-postgres", "database", "HPG", "homelab"),
        Svc("mqtt-broker", "queue", "MQT", "homelab"),
        Svc("jellyfin", "service", "JLY", "homelab"),
        Svc("restic-backup", "job", "RST", "homelab"),
    ),
    "pipeline": (
        Svc("ingest-api", "service", "ING", "pipeline"),
        Svc("kafka", "queue", "KFK", "pipeline"),
        Svc("stream-processor", "service", "STP", "pipeline"),
        Svc("warehouse", "database", "WH", "pipeline"),
        Svc("airflow", "job", "AFL", "pipeline"),
        Svc("schema-registry", "service", "SCR", "pipeline"),
        Svc("spark-batch", "job", "SPK", "pipeline"),
        Svc("object-gateway", "proxy", "OBJ", "pipeline"),
    ),
}

ALL_SERVICES: tuple[Svc, ...] = tuple(s for group in TOPOLOGIES.values() for s in group)

FAULTS: tuple[Fault, ...] = (
    Fault(
        "connection_pool_exhaustion",
        "connection pool exhaustion",
        ("service", "job"),
        "PoolSaturated",
        "timed out waiting for a pooled connection",
        (
            "all pooled database connections are checked out and requests queue for a free one",
            "the client pool sits at its maximum size while callers block on acquire",
        ),
        (
            "requests hang for about thirty seconds and then fail, while the database itself looks idle",
            "threads are stuck waiting to get a handle to the database even though the DB has spare capacity",
            "every call that needs the database stalls, yet database CPU is low",
        ),
        (
            "a deploy halved maximumPoolSize",
            "a slow downstream held connections open so the pool drained",
            "a connection leak in an error path never returned connections",
        ),
        (
            "Compare active connections with the configured pool size on the dashboard.",
            "Look for acquire timeouts in the application logs.",
            "Check whether a recent deploy changed the pool settings.",
            "Check the database for idle-in-transaction sessions held by this service.",
        ),
        (
            "kubectl logs deploy/{svc} --since=15m | grep -c '{code}'",
            'psql -c "select state, count(*) from pg_stat_activity group by state"',
        ),
        (
            "Roll back the pool size change or raise maximumPoolSize to its previous value.",
            "Restart the leaking replicas one at a time to return the held connections.",
            "Set a connection leak detection threshold so the next leak is logged.",
        ),
        "Restart every replica at once to free the pool.",
    ),
    Fault(
        "db_lock_contention",
        "database lock contention",
        ("database",),
        "LockWaits",
        "lock wait timeout exceeded",
        (
            "transactions wait on row locks held by a long-running transaction",
            "lock waits pile up behind an exclusive lock taken by a migration",
        ),
        (
            "simple updates that normally take milliseconds now take many seconds and some deadlock",
            "writes queue up behind something and the slow query log fills with blocked statements",
            "queries are stuck in a waiting state although CPU and disk on the database are fine",
        ),
        (
            "a schema migration took an ACCESS EXCLUSIVE lock during peak",
            "a batch job held a transaction open for an hour",
            "two services update the same rows in opposite order",
        ),
        (
            "List blocked and blocking sessions.",
            "Find the oldest open transaction and what it runs.",
            "Check whether a migration or batch job started just before the alert.",
            "Check the deadlock counter on the database dashboard.",
        ),
        (
            "psql -c \"select pid, wait_event_type, query from pg_stat_activity where wait_event_type = 'Lock'\"",
            'psql -c "select pg_blocking_pids(pid), query from pg_stat_activity"',
        ),
        (
            "Cancel the blocking transaction with pg_cancel_backend once its owner agrees.",
            "Reschedule the migration with lock_timeout set.",
            "Split the batch job into short transactions.",
        ),
        "Restart the database to clear the locks.",
    ),
    Fault(
        "memory_leak",
        "memory leak",
        ("service", "job", "cache", "queue"),
        "MemoryGrowth",
        "heap usage above threshold",
        (
            "resident memory grows steadily after every deploy until garbage collection thrashes",
            "heap usage climbs without ever returning to baseline",
        ),
        (
            "memory creeps up a little every hour and only a restart brings it back down",
            "the process gets slower over days and its RAM graph is a staircase that never drops",
            "pods use more and more memory over time even at night with no traffic",
        ),
        (
            "an unbounded in-process cache",
            "a listener registered on every request and never removed",
            "a client library version that keeps response buffers",
        ),
        (
            "Plot memory per pod over the last 7 days and look for a monotonic climb.",
            "Take a heap profile from one replica.",
            "Correlate the start of the climb with deploys.",
            "Check GC pause times.",
        ),
        ("kubectl top pod -l app={svc}", "curl -s localhost:6060/debug/pprof/heap > heap.out"),
        (
            "Roll back to the last version without the climb.",
            "Add a size bound to the cache that grows.",
            "Schedule a rolling restart as a stopgap and open a bug.",
        ),
        "Double the memory limit and move on.",
    ),
    Fault(
        "oom_kill",
        "out-of-memory kill",
        ("service", "job", "database", "cache"),
        "OOMKilled",
        "container terminated with exit code 137",
        (
            "the kernel OOM killer terminates the container with exit code 137",
            "pods restart with reason OOMKilled when memory hits the limit",
        ),
        (
            "pods vanish abruptly with no error in the application log, then start again",
            "the container dies suddenly mid-request and the restart counter goes up, exit status 137",
            "the job gets killed without a stack trace whenever the input is large",
        ),
        (
            "the memory limit is below the working set after a data growth",
            "a large query result loaded into memory",
            "a sidecar raised its memory use and the pod limit was not adjusted",
        ),
        (
            "Check the pod's last termination reason.",
            "Compare the memory limit with peak usage.",
            "Look at dmesg on the node for oom-killer lines.",
            "Check whether input sizes grew.",
        ),
        (
            "kubectl get pod -l app={svc} -o jsonpath='{{..lastState.terminated.reason}}'",
            "journalctl -k | grep -i 'killed process'",
        ),
        (
            "Raise the memory limit to peak usage plus 30 percent.",
            "Stream the large result instead of loading it.",
            "Set requests equal to limits for this workload.",
        ),
        "Delete the pod and let it reschedule.",
    ),
    Fault(
        "crash_loop",
        "crash loop",
        ("service", "job", "proxy"),
        "CrashLooping",
        "process exited during startup",
        (
            "the container exits seconds after start and Kubernetes backs off restarting it",
            "pods sit in CrashLoopBackOff and never become ready",
        ),
        (
            "the new pods never come up, they restart over and over with a growing delay",
            "the service will not start: it dies right after launch every time",
            "rollout stuck because replicas keep restarting before readiness",
        ),
        (
            "a missing environment variable after a config refactor",
            "a migration that fails at startup",
            "a secret that was rotated but not mounted",
        ),
        (
            "Read the logs of the previous container.",
            "Describe the pod to see the exit code and events.",
            "Diff the deployment spec against the last good revision.",
            "Check that mounted secrets exist.",
        ),
        ("kubectl logs deploy/{svc} --previous", "kubectl rollout history deploy/{svc}"),
        (
            "Roll back the deployment to the last good revision.",
            "Restore the missing variable or secret.",
            "Fix the startup migration and redeploy.",
        ),
        "Scale the deployment to zero and back.",
    ),
    Fault(
        "disk_full",
        "disk full",
        ("database", "job", "queue", "service"),
        "DiskAlmostFull",
        "no space left on device",
        (
            "the data volume reaches 100 percent and writes fail with ENOSPC",
            "the filesystem runs out of free space or inodes",
        ),
        (
            "writes suddenly fail and the service reports it cannot create files",
            "backups and uploads started erroring and df shows nothing left on the volume",
            "logs stopped being written and the app complains about the device",
        ),
        (
            "log rotation stopped after an upgrade",
            "old WAL segments were retained by an abandoned replication slot",
            "temporary files from a failed batch were never cleaned",
        ),
        (
            "Check volume usage and inode usage.",
            "Find the biggest directories on the volume.",
            "Check retention settings for logs and WAL.",
            "Check for abandoned replication slots.",
        ),
        ("df -h && df -i", "du -xh /var/lib/{svc} | sort -h | tail -20"),
        (
            "Delete or archive the largest expendable files.",
            "Drop the abandoned replication slot.",
            "Grow the volume and fix the retention policy.",
        ),
        "Delete the oldest log directory by hand.",
    ),
    Fault(
        "network_latency",
        "network latency",
        ("service", "proxy", "queue"),
        "LatencyHigh",
        "upstream request exceeded deadline",
        (
            "round-trip time between nodes rises and every hop adds delay",
            "calls to a peer slow down uniformly because of added network delay",
        ),
        (
            "everything that crosses to the other rack got slow at the same moment, but no errors",
            "p99 response time jumped across several services at once while CPU stayed flat",
            "calls take much longer than usual, though the callee says it answered quickly",
        ),
        (
            "a saturated top-of-rack switch uplink",
            "traffic shaping applied by a misconfigured CNI policy",
            "a noisy neighbour filling the node's network bandwidth",
        ),
        (
            "Compare client-side and server-side latency for the same calls.",
            "Run a ping and mtr between the affected nodes.",
            "Check interface throughput on the nodes.",
            "Check recent network policy changes.",
        ),
        ("mtr -rwc 50 {svc}.internal", "tc qdisc show dev eth0"),
        (
            "Move the workload off the saturated node.",
            "Revert the network policy change.",
            "Rate-limit the noisy neighbour.",
        ),
        "Increase all client timeouts.",
    ),
    Fault(
        "packet_loss",
        "packet loss",
        ("service", "proxy", "queue"),
        "Retransmits",
        "connection reset by peer",
        (
            "TCP retransmissions climb and connections reset intermittently",
            "a flapping link drops packets so some requests fail at random",
        ),
        (
            "a random few percent of requests fail with resets, and retries mostly succeed",
            "connections drop now and then for no reason and it is different hosts every time",
            "intermittent errors that disappear on retry, plus the link light flickers on one node",
        ),
        ("a failing NIC on one node", "an MTU mismatch after a network change", "a flapping bond interface"),
        (
            "Check TCP retransmit counters per node.",
            "Look for interface errors and drops.",
            "Check the MTU on both ends of the path.",
            "Check the switch port logs.",
        ),
        ("netstat -s | grep -i retrans", "ip -s link show"),
        (
            "Cordon the node with the failing NIC.",
            "Fix the MTU to match the path.",
            "Replace the cable or disable the flapping bond member.",
        ),
        "Restart the networking service on every node.",
    ),
    Fault(
        "dns_failure",
        "DNS resolution failure",
        ("service", "proxy", "job"),
        "DNSErrors",
        "could not resolve host",
        ("name lookups fail with NXDOMAIN or SERVFAIL", "the resolver times out so hostnames cannot be resolved"),
        (
            "the service cannot find any other service by name, though the IPs answer fine",
            "lookups of internal hostnames fail sporadically, curl to the raw address works",
            "everything that needs a hostname broke while things using addresses kept working",
        ),
        (
            "the cluster DNS pods were overloaded by ndots search expansion",
            "the upstream resolver became unreachable",
            "a bad record pushed to the local resolver",
        ),
        (
            "Resolve the failing name from inside a pod.",
            "Check the DNS pods' error and latency metrics.",
            "Check the resolver configuration in /etc/resolv.conf.",
            "Check recent DNS record changes.",
        ),
        (
            "kubectl exec deploy/{svc} -- nslookup payment.default.svc",
            "kubectl -n kube-system logs -l k8s-app=kube-dns",
        ),
        ("Scale the DNS deployment up.", "Lower ndots or use fully qualified names.", "Revert the bad record."),
        "Hard-code IP addresses in the config.",
    ),
    Fault(
        "dependency_down",
        "dependency down",
        ("service", "job", "proxy"),
        "UpstreamDown",
        "connection refused by upstream",
        (
            "a required dependency refuses connections and calls to it fail immediately",
            "the upstream is unreachable so every request that needs it errors",
        ),
        (
            "errors started instantly and every call to one particular backend fails fast",
            "requests fail right away with refused connections, nothing slow about it",
            "one backend disappeared and everything that calls it errors",
        ),
        (
            "the dependency's only replica was evicted",
            "a third-party provider had an outage",
            "a firewall rule change blocked the port",
        ),
        (
            "Check which upstream the errors point at.",
            "Check the dependency's health endpoint and pods.",
            "Check the provider's status page for third parties.",
            "Check recent firewall or network changes.",
        ),
        ("curl -sv http://{svc}-upstream:8080/healthz", "kubectl get endpoints {svc}"),
        (
            "Restore the dependency or fail over to its standby.",
            "Enable the circuit breaker's fallback.",
            "Revert the firewall change.",
        ),
        "Retry harder by raising the retry count.",
    ),
    Fault(
        "deploy_regression",
        "deploy regression",
        ("service", "job"),
        "ErrorRateHigh",
        "unhandled exception in request handler",
        (
            "the error rate jumps right after a rollout of a new version",
            "a new release introduced a bug that fails a share of requests",
        ),
        (
            "things broke minutes after we shipped, only the new pods seem to be returning errors",
            "errors started right when the rollout began and grew as more replicas got the new build",
            "the new build fails a slice of requests and the old replicas are fine",
        ),
        (
            "a null check removed in a refactor",
            "a serialisation change incompatible with old clients",
            "a dependency upgrade that changed default timeouts",
        ),
        (
            "Compare error rates of old and new versions.",
            "Read the stack traces of the new pods.",
            "Diff the release against the previous one.",
            "Check whether a canary was skipped.",
        ),
        ("kubectl rollout history deploy/{svc}", "kubectl logs -l app={svc},version=new --since=10m"),
        ("Roll back to the previous release.", "Pause the rollout.", "Add a test for the failing path."),
        "Hotfix forward directly in production.",
    ),
    Fault(
        "config_error",
        "configuration error",
        ("service", "proxy", "job", "database"),
        "ConfigReloadFailed",
        "invalid configuration value",
        (
            "a configuration or feature flag change sets an invalid value and behaviour breaks",
            "a config push changes a setting that the service cannot work with",
        ),
        (
            "nobody deployed code but behaviour changed right after someone flipped a setting",
            "a toggle was switched in the admin panel and since then a feature misbehaves",
            "the only change was to the settings file, and now requests are rejected",
        ),
        (
            "a feature flag enabled for all users instead of one percent",
            "a typo in a timeout value (5 instead of 500)",
            "a config map updated with a wrong hostname",
        ),
        (
            "List config and feature-flag changes in the last hour.",
            "Diff the running config against git.",
            "Check the service's config reload log.",
            "Check which flag variants are served.",
        ),
        ("kubectl get configmap {svc}-config -o yaml", "git log -p -3 -- config/{svc}.yaml"),
        ("Revert the configuration change.", "Turn the flag back off.", "Add schema validation for the setting."),
        "Edit the value in place on the running pod.",
    ),
    Fault(
        "certificate_expiry",
        "TLS certificate expiry",
        ("proxy", "service", "queue", "database"),
        "CertExpiring",
        "x509: certificate has expired or is not yet valid",
        (
            "the TLS certificate expired and clients reject the handshake",
            "handshakes fail because the certificate is past its notAfter date",
        ),
        (
            "browsers and clients refuse to connect and complain about trust, nothing changed on our side",
            "all HTTPS calls started failing at midnight with handshake errors",
            "clients suddenly say the connection is not secure",
        ),
        (
            "the ACME renewal failed silently for weeks",
            "a manually installed certificate was forgotten",
            "the renewal job lost access to the DNS challenge provider",
        ),
        (
            "Check the certificate's notAfter date.",
            "Check the renewal job's logs.",
            "Check the ACME challenge records.",
            "Check that the new certificate was reloaded.",
        ),
        ("openssl s_client -connect {svc}:443 </dev/null | openssl x509 -noout -dates", "kubectl get certificate -A"),
        (
            "Renew the certificate now and reload the proxy.",
            "Fix the renewal job's credentials.",
            "Add an alert 21 days before expiry.",
        ),
        "Rotate the certificate by copying the files from the old server by hand.",
    ),
    Fault(
        "traffic_surge",
        "traffic surge",
        ("service", "proxy", "queue"),
        "RequestRateHigh",
        "rate limit exceeded",
        (
            "request volume rises far above capacity and latency and errors grow with load",
            "a spike of incoming traffic overwhelms the replicas",
        ),
        (
            "we are getting many times the normal number of requests and everything is slow",
            "a marketing email went out and since then requests queue up and some fail",
            "load is off the charts; errors track the request count",
        ),
        ("a marketing campaign without warning", "a bot scraping the catalog", "a retry storm from a client"),
        (
            "Compare request rate with capacity.",
            "Find the top clients by request count.",
            "Check autoscaler status and limits.",
            "Check for retry storms.",
        ),
        ("kubectl get hpa {svc}", 'topk(10, sum by (client) (rate(http_requests_total{{service="{svc}"}}[5m])))'),
        (
            "Scale out and raise the autoscaler maximum.",
            "Rate-limit or block the abusive client.",
            "Shed non-critical traffic.",
        ),
        "Restart the service to clear the queue.",
    ),
    Fault(
        "cpu_saturation",
        "CPU saturation",
        ("service", "database", "job", "proxy"),
        "CPUThrottled",
        "worker pool busy",
        (
            "CPU is pinned at the limit and the container is throttled",
            "processes are CPU-bound and throttling adds latency",
        ),
        (
            "the box is pegged and everything on it got slow, though request volume is normal",
            "cpu graphs are flat at the top while traffic is unchanged",
            "latency went up and the throttling counter is climbing, but we have no more load than usual",
        ),
        (
            "an expensive regex introduced in a hot path",
            "a CPU limit lowered by a resource policy",
            "a runaway background task",
        ),
        (
            "Check CPU usage against the limit and throttled periods.",
            "Profile a busy replica.",
            "Check recent changes to resource limits.",
            "Look for runaway background tasks.",
        ),
        ("kubectl top pod -l app={svc}", "curl -s localhost:6060/debug/pprof/profile?seconds=20 > cpu.out"),
        ("Raise the CPU limit or scale out.", "Revert the change that added the hot path.", "Stop the runaway task."),
        "Reboot the node.",
    ),
)

FAULT_BY_NAME = {f.name: f for f in FAULTS}

# faults an engineer confuses: the adversarial near-miss of a symptom query
CONFUSABLE: dict[str, tuple[str, ...]] = {
    "connection_pool_exhaustion": ("db_lock_contention", "dependency_down", "traffic_surge"),
    "db_lock_contention": ("connection_pool_exhaustion", "cpu_saturation", "disk_full"),
    "memory_leak": ("oom_kill", "cpu_saturation"),
    "oom_kill": ("memory_leak", "crash_loop"),
    "crash_loop": ("oom_kill", "config_error", "deploy_regression"),
    "disk_full": ("db_lock_contention", "crash_loop"),
    "network_latency": ("packet_loss", "cpu_saturation", "traffic_surge"),
    "packet_loss": ("network_latency", "dns_failure"),
    "dns_failure": ("dependency_down", "packet_loss"),
    "dependency_down": ("dns_failure", "network_latency"),
    "deploy_regression": ("config_error", "crash_loop"),
    "config_error": ("deploy_regression", "crash_loop"),
    "certificate_expiry": ("dependency_down", "config_error"),
    "traffic_surge": ("cpu_saturation", "connection_pool_exhaustion"),
    "cpu_saturation": ("traffic_surge", "memory_leak"),
}
