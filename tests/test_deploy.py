"""The Kubernetes manifest in deploy/ fits the image and the server it runs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from fastapi.testclient import TestClient

from inbox_triage.server.app import build_app

ROOT = Path(__file__).resolve().parents[1]


def manifest() -> dict[str, dict]:
    """The manifest's objects by kind and name: ``Deployment``, ``Service/NAME``, ..."""
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "kubernetes.yaml").read_text()))
    return {
        d["kind"] if d["kind"] == "Deployment" else f"{d['kind']}/{d['metadata']['name']}": d
        for d in docs
    }


def test_the_deployment_serves_the_images_port_and_probes_a_real_health_route():
    kinds = manifest()
    assert set(kinds) == {
        "Deployment",
        "Service/inbox-triage-http",
        "Service/inbox-triage-ws",
        "Ingress/inbox-triage-http",
        "Ingress/inbox-triage-ws",
    }
    pod = kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    exposed = re.search(r"^EXPOSE (\d+)", (ROOT / "Dockerfile").read_text(), re.M).group(1)
    assert pod["ports"][0]["containerPort"] == int(exposed)
    env = {e["name"]: e["value"] for e in pod["env"]}
    assert env["PORT"] == exposed
    served = (ROOT / "src" / "inbox_triage" / "server" / "app.py").read_text()
    for name in env:
        assert f'"{name}"' in served, name  # a setting the server reads
    client = TestClient(build_app())
    for probe in ("readinessProbe", "livenessProbe"):
        assert client.get(pod[probe]["httpGet"]["path"]).status_code == 200


def test_http_sessions_are_hashed_to_one_pod_and_websockets_spread_over_all():
    kinds = manifest()
    pod_spec = kinds["Deployment"]["spec"]
    labels = pod_spec["template"]["metadata"]["labels"]
    assert pod_spec["selector"]["matchLabels"] == labels
    for name in ("http", "ws"):
        service = kinds[f"Service/inbox-triage-{name}"]
        assert service["spec"]["selector"] == labels
        assert service["spec"]["ports"][0]["targetPort"] == "http"
        ingress = kinds[f"Ingress/inbox-triage-{name}"]
        path = ingress["spec"]["rules"][0]["http"]["paths"][0]
        assert path["backend"]["service"]["name"] == service["metadata"]["name"]
    http = kinds["Ingress/inbox-triage-http"]["metadata"]["annotations"]
    assert http["nginx.ingress.kubernetes.io/upstream-hash-by"] == "$http_x_session_id"
    ws = kinds["Ingress/inbox-triage-ws"]
    assert ws["spec"]["rules"][0]["http"]["paths"][0]["path"] == "/ws"
    assert not any("hash" in key for key in ws["metadata"]["annotations"])  # spread, not pinned
    resources = pod_spec["template"]["spec"]["containers"][0]["resources"]
    assert resources["requests"]["memory"] == "256Mi" and resources["limits"]["cpu"] == "1"
