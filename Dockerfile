# rootward: one image for every role (serve, worker, executor, CLI).
# Multi-stage: the build stage compiles wheels into a virtualenv; the runtime
# stage copies only that virtualenv and runs as an unprivileged user.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/rootward
WORKDIR /src
# Dependencies first, so a source change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir -p src/rootward && touch src/rootward/__init__.py \
    && /opt/rootward/bin/pip install . \
    && /opt/rootward/bin/pip uninstall -y rootward
COPY src ./src
RUN /opt/rootward/bin/pip install --no-deps . \
    && /opt/rootward/bin/python -m compileall -q /opt/rootward/lib

FROM python:3.11-slim-bookworm AS runtime
LABEL org.opencontainers.image.title="rootward" \
      org.opencontainers.image.description="Self-hosted AI incident investigator for on-call teams" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 rootward \
    && useradd --system --uid 10001 --gid rootward --home-dir /var/lib/rootward --create-home rootward
COPY --from=build /opt/rootward /opt/rootward
ENV PATH=/opt/rootward/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    ROOTWARD_DATA_DIR=/var/lib/rootward \
    ROOTWARD_SERVER__HOST=0.0.0.0 \
    ROOTWARD_SERVER__PORT=8080
WORKDIR /var/lib/rootward
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"]
ENTRYPOINT ["rootward"]
CMD ["serve"]
