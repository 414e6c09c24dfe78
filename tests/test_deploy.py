"""The Kubernetes manifest in deploy/ fits the image and the server it runs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from fastapi.testclient import TestClient

from inbox_triage.server.app import build_app

ROOT = Path(__file__).resolve().parents[1]


def manifest() -> dict[str, dict]:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "kubernetes.yaml").read_text()))
    return {d["kind"]: d for d in docs}


def test_the_deployment_serves_the_images_port_and_probes_a_real_health_route():
    kinds = manifest()
    assert set(kinds) == {"Deployment", "Service", "Ingress"}
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


def test_the_service_and_ingress_reach_the_pods_with_session_affinity():
    kinds = manifest()
    labels = kinds["Deployment"]["spec"]["template"]["metadata"]["labels"]
    assert kinds["Deployment"]["spec"]["selector"]["matchLabels"] == labels
    service = kinds["Service"]
    assert service["spec"]["selector"] == labels
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    backend = kinds["Ingress"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    hash_by = kinds["Ingress"]["metadata"]["annotations"][
        "nginx.ingress.kubernetes.io/upstream-hash-by"
    ]
    assert hash_by == "$http_x_session_id"  # the header HTTP sessions are named by
    requests = kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert requests["requests"]["memory"] == "256Mi" and requests["limits"]["cpu"] == "1"
