"""The Helm chart against a real API server, scheduler and controllers (kwok nodes; no container runs).

Every values file lints strictly, renders, and installs (every object accepted by the server's validation,
KEDA's CRDs included); the GPU inference pods land on GPU nodes only and a model asking for more GPUs than a
node has stays Pending with the scheduler's reason; every container is probed, bounded and hardened; each
consumer's ScaledObject names the topics and consumer group the service's code uses (the topic registry);
no secret value is in any manifest; the NetworkPolicies are the documented matrix; upgrade and rollback
work; the migration Job ran before the Deployments were created."""

from __future__ import annotations

import json
import secrets
import time
from datetime import datetime
from typing import Any

import pytest
import yaml
from livetab import topics

from tests.k8s.conftest import ROOT, Kube

pytestmark = [pytest.mark.k8s, pytest.mark.slow]
CHART = ROOT / "charts" / "livetab"
VALUES = {"small": [], "production": ["-f", str(CHART / "values-production.yaml")],
          "gpu": ["-f", str(CHART / "values-gpu.yaml")]}
SECRET_VALUE = "postgresql://livetab:" + secrets.token_hex(8) + "@db.invalid/livetab"
TOO_BIG = {"name": "huge-70b", "pool": "huge-70b", "model": "meta-llama/Llama-3.1-70B-Instruct", "gpus": 2,
           "nodeSelector": {"nvidia.com/gpu.present": "true"},
           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
           "shmSize": "2Gi", "resources": {"requests": {"cpu": "2", "memory": "16Gi"}, "limits": {"cpu": "4", "memory": "32Gi"}}}


def test_registry_file_is_current() -> None:
    """The chart reads topics and consumer groups from files/topics.json, which `livetab topics --chart`
    writes from the one registry: a stale copy fails here."""
    assert json.loads((CHART / "files" / "topics.json").read_text()) == json.loads(json.dumps(topics.chart_registry()))


IN_CHART = ["--set", "kafka.inChart=true", "--set", "postgres.inChart=true", "--set", "autoscaling.keda.enabled=false"]


@pytest.mark.parametrize("name", [*VALUES, "in-chart-backends"])
def test_lint_and_template(kube: Kube, name: str) -> None:
    args = VALUES.get(name, IN_CHART)
    kube.helm("lint", "--strict", str(CHART), *args)
    out = kube.helm("template", "t", str(CHART), *args, "--kube-version", "1.37.2",
                    "--api-versions", "keda.sh/v1alpha1/ScaledObject").stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    kinds = {d["kind"] for d in docs}
    assert kinds >= {"Deployment", "NetworkPolicy", "Job", "CronJob", "ConfigMap"}
    assert ("ScaledObject" in kinds) != (name == "in-chart-backends")  # KEDA off: an HPA per service instead
    assert ("StatefulSet" in kinds) == (name == "in-chart-backends")
    if name == "in-chart-backends":
        assert sum(d["kind"] == "HorizontalPodAutoscaler" for d in docs) == 6
    assert "Secret" not in {d["kind"] for d in docs}


@pytest.fixture(scope="module")
def installed(kube: Kube, tmp_path_factory: pytest.TempPathFactory) -> dict[str, float]:
    """Each values file installed in a namespace of its own (the gpu one with a third, too big, model)."""
    extra = tmp_path_factory.mktemp("values") / "third-model.yaml"
    gpu_models = yaml.safe_load((CHART / "values-gpu.yaml").read_text())["gpuModels"]
    extra.write_text(yaml.safe_dump({"gpuModels": [*gpu_models, TOO_BIG]}))
    took = {}
    for name, args in VALUES.items():
        kube.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        kube.create(f"/api/v1/namespaces/{name}/secrets",
                    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "livetab-postgres"},
                     "stringData": {"url": SECRET_VALUE}})
        t0 = time.monotonic()
        more = ["-f", str(extra)] if name == "gpu" else ["--wait"]  # the too-big model never gets ready
        kube.helm("install", "lt", str(CHART), "-n", name, *args, *more, "--timeout", "4m")
        took[name] = time.monotonic() - t0
    print("helm install seconds:", {k: round(v, 1) for k, v in took.items()})
    return took


def _deployments(kube: Kube, ns: str) -> list[dict[str, Any]]:
    return kube.items(f"/apis/apps/v1/namespaces/{ns}/deployments")


def _pods(kube: Kube, ns: str) -> list[dict[str, Any]]:
    return kube.items(f"/api/v1/namespaces/{ns}/pods")


def test_every_deployment_becomes_available(kube: Kube, installed: dict[str, float]) -> None:
    for ns in ("small", "production"):
        deps = _deployments(kube, ns)
        services = {d["metadata"]["labels"]["app.kubernetes.io/component"] for d in deps}
        assert services - {"otel-collector"} == set(topics.SERVICES), services
        assert ("otel-collector" in services) == (ns == "production")  # the collector where the values enable it
        for d in deps:
            assert d["status"].get("availableReplicas") == d["spec"]["replicas"], d["metadata"]["name"]


def test_gpu_pods_only_on_gpu_nodes_and_the_too_big_model_pending(kube: Kube, installed: dict[str, float]) -> None:
    deadline = time.monotonic() + 90
    while True:
        pods = _pods(kube, "gpu")
        gpu_pods = {p["metadata"]["labels"].get("livetab.io/gpu-pool"): p for p in pods
                    if "livetab.io/gpu-pool" in p["metadata"]["labels"]}
        placed = {pool: p["spec"].get("nodeName") for pool, p in gpu_pods.items()}
        # the too-big model's pod is done with only once the scheduler has tried it (its PodScheduled condition)
        tried = any(c["type"] == "PodScheduled" for c in gpu_pods.get("huge-70b", {}).get("status", {}).get(
            "conditions", []))
        if len(gpu_pods) == 3 and placed.get("qwen-7b") and placed.get("llama-8b") and tried:
            break
        assert time.monotonic() < deadline, placed
        time.sleep(1)
    assert {placed["qwen-7b"], placed["llama-8b"]} == {"gpu-1", "gpu-2"}
    assert not placed.get("huge-70b")
    huge = gpu_pods["huge-70b"]
    cond = next(c for c in huge["status"].get("conditions", []) if c["type"] == "PodScheduled")
    assert cond["status"] == "False" and cond["reason"] == "Unschedulable"
    assert "Insufficient nvidia.com/gpu" in cond["message"], cond["message"]
    for p in pods:  # CPU services never ask for a GPU, and never land on a GPU node
        if "livetab.io/gpu-pool" in p["metadata"]["labels"]:
            continue
        for c in p["spec"]["containers"]:
            for kind in ("requests", "limits"):
                assert "nvidia.com/gpu" not in c["resources"].get(kind, {}), p["metadata"]["name"]
        assert p["spec"].get("nodeName") in (None, "cpu-1", "cpu-2"), p["metadata"]["name"]


def _pod_specs(kube: Kube, ns: str) -> list[tuple[str, dict[str, Any]]]:
    specs = [(d["metadata"]["name"], d["spec"]["template"]["spec"]) for d in _deployments(kube, ns)]
    specs += [(c["metadata"]["name"], c["spec"]["jobTemplate"]["spec"]["template"]["spec"])
              for c in kube.items(f"/apis/batch/v1/namespaces/{ns}/cronjobs")]
    specs += [(j["metadata"]["name"], j["spec"]["template"]["spec"]) for j in kube.items(f"/apis/batch/v1/namespaces/{ns}/jobs")]
    return specs


@pytest.mark.parametrize("ns", list(VALUES))
def test_every_container_is_probed_bounded_and_hardened(kube: Kube, installed: dict[str, float], ns: str) -> None:
    specs = _pod_specs(kube, ns)
    assert len(specs) >= 9  # six services (+ GPU pools), the cycle, the migration and topics jobs
    for name, spec in specs:
        pod_sc = spec.get("securityContext", {})
        assert pod_sc.get("runAsNonRoot") is True and pod_sc.get("seccompProfile", {}).get("type") == "RuntimeDefault"
        assert spec.get("automountServiceAccountToken") is False, name
        long_running = not name.endswith(("-migrate", "-topics", "-cycle"))
        for c in spec["containers"]:
            sc = c.get("securityContext", {})
            assert sc.get("readOnlyRootFilesystem") is True, (name, c["name"])
            assert sc.get("allowPrivilegeEscalation") is False, (name, c["name"])
            assert sc.get("capabilities", {}).get("drop") == ["ALL"], (name, c["name"])
            assert sc.get("runAsNonRoot") is True, (name, c["name"])
            assert c["resources"].get("requests") and c["resources"].get("limits"), (name, c["name"])
            if long_running:
                assert c.get("livenessProbe") and c.get("readinessProbe"), (name, c["name"])


@pytest.mark.parametrize("ns", list(VALUES))
def test_scaled_objects_read_the_topic_registry(kube: Kube, installed: dict[str, float], ns: str) -> None:
    """One ScaledObject per consumer, whose triggers are exactly the (topic, consumer group) pairs the
    service's workers use: taken here from livetab.topics, the same code the services run."""
    scaled = {s["spec"]["scaleTargetRef"]["name"]: s for s in kube.items(f"/apis/keda.sh/v1alpha1/namespaces/{ns}/scaledobjects")}
    for svc in topics.SERVICES:
        want = {(t.name, topics.consumer_group(svc, t.group)) for t in topics.consumed_by(svc)}
        so = scaled[f"lt-livetab-{svc}"]
        got = {(t["metadata"]["topic"], t["metadata"]["consumerGroup"]) for t in so["spec"]["triggers"]}
        assert got == want, svc
    if ns == "gpu":
        for pool, name in (("qwen-7b", "qwen2-5-7b"), ("llama-8b", "llama-3-1-8b")):
            so = scaled[f"lt-livetab-gpu-{name}"]
            assert so["spec"]["minReplicaCount"] == 0  # GPU pools scale to zero when idle
            (trigger,) = so["spec"]["triggers"]
            assert (trigger["metadata"]["topic"], trigger["metadata"]["consumerGroup"]) == (
                topics.requests_topic(pool), topics.consumer_group("inference", pool))


@pytest.mark.parametrize("ns", list(VALUES))
def test_no_secret_value_in_any_manifest(kube: Kube, installed: dict[str, float], ns: str) -> None:
    manifest = kube.helm("get", "manifest", "lt", "-n", ns).stdout + kube.helm("get", "hooks", "lt", "-n", ns).stdout
    assert SECRET_VALUE not in manifest and "postgresql://" not in manifest
    assert "kind: Secret" not in manifest
    for _, spec in _pod_specs(kube, ns):
        for c in spec["containers"]:
            env = {e["name"]: e for e in c.get("env", [])}
            if "LIVETAB_STORE__URL" in env:
                assert "value" not in env["LIVETAB_STORE__URL"] and env["LIVETAB_STORE__URL"]["valueFrom"]["secretKeyRef"]


def test_network_policy_matrix(kube: Kube, installed: dict[str, float]) -> None:
    pols = {p["metadata"]["name"].removeprefix("lt-livetab-"): p["spec"]
            for p in kube.items("/apis/networking.k8s.io/v1/namespaces/production/networkpolicies")}
    assert set(pols) == {"default-deny", "api-ingress", "egress-internet"}
    deny = pols["default-deny"]
    assert set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert deny["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "livetab", "app.kubernetes.io/instance": "lt"}
    # from outside, only the api's port: the one ingress rule without `from`
    open_rules = [(n, r) for n, p in pols.items() for r in p.get("ingress", []) if not r.get("from")]
    assert [n for n, _ in open_rules] == ["api-ingress"]
    assert pols["api-ingress"]["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "api"
    assert open_rules[0][1]["ports"] == [{"port": 8080, "protocol": "TCP"}]
    # internet egress only for pods labelled so, never to cluster-internal ranges
    internet = pols["egress-internet"]
    assert internet["podSelector"]["matchLabels"]["livetab.io/egress-internet"] == "true"
    block = internet["egress"][0]["to"][0]["ipBlock"]
    assert block["cidr"] == "0.0.0.0/0" and {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} <= set(block["except"])
    labelled = {d["metadata"]["name"].removeprefix("lt-livetab-") for d in _deployments(kube, "production")
                if d["spec"]["template"]["metadata"]["labels"].get("livetab.io/egress-internet") == "true"}
    assert labelled == {"scraper", "inference"}


def test_migration_job_ran_before_the_deployments(kube: Kube, installed: dict[str, float]) -> None:
    jobs = {j["metadata"]["name"]: j for j in kube.items("/apis/batch/v1/namespaces/small/jobs")}
    migrate = jobs["lt-livetab-migrate"]
    assert migrate["status"].get("succeeded") == 1
    done = datetime.fromisoformat(migrate["status"]["completionTime"].replace("Z", "+00:00"))
    created = [datetime.fromisoformat(d["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
               for d in _deployments(kube, "small")]
    assert done <= min(created)
    assert migrate["spec"]["template"]["spec"]["containers"][0]["args"][:4] == ["python", "-m", "livetab.store", "upgrade"]


def test_upgrade_and_rollback(kube: Kube, installed: dict[str, float]) -> None:
    def judge_replicas() -> int:
        return int(kube.get("/apis/apps/v1/namespaces/small/deployments/lt-livetab-judge")["spec"]["replicas"])

    assert judge_replicas() == 1
    kube.helm("upgrade", "lt", str(CHART), "-n", "small", "--set", "services.judge.replicas=2", "--wait", "--timeout", "3m")
    assert judge_replicas() == 2
    kube.helm("rollback", "lt", "1", "-n", "small", "--wait", "--timeout", "3m")
    assert judge_replicas() == 1
    history = kube.helm("history", "lt", "-n", "small", "-o", "json").stdout
    assert [h["status"] for h in json.loads(history)][-1] == "deployed" and len(json.loads(history)) == 3
