#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft) for tests and local use, built from the Apache Kafka artifacts on
# Maven Central (version pinned in deploy/kafka/pom.xml) and run with the machine's Java 17.
#
#   deploy/kafka.sh up   [STATE_DIR]   start a broker on a free loopback port; prints its bootstrap address
#   deploy/kafka.sh down [STATE_DIR]   stop it
#   deploy/kafka.sh classpath          resolve (and cache) the broker's classpath only
#
# STATE_DIR defaults to .state/kafka; it holds the log dirs, server.properties, pid, port and log file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cmd=${1:-up}
state=${2:-$root/.state/kafka}
cache=${LIVETAB_CACHE:-$HOME/.cache/livetab}
mkdir -p "$cache"
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/kafka/pom.xml")
cpfile="$cache/kafka-$version.classpath"

classpath() {
  if [ ! -s "$cpfile" ]; then
    command -v mvn >/dev/null || { echo "kafka.sh: mvn not found (install Maven)" >&2; exit 1; }
    command -v java >/dev/null || { echo "kafka.sh: java not found (install a Java 17 runtime)" >&2; exit 1; }
    echo "kafka.sh: resolving Apache Kafka $version from Maven Central (once)..." >&2
    mvn -q -B -f "$here/kafka/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cpfile.tmp" >&2
    mv "$cpfile.tmp" "$cpfile"
  fi
  cat "$cpfile"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

up() {
  local cp port cport
  cp=$(classpath)
  if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null; then
    echo "127.0.0.1:$(cat "$state/port")"; return 0
  fi
  # A free port is only free until someone else binds it (another broker or server starting at the same
  # moment on a busy CI machine), so a start that fails is tried again on fresh ports, up to three times.
  local attempt
  for attempt in 1 2 3; do
    if start_once; then return 0; fi
    echo "kafka.sh: start attempt $attempt failed; see $state/broker.log" >&2
    [ -f "$state/pid" ] && kill -9 "$(cat "$state/pid")" 2>/dev/null || true
    cp "$state/broker.log" "$state.attempt$attempt.log" 2>/dev/null || true
  done
  echo "kafka.sh: the broker did not start in three attempts" >&2; exit 1
}

start_once() {
  rm -rf "$state"; mkdir -p "$state/data"
  port=$(free_port); cport=$(free_port)
  while [ "$cport" = "$port" ]; do cport=$(free_port); done
  cat > "$state/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$state/data
num.partitions=3
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.flush.interval.messages=9223372036854775807
PROPS
  local heap="-Xms256m -Xmx512m"
  java $heap -cp "$cp" kafka.tools.StorageTool format -t "$(python3 -c 'import uuid,base64;print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')" \
       -c "$state/server.properties" > "$state/format.log" 2>&1 \
    || { cat "$state/format.log" >&2; echo "kafka.sh: storage format failed" >&2; return 1; }
  nohup java $heap -XX:+UseG1GC -Djava.awt.headless=true -cp "$cp" kafka.Kafka "$state/server.properties" \
       > "$state/broker.log" 2>&1 &
  echo $! > "$state/pid"; echo "$port" > "$state/port"
  for _ in $(seq 1 240); do
    if ! kill -0 "$(cat "$state/pid")" 2>/dev/null; then
      tail -30 "$state/broker.log" >&2; echo "kafka.sh: broker exited during start-up" >&2; return 1
    fi
    if grep -q "Kafka Server started\|\[KafkaRaftServer nodeId=1\] Kafka Server started" "$state/broker.log" 2>/dev/null; then
      echo "127.0.0.1:$port"; return 0
    fi
    sleep 0.5
  done
  tail -30 "$state/broker.log" >&2; echo "kafka.sh: broker did not start within 120 s" >&2; return 1
}

down() {
  if [ -f "$state/pid" ]; then
    local pid; pid=$(cat "$state/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$state/pid"
  fi
}

case "$cmd" in
  up) up ;;
  down) down ;;
  classpath) classpath ;;
  *) echo "usage: deploy/kafka.sh up|down|classpath [STATE_DIR]" >&2; exit 2 ;;
esac
