#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for the chart tests: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and kwok (fake nodes whose pods "run" without containers), from the binaries deploy/k8s/build.sh
# made. No kubelet, so no container runs; the scheduler, the controllers and the API server's validation are real.
#
#   deploy/k8s/cluster.sh up STATE_DIR     # prints the kubeconfig path; about 5 s
#   deploy/k8s/cluster.sh down STATE_DIR   # stops everything (reverse order), keeps nothing running
set -euo pipefail
action=${1:?up|down}; state=$(realpath -m "${2:?state dir}")
bin=$(deploy/k8s/build.sh)
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

stop() {
  for p in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
    if [ -f "$state/$p.pid" ]; then
      pid=$(cat "$state/$p.pid"); kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true; rm -f "$state/$p.pid"
    fi
  done
}

if [ "$action" = down ]; then stop; exit 0; fi
[ "$action" = up ] || { echo "usage: $0 up|down STATE_DIR" >&2; exit 2; }
stop
mkdir -p "$state/pki" "$state/etcd"; cd "$state/pki"
if [ ! -f admin.crt ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj /CN=livetab-test-ca 2>/dev/null
  cat > api.ext <<EXT
subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth
EXT
  openssl req -newkey rsa:2048 -nodes -keyout api.key -out api.csr -subj /CN=kube-apiserver 2>/dev/null
  openssl x509 -req -in api.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out api.crt -days 30 -extfile api.ext 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > client.ext
  openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
  openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 30 -extfile client.ext 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null; openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
fi
cd "$state"
etcd_port=$(free_port); peer_port=$(free_port); api_port=$(free_port)
"$bin/etcd" --data-dir "$state/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" --initial-cluster "default=http://127.0.0.1:$peer_port" \
  --unsafe-no-fsync --log-level error > etcd.log 2>&1 & echo $! > etcd.pid
"$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
  --secure-port "$api_port" --endpoint-reconciler-type none --client-ca-file pki/ca.crt --tls-cert-file pki/api.crt \
  --tls-private-key-file pki/api.key --service-account-issuer https://kubernetes.default.svc \
  --service-account-key-file pki/sa.pub --service-account-signing-key-file pki/sa.key \
  --service-cluster-ip-range 10.96.0.0/16 --authorization-mode RBAC,Node --allow-privileged=false \
  > apiserver.log 2>&1 & echo $! > kube-apiserver.pid
cat > kubeconfig <<KC
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "https://127.0.0.1:$api_port", certificate-authority: "$state/pki/ca.crt"}}]
users: [{name: admin, user: {client-certificate: "$state/pki/admin.crt", client-key: "$state/pki/admin.key"}}]
contexts: [{name: test, context: {cluster: test, user: admin, namespace: default}}]
current-context: test
KC
chmod 600 kubeconfig
for _ in $(seq 300); do
  curl -sk --cert pki/admin.crt --key pki/admin.key "https://127.0.0.1:$api_port/readyz" 2>/dev/null | grep -q '^ok' && break
  kill -0 "$(cat kube-apiserver.pid)" 2>/dev/null || { tail -20 apiserver.log >&2; exit 1; }
  sleep 0.2
done
"$bin/kube-controller-manager" --kubeconfig kubeconfig --authentication-kubeconfig kubeconfig \
  --authorization-kubeconfig kubeconfig --leader-elect=false --bind-address 127.0.0.1 --secure-port "$(free_port)" \
  --service-account-private-key-file pki/sa.key --root-ca-file pki/ca.crt --use-service-account-credentials \
  --controllers '*,-node-ipam-controller' \
  > controller-manager.log 2>&1 & echo $! > kube-controller-manager.pid
"$bin/kube-scheduler" --kubeconfig kubeconfig --authentication-kubeconfig kubeconfig --authorization-kubeconfig kubeconfig \
  --leader-elect=false --bind-address 127.0.0.1 --secure-port "$(free_port)" > scheduler.log 2>&1 & echo $! > kube-scheduler.pid
# kwok's stage definitions (node ready + lease heartbeat, pods through create/ready/complete/delete) from its module
stages=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json sigs.k8s.io/kwok@v0.8.0 | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])')/kustomize/stage
: > kwok-stages.yaml
for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml pod/general/pod-create.yaml \
         pod/general/pod-ready.yaml pod/general/pod-complete.yaml pod/general/pod-delete.yaml \
         pod/general/pod-init-container-running.yaml pod/general/pod-init-container-completed.yaml; do
  { echo "---"; cat "$stages/$f"; } >> kwok-stages.yaml
done
"$bin/kwok" --kubeconfig kubeconfig --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake --cidr 10.244.0.0/16 --node-ip 10.0.0.1 \
  --node-lease-duration-seconds 40 \
  --server-address "127.0.0.1:$(free_port)" --config kwok-stages.yaml > kwok.log 2>&1 & echo $! > kwok.pid
echo "$state/kubeconfig"
