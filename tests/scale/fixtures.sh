# Shell fixtures for the scale stage and the cluster bench: a throw-away
# PostgreSQL and a one-node Slurm cluster (with munge) under one temporary
# folder, on free loopback ports, started and stopped by the caller (who
# traps fixtures_stop). Every wait is for an event (pg_isready, sinfo),
# bounded in time. Needs root: initdb and pg_ctl then run as the postgres
# user, slurmd as root. Source it; functions only.

fx_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# fx_wait SECONDS COMMAND...: retries COMMAND every 0.1 s until it succeeds.
fx_wait() {
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.1
  done
}

# What the stage needs, or why it cannot run ("" when it can).
fx_missing() {
  [ "$(id -u)" = 0 ] || { echo "needs root (initdb runs as the postgres user, slurmd as root)"; return; }
  local pgbin; pgbin=$(pg_config --bindir 2>/dev/null)
  [ -x "$pgbin/initdb" ] && [ -x "$pgbin/pg_ctl" ] || { echo "PostgreSQL server binaries not found (make deps installs postgresql)"; return; }
  id postgres >/dev/null 2>&1 || { echo "no postgres user (make deps installs postgresql)"; return; }
  for c in haproxy slurmctld slurmd srun sinfo scancel munged psql; do
    command -v "$c" >/dev/null || { echo "$c not found (make deps installs haproxy, slurm-wlm, munge, postgresql)"; return; }
  done
}

# fx_pg_start DIR [fast]: initdb + start; exports PGPORT_FX, PGDATA_FX, PGBIN_FX.
# fast: no fsync (tests); without it PostgreSQL's defaults (the bench).
fx_pg_start() {
  local dir=$1 fast=${2:-}
  PGBIN_FX=$(pg_config --bindir)
  PGPORT_FX=$(fx_port)
  PGDATA_FX=$dir/pg/data
  mkdir -p "$dir/pg/sock" && chmod 755 "$dir" && chown -R postgres "$dir/pg"
  runuser -u postgres -- "$PGBIN_FX/initdb" -D "$PGDATA_FX" -U postgres --auth=trust -E UTF8 --no-sync \
    >"$dir/pg/initdb.log" 2>&1 || { cat "$dir/pg/initdb.log" >&2; return 1; }
  local opts="-p $PGPORT_FX -k $dir/pg/sock -c listen_addresses=127.0.0.1 -c max_connections=300"
  [ -n "$fast" ] && opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  echo "$opts" >"$dir/pg/opts"
  fx_pg_up "$dir" || return 1
  export PGPORT_FX PGDATA_FX PGBIN_FX
}

# fx_pg_up DIR: starts the initialised PostgreSQL of DIR (again) and waits for it.
fx_pg_up() {
  runuser -u postgres -- "$PGBIN_FX/pg_ctl" -D "$PGDATA_FX" -l "$1/pg/server.log" -o "$(cat "$1/pg/opts")" start \
    >/dev/null 2>&1 || { tail -20 "$1/pg/server.log" >&2; return 1; }
  fx_wait 30 pg_isready -q -h 127.0.0.1 -p "$PGPORT_FX"
}

fx_pg_stop() { # mode: fast (default) or immediate
  [ -n "${PGDATA_FX:-}" ] && [ -f "$PGDATA_FX/postmaster.pid" ] &&
    runuser -u postgres -- "$PGBIN_FX/pg_ctl" -D "$PGDATA_FX" -m "${1:-fast}" -w -t 30 stop >/dev/null 2>&1
  return 0
}

# fx_slurm_start DIR GPUS: munged, then slurmctld and one slurmd with GPUS fake
# GPUs (character devices, as gres.conf needs); exports SLURM_CONF.
fx_slurm_start() {
  local d=$1 gpus=${2:-2} m=$1/munge s=$1/slurm
  mkdir -p "$m/etc" "$m/run" "$m/log" "$m/lib" "$s/state" "$s/spool" "$s/log" "$s/dev"
  chmod 700 "$m/etc"; chmod 755 "$m/run"
  dd if=/dev/urandom of="$m/etc/munge.key" bs=1024 count=1 status=none && chmod 400 "$m/etc/munge.key"
  munged -f --socket="$m/run/munge.socket.2" --key-file="$m/etc/munge.key" --log-file="$m/log/munged.log" \
    --pid-file="$m/run/munged.pid" --seed-file="$m/lib/munged.seed" || return 1
  local i devs=""
  for ((i = 0; i < gpus; i++)); do mknod "$s/dev/nvidia$i" c 195 "$i"; done
  cat >"$s/slurm.conf" <<CONF
ClusterName=gpulabtest
SlurmctldHost=$(hostname)(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$m/run/munge.socket.2
CredType=cred/munge
SlurmUser=root
SlurmctldPort=$(fx_port)
SlurmdPort=$(fx_port)
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 Gres=gpu:$gpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  echo "NodeName=localhost Name=gpu File=$s/dev/nvidia[0-$((gpus - 1))]" >"$s/gres.conf"
  export SLURM_CONF=$s/slurm.conf
  slurmctld -i || return 1
  slurmd -N localhost || return 1
  fx_wait 30 bash -c "sinfo -h -N -o %t | grep -qx idle"
}

fx_slurm_stop() {
  [ -n "${SLURM_CONF:-}" ] || return 0
  local s; s=$(dirname "$SLURM_CONF")
  scancel --user=root >/dev/null 2>&1
  scontrol shutdown >/dev/null 2>&1
  local p
  for f in "$s/slurmctld.pid" "$s/slurmd.pid" "$(dirname "$s")/munge/run/munged.pid"; do
    # the daemon removes its pid file as it stops (scontrol shutdown above):
    # a file seen a moment ago may be gone when it is read
    p=$(cat "$f" 2>/dev/null) || continue
    fx_wait 10 bash -c "! kill -0 $p 2>/dev/null" || kill -9 "$p" 2>/dev/null
  done
  p=$(cat "$(dirname "$s")/munge/run/munged.pid" 2>/dev/null) && kill "$p" 2>/dev/null
  return 0
}
