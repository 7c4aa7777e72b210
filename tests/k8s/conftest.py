"""A real Kubernetes control plane for the chart tests (deploy/k8s/cluster.sh: etcd, kube-apiserver,
controller-manager, scheduler, kwok), KEDA's CRDs installed, and kwok nodes: two CPU nodes and two GPU nodes
with one `nvidia.com/gpu` each (labelled and tainted as GPU nodes are)."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("LIVETAB_CACHE", Path.home() / ".cache" / "livetab")) / "k8s"


class Kube:
    """A small client over the API server's REST interface (client-certificate auth), and helm."""

    def __init__(self, kubeconfig: Path) -> None:
        cfg = yaml.safe_load(kubeconfig.read_text())
        self.kubeconfig = kubeconfig
        self.server = cfg["clusters"][0]["cluster"]["server"]
        user = cfg["users"][0]["user"]
        tls = ssl.create_default_context(cafile=cfg["clusters"][0]["cluster"]["certificate-authority"])
        tls.load_cert_chain(user["client-certificate"], user["client-key"])
        self.http = httpx.Client(base_url=self.server, verify=tls, timeout=30)
        self.helm_bin = str(CACHE / "helm" / "node_modules" / ".bin" / "helm")

    def get(self, path: str) -> Any:
        r = self.http.get(path)
        r.raise_for_status()
        return r.json()

    def items(self, path: str) -> list[dict[str, Any]]:
        return list(self.get(path)["items"])

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post(path, json=body)
        if r.status_code == 409:
            return {}
        assert r.status_code < 300, r.text
        return dict(r.json())

    def helm(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig), "HELM_CACHE_HOME": str(CACHE / "helm-cache"),
               "HELM_CONFIG_HOME": str(CACHE / "helm-config"), "HELM_DATA_HOME": str(CACHE / "helm-data")}
        done = subprocess.run([self.helm_bin, *args], env=env, capture_output=True, text=True, timeout=timeout)
        if check:
            assert done.returncode == 0, f"helm {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done


def _node(name: str, gpus: int) -> dict[str, Any]:
    capacity = {"cpu": "32", "memory": "256Gi", "pods": "110"} | ({"nvidia.com/gpu": str(gpus)} if gpus else {})
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "type": "kwok"}
    if gpus:
        labels["nvidia.com/gpu.present"] = "true"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}] if gpus else []},
            "status": {"capacity": capacity, "allocatable": capacity}}


@pytest.fixture(scope="session")
def kube(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    state = tmp_path_factory.mktemp("k8s")
    t0 = time.monotonic()
    up = subprocess.run([str(ROOT / "deploy" / "k8s" / "cluster.sh"), "up", str(state)], cwd=ROOT,
                        capture_output=True, text=True, timeout=3600)
    assert up.returncode == 0, up.stderr[-3000:]
    kube = Kube(Path(up.stdout.strip().splitlines()[-1]))
    try:
        crds = sorted(CACHE.glob("keda-crds-*/*.yaml"))
        assert crds, "KEDA CRDs missing (deploy/k8s/build.sh)"
        for f in crds:
            for doc in yaml.safe_load_all(f.read_text()):
                if doc:
                    kube.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", doc)
        for name, gpus in (("cpu-1", 0), ("cpu-2", 0), ("gpu-1", 1), ("gpu-2", 1)):
            kube.create("/api/v1/nodes", _node(name, gpus))
        deadline = time.monotonic() + 60
        while True:  # kwok marks the nodes Ready; the CRDs become served
            ready = [n for n in kube.items("/api/v1/nodes")
                     if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions", []))]
            served = kube.http.get("/apis/keda.sh/v1alpha1").status_code == 200
            if len(ready) == 4 and served:
                break
            assert time.monotonic() < deadline, f"nodes ready {len(ready)}/4, KEDA served {served}"
            time.sleep(0.5)
        print(f"\ncontrol plane up with 4 kwok nodes and KEDA CRDs in {time.monotonic() - t0:.1f}s")
        yield kube
    finally:
        subprocess.run([str(ROOT / "deploy" / "k8s" / "cluster.sh"), "down", str(state)], cwd=ROOT, timeout=120)


def json_dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)
