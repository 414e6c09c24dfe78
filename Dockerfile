# inbox-triage: the OpenEnv server, installed from uv.lock.
#   docker build -t inbox-triage .
#   docker run --rm -p 8000:8000 inbox-triage          # OpenEnv's port (openenv validate runs it so)
#   docker run --rm -e PORT=7860 -p 7860:7860 inbox-triage
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_PYTHON=/usr/local/bin/python3.11 \
    UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_NO_CACHE=1

RUN pip install --no-cache-dir uv==0.13.9

# Spaces run containers as uid 1000; so does this image.
RUN useradd --create-home --uid 1000 app
WORKDIR /app

# Dependencies first, from the lock alone, so that code changes reuse this layer.
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project

# Then the project itself (README.md is its package readme), installed non-editable.
COPY README.md ./
COPY src/ ./src/
RUN uv sync --frozen --no-dev --no-editable

ENV PATH="/app/.venv/bin:${PATH}" \
    PORT=8000

USER app
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PORT', '8000'), timeout=4)"]

# The `server` script (inbox_triage.server.app:main) listens on 0.0.0.0:$PORT.
CMD ["server"]
