#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (with JetStream) answer on their standard
# loopback ports: installs the Debian packages that are missing, starts what is not
# running, and lets the local `postgres` role (and no other) connect over loopback TCP
# without a password. Says what it changes.
# Idempotent: on a machine where everything runs it only checks.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_up() {
  for _ in $(seq 1 100); do up "$1" && return 0; sleep 0.2; done
  echo "ensure-infra: $2 did not come up on 127.0.0.1:$1" >&2
  return 1
}

APT_UPDATED=0
apt_install() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    echo "ensure-infra: installing $* from Debian packages"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# --- PostgreSQL -------------------------------------------------------------------
if ! up 5432; then
  command -v pg_ctlcluster >/dev/null 2>&1 || apt_install postgresql
  version="$(ls /etc/postgresql | sort -V | tail -1)"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  wait_up 5432 PostgreSQL
fi
command -v psql >/dev/null 2>&1 || apt_install postgresql-client
# Development and tests connect as postgres@127.0.0.1 without a password; every other role
# (the services' own, in tests as in a cluster) keeps the cluster's password rule.
if [ -d /etc/postgresql ]; then
  version="$(ls /etc/postgresql | sort -V | tail -1)"
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  # An earlier version trusted every role on loopback: narrow that rule to postgres (without
  # asking for a password: a user who cannot read the file is left as they are).
  if ${SUDO:+$SUDO -n} grep -qx '# gridlab: trust loopback' "$hba" 2>/dev/null; then
    $SUDO sed -i '/^# gridlab: trust loopback$/,+2d' "$hba"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    echo "ensure-infra: $hba: removed the passwordless loopback rule for every role (an earlier Gridlab's)"
  fi
fi
if ! psql -h 127.0.0.1 -U postgres -d postgres -Atqc 'SELECT 1' >/dev/null 2>&1; then
  # A fresh Debian cluster wants a password over TCP: trust loopback for postgres only,
  # before any other rule.
  version="$(ls /etc/postgresql | sort -V | tail -1)"
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! $SUDO grep -qx '# gridlab: trust loopback for postgres' "$hba"; then
    $SUDO sed -i '1i # gridlab: trust loopback for postgres\nhost all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    echo "ensure-infra: $hba: added 'host all postgres 127.0.0.1/32 trust' and 'host all postgres ::1/128 trust' (the postgres role, loopback only)"
  fi
  psql -h 127.0.0.1 -U postgres -d postgres -Atqc 'SELECT 1' >/dev/null
fi

# --- Redis ------------------------------------------------------------------------
if ! up 6379; then
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  $SUDO mkdir -p /var/lib/redis /var/log/redis
  $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/gridlab.log
  wait_up 6379 Redis
fi

# --- NATS with JetStream ----------------------------------------------------------
if ! up 4222; then
  [ -x /usr/sbin/nats-server ] || apt_install nats-server
  $SUDO mkdir -p /var/lib/nats-server
  $SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_up 4222 NATS
fi

echo "ensure-infra: PostgreSQL :5432, Redis :6379, NATS+JetStream :4222 are up"
