#!/usr/bin/env bash
# The real servers the tests use, on 127.0.0.1, owned by this project (own ports, data and logs):
#   MariaDB (Debian's mariadb-server)   port $MCRAWL_MYSQL_PORT (3307)  user mcrawl/mcrawl, db mcrawl_test
#   Redis   (Debian's redis-server)     port $MCRAWL_REDIS_PORT (6380)  appendonly: survives restarts
#   Elasticsearch 8.x (Maven Central)   port $MCRAWL_ES_PORT    (9201)  one JVM, security off
#
#   bash deploy/services.sh start [NAME...]     install what is missing, start what is not running
#   bash deploy/services.sh stop [NAME...]      stop (all three by default)
#   bash deploy/services.sh restart NAME...     stop then start (fault tests restart redis mid-run)
#   bash deploy/services.sh status              one line per server; exit 1 if any is down
# NAME is mysql, redis or es. `start` is idempotent: a server that already answers is reused.
# After start, deploy/services.env holds the URLs (export MCRAWL_TEST_{MYSQL,REDIS,ES}_URL=...).
# Data and logs live in $MCRAWL_SERVICES_DIR (default /var/lib/mcrawl-test as root); a second set
# (other ports, MCRAWL_*_PORT) can run beside it with its own dir and MCRAWL_SERVICES_ENV. Servers run
# in their own session (setsid) so they outlive this script and the CI step that called it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ES_PROJECT=$ROOT/deploy/elasticsearch
ENV_FILE=${MCRAWL_SERVICES_ENV:-$ROOT/deploy/services.env}

if [ "$(id -u)" = 0 ]; then
    SERVICES_DIR=${MCRAWL_SERVICES_DIR:-/var/lib/mcrawl-test}
else
    SERVICES_DIR=${MCRAWL_SERVICES_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/mcrawl-test}
fi
MYSQL_PORT=${MCRAWL_MYSQL_PORT:-3307}
REDIS_PORT=${MCRAWL_REDIS_PORT:-6380}
ES_PORT=${MCRAWL_ES_PORT:-9201}
ES_TRANSPORT_PORT=${MCRAWL_ES_TRANSPORT_PORT:-9301}
ES_HEAP=${MCRAWL_ES_HEAP:-1g}
START_TIMEOUT=${MCRAWL_START_TIMEOUT:-180}

LOGS=$SERVICES_DIR/logs
MYSQL_DIR=$SERVICES_DIR/mariadb
MYSQL_SOCKET=$MYSQL_DIR/mysqld.sock
MYSQL_PID=$MYSQL_DIR/mysqld.pid  # written by mariadbd itself (it runs as the mysql user)
REDIS_DIR=$SERVICES_DIR/redis
REDIS_PID=$REDIS_DIR/redis.pid
ES_DIR=$SERVICES_DIR/elasticsearch
ES_PID=$ES_DIR/es.pid

ALL_SERVICES=(mysql redis es)

say() { echo "services: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# A start failure shows the server's own words, not just "timed out".
fail_with_log() {
    local what=$1 log=$2
    say "ERROR: $what"
    if [ -f "$log" ]; then
        say "last lines of $log:"
        tail -n 40 "$log" >&2
    fi
    exit 1
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Waits until `$2...` succeeds or the server process ($1 = pid file) dies or time runs out.
wait_until() {
    local pidfile=$1; shift
    local deadline=$((SECONDS + START_TIMEOUT))
    while [ $SECONDS -lt $deadline ]; do
        if "$@" >/dev/null 2>&1; then return 0; fi
        if [ -f "$pidfile" ] && ! pid_alive "$pidfile"; then return 1; fi
        sleep 0.5
    done
    return 1
}

stop_pid() {
    local pidfile=$1 name=$2 pid
    if ! pid_alive "$pidfile"; then
        [ -f "$pidfile" ] && say "$name stopped"
        rm -f "$pidfile"
        return 0
    fi
    pid=$(cat "$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 120); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; say "$name stopped"; return 0; }
        sleep 0.5
    done
    say "$name (pid $pid) did not stop in 60 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}

# ---------------------------------------------------------------- installation (idempotent)
APT_UPDATED=
apt_install() {
    [ "$(id -u)" = 0 ] || die "missing packages ($*): run as root, or install them: apt-get install $*"
    command -v apt-get >/dev/null || die "missing packages ($*) and no apt-get on this machine"
    if [ -z "$APT_UPDATED" ]; then
        say "apt-get update"
        apt-get update -q >"$LOGS/apt.log" 2>&1 || fail_with_log "apt-get update failed" "$LOGS/apt.log"
        APT_UPDATED=1
    fi
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >>"$LOGS/apt.log" 2>&1 \
        || fail_with_log "apt-get install $* failed" "$LOGS/apt.log"
}

ensure_packages() {
    local need=() svc
    for svc in "$@"; do
        case $svc in
            mysql) command -v mariadbd >/dev/null || need+=(mariadb-server mariadb-client) ;;
            redis) command -v redis-server >/dev/null || need+=(redis-server) ;;
            es)
                command -v java >/dev/null || need+=(openjdk-17-jre-headless)
                command -v mvn >/dev/null || need+=(maven)
                ;;
        esac
    done
    command -v curl >/dev/null || need+=(curl)
    if [ ${#need[@]} -gt 0 ]; then apt_install "${need[@]}"; fi
}

# ---------------------------------------------------------------- MariaDB
mysql_client() { mariadb --no-defaults --socket="$MYSQL_SOCKET" -uroot "$@"; }
mysql_ping() { mariadb-admin --no-defaults --socket="$MYSQL_SOCKET" -uroot --connect-timeout=2 ping; }

mysql_run_user() { if [ "$(id -u)" = 0 ]; then echo mysql; else id -un; fi; }

start_mysql() {
    if pid_alive "$MYSQL_PID"; then
        wait_until "$MYSQL_PID" mysql_ping || fail_with_log "MariaDB (pid $(cat "$MYSQL_PID")) runs but does not answer" "$MYSQL_DIR/mariadb.log"
        say "mysql already running on 127.0.0.1:$MYSQL_PORT (reused)"
    else
        port_open "$MYSQL_PORT" && die "port $MYSQL_PORT is taken by another program (set MCRAWL_MYSQL_PORT)"
        local user
        user=$(mysql_run_user)
        mkdir -p "$MYSQL_DIR/data"
        [ "$(id -u)" = 0 ] && chown -R "$user:" "$MYSQL_DIR"
        if [ ! -d "$MYSQL_DIR/data/mysql" ]; then
            say "initialising MariaDB data directory $MYSQL_DIR/data"
            mariadb-install-db --no-defaults --user="$user" --datadir="$MYSQL_DIR/data" \
                --auth-root-authentication-method=socket --skip-test-db >"$LOGS/mariadb-install.log" 2>&1 \
                || fail_with_log "mariadb-install-db failed" "$LOGS/mariadb-install.log"
        fi
        say "starting MariaDB on 127.0.0.1:$MYSQL_PORT"
        setsid nohup mariadbd --no-defaults --user="$user" --datadir="$MYSQL_DIR/data" \
            --bind-address=127.0.0.1 --port="$MYSQL_PORT" --socket="$MYSQL_SOCKET" --pid-file="$MYSQL_PID" \
            --log-error="$MYSQL_DIR/mariadb.log" --skip-name-resolve \
            --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
            --innodb-buffer-pool-size=256M --max-connections=500 \
            </dev/null >>"$LOGS/mariadb-stdout.log" 2>&1 9>&- &
        # mariadbd writes its pid file itself once up; until then wait on the launched pid.
        echo $! >"$MYSQL_PID.launch"
        wait_until "$MYSQL_PID.launch" mysql_ping || fail_with_log "MariaDB did not start" "$MYSQL_DIR/mariadb.log"
        rm -f "$MYSQL_PID.launch"
    fi
    # Account and database every time: cheap, and repairs a half-finished first start.
    mysql_client <<'SQL' || die "could not create the mcrawl user/database"
CREATE USER IF NOT EXISTS 'mcrawl'@'%' IDENTIFIED BY 'mcrawl';
CREATE USER IF NOT EXISTS 'mcrawl'@'localhost' IDENTIFIED BY 'mcrawl';
CREATE DATABASE IF NOT EXISTS mcrawl_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
GRANT ALL PRIVILEGES ON `mcrawl%`.* TO 'mcrawl'@'%';
GRANT ALL PRIVILEGES ON `mcrawl%`.* TO 'mcrawl'@'localhost';
FLUSH PRIVILEGES;
SQL
}

stop_mysql() { stop_pid "$MYSQL_PID" mysql; }

# ---------------------------------------------------------------- Redis
redis_ping() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

start_redis() {
    if pid_alive "$REDIS_PID"; then
        wait_until "$REDIS_PID" redis_ping || fail_with_log "Redis (pid $(cat "$REDIS_PID")) runs but does not answer" "$LOGS/redis.log"
        say "redis already running on 127.0.0.1:$REDIS_PORT (reused)"
        return 0
    fi
    port_open "$REDIS_PORT" && die "port $REDIS_PORT is taken by another program (set MCRAWL_REDIS_PORT)"
    mkdir -p "$REDIS_DIR"
    # appendonly: queued jobs must survive a restart (a fault test restarts Redis mid-run);
    # everysec keeps the Bloom-filter benchmark fast, and a clean shutdown fsyncs the rest.
    cat >"$REDIS_DIR/redis.conf" <<EOF
bind 127.0.0.1
port $REDIS_PORT
dir $REDIS_DIR
pidfile $REDIS_PID
logfile $LOGS/redis.log
daemonize no
appendonly yes
appendfsync everysec
save ""
EOF
    say "starting Redis on 127.0.0.1:$REDIS_PORT"
    setsid nohup redis-server "$REDIS_DIR/redis.conf" </dev/null >>"$LOGS/redis.log" 2>&1 9>&- &
    echo $! >"$REDIS_PID"
    wait_until "$REDIS_PID" redis_ping || fail_with_log "Redis did not start" "$LOGS/redis.log"
}

stop_redis() {
    # SHUTDOWN flushes the append-only file before exiting; TERM is the fallback.
    if pid_alive "$REDIS_PID"; then
        redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown >/dev/null 2>&1 || true
        say "redis stopped"
    fi
    stop_pid "$REDIS_PID" redis
}

# ---------------------------------------------------------------- Elasticsearch
es_ping() { curl -sf "http://127.0.0.1:$ES_PORT/_cluster/health?wait_for_status=yellow&timeout=2s" >/dev/null; }

# Builds deploy/elasticsearch (server jars + modules from Maven Central, cached in ~/.m2) into a
# folder named by the hash of its sources, so a running node never has its jars swapped under it.
es_dist() {
    local hash dist
    hash=$(cd "$ES_PROJECT" && find pom.xml src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
    dist=$ES_DIR/dist-$hash
    if [ ! -f "$dist/.complete" ]; then
        say "building the Elasticsearch node from Maven Central jars (first time: a minute or two)"
        # From a clean target/: jars of an earlier version left in target/lib would clash.
        rm -rf "$ES_PROJECT/target"
        (cd "$ES_PROJECT" && mvn -q -B package) >"$LOGS/es-build.log" 2>&1 \
            || fail_with_log "building deploy/elasticsearch with Maven failed" "$LOGS/es-build.log"
        rm -rf "$dist"
        mkdir -p "$dist"
        cp -r "$ES_PROJECT/target/lib" "$ES_PROJECT/target/modules" "$dist/"
        touch "$dist/.complete"
    fi
    echo "$dist"
}

start_es() {
    if pid_alive "$ES_PID"; then
        wait_until "$ES_PID" es_ping || fail_with_log "Elasticsearch (pid $(cat "$ES_PID")) runs but does not answer" "$LOGS/elasticsearch.log"
        say "elasticsearch already running on 127.0.0.1:$ES_PORT (reused)"
        return 0
    fi
    port_open "$ES_PORT" && die "port $ES_PORT is taken by another program (set MCRAWL_ES_PORT)"
    local dist
    dist=$(es_dist)
    mkdir -p "$ES_DIR/home" "$ES_DIR/tmp"
    say "starting Elasticsearch on 127.0.0.1:$ES_PORT (heap $ES_HEAP)"
    # The system properties are the ones the distribution's jvm.options sets for Netty and log4j.
    setsid nohup java -Xms"$ES_HEAP" -Xmx"$ES_HEAP" -XX:+UseG1GC -Xss1m \
        -Djava.io.tmpdir="$ES_DIR/tmp" -Dfile.encoding=UTF-8 -Djava.awt.headless=true \
        -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true \
        -Dio.netty.recycler.maxCapacityPerThread=0 \
        -Dlog4j.shutdownHookEnabled=false -Dlog4j2.disable.jmx=true \
        -cp "$dist/lib/*" org.mcrawl.esnode.EsNode "$ES_DIR/home" "$dist/modules" "$ES_PORT" "$ES_TRANSPORT_PORT" \
        </dev/null >>"$LOGS/elasticsearch.log" 2>&1 9>&- &
    echo $! >"$ES_PID"
    wait_until "$ES_PID" es_ping || fail_with_log "Elasticsearch did not start" "$LOGS/elasticsearch.log"
}

stop_es() { stop_pid "$ES_PID" elasticsearch; }

# ---------------------------------------------------------------- commands
write_env() {
    cat >"$ENV_FILE.tmp" <<EOF
# Written by deploy/services.sh start; not committed.
export MCRAWL_TEST_MYSQL_URL=mysql://mcrawl:mcrawl@127.0.0.1:$MYSQL_PORT/mcrawl_test
export MCRAWL_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0
export MCRAWL_TEST_ES_URL=http://127.0.0.1:$ES_PORT
EOF
    mv "$ENV_FILE.tmp" "$ENV_FILE"
}

check_names() {
    local n
    for n in "$@"; do
        case $n in mysql | redis | es) ;; *) die "unknown server '$n' (one of: ${ALL_SERVICES[*]})" ;; esac
    done
}

status_line() {
    local name=$1 ok=down
    case $name in
        mysql) mysql_ping >/dev/null 2>&1 && ok="up   mysql://mcrawl:mcrawl@127.0.0.1:$MYSQL_PORT/mcrawl_test" ;;
        redis) redis_ping && ok="up   redis://127.0.0.1:$REDIS_PORT/0" ;;
        es) es_ping && ok="up   http://127.0.0.1:$ES_PORT" ;;
    esac
    printf '%-6s %s\n' "$name" "$ok"
    [ "$ok" != down ]
}

main() {
    local cmd=${1:-}
    shift || true
    local names=("$@")
    [ ${#names[@]} -gt 0 ] || names=("${ALL_SERVICES[@]}")
    check_names "${names[@]}"
    mkdir -p "$LOGS"
    if [ "$cmd" != status ]; then
        # One start/stop at a time per services dir: test runs of several people (or CI) may call
        # `start` together, and a fault test may `restart redis` meanwhile.
        # The servers are started with fd 9 closed (9>&-) so that they do not hold the lock forever.
        exec 9>"$SERVICES_DIR/services.lock"
        flock -w 900 9 || die "another services.sh holds $SERVICES_DIR/services.lock for 15 minutes"
    fi
    case $cmd in
        start)
            ensure_packages "${names[@]}"
            for n in "${names[@]}"; do "start_$n"; done
            write_env
            say "ready; URLs in $ENV_FILE"
            ;;
        stop)
            for n in "${names[@]}"; do "stop_$n"; done
            ;;
        restart)
            [ $# -gt 0 ] || die "restart needs a server name (${ALL_SERVICES[*]})"
            ensure_packages "${names[@]}"
            for n in "${names[@]}"; do "stop_$n"; "start_$n"; done
            write_env
            ;;
        status)
            local rc=0
            for n in "${names[@]}"; do status_line "$n" || rc=1; done
            return $rc
            ;;
        *)
            sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
            exit 2
            ;;
    esac
}

main "$@"
