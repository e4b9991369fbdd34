# Sussurro in a container: the embedded default (one process, SQLite), its data on a volume.
#   docker compose up -d             (compose.yaml: host networking, the volume, optional coturn)
#   docker build -t sussurro . && docker run --network host -v sussurro-data:/data sussurro
# WebRTC needs UDP on ephemeral ports: docs/deploy.md explains why host networking.

# The one compiled part, server/media/_fastrtp.c (RTP out and mic packets in, server/media/fastrtp.py), is built
# into a wheel here, where a compiler is; the image itself has none.
FROM python:3.11-slim-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY game ./game
COPY audio ./audio
COPY server ./server
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
    && python -c "import zipfile, glob; w, = glob.glob('/wheels/*.whl'); assert any(n.startswith('server/_fastrtp') for n in zipfile.ZipFile(w).namelist()), 'server.media._fastrtp not built'"

FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Every dependency comes as a wheel (aiortc, av, numpy, scipy, soundfile bundle their
# libraries), and Sussurro's own from the build stage: no compiler, no system package.
COPY --from=build /wheels /wheels
COPY pyproject.toml setup.py README.md ./
COPY game ./game
COPY audio ./audio
COPY server ./server
COPY web ./web
COPY scripts/offline_assets.py ./scripts/
# The one-phone page's offline files: Pyodide from the npm registry (pinned, sha512
# checked) and the core archive, built into /app/offline-build.
RUN pip install --no-cache-dir /wheels/*.whl \
    && rm -rf /wheels \
    && python scripts/offline_assets.py \
    && groupadd --system --gid 10001 sussurro \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home sussurro \
    && mkdir -p /data \
    && chown 10001:10001 /data

USER 10001:10001
# No SUSSURRO_HOST: `sussurro serve` is then the evening's server (every interface, HTTPS
# with a certificate kept on the volume, the join address printed); set one (e.g.
# 127.0.0.1 behind a reverse proxy) for plain http there.
ENV SUSSURRO_PORT=8000 \
    SUSSURRO_DB=/data/sussurro.db \
    SUSSURRO_WEB_DIR=/app/web \
    SUSSURRO_OFFLINE_DIR=/app/offline-build
VOLUME ["/data"]
EXPOSE 8000
# /healthz answers over plain http in every mode (HTTPS on the LAN too: one port, both).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('SUSSURRO_PORT', '8000'), timeout=3)"]
CMD ["sussurro", "serve"]
