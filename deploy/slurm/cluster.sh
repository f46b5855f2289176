#!/usr/bin/env bash
# cluster.sh: a throwaway single-node Slurm cluster in one folder, for tests and trials
# (Debian's slurm-wlm and munge, installed by .ci/install-deps.sh).  Nothing outside DIR is
# written or started: munged, slurmctld and slurmd run on free local ports with their own
# key, socket, state, spool, logs and pid files in DIR, and `stop` ends them by those pids.
#   cluster.sh start DIR    # prints the SLURM_CONF line to export; ~1 s
#   cluster.sh stop DIR
# Pitfalls handled: munge's socket folder and its parents must be searchable by everyone
# (job steps run as the submitting user), so DIR is made 0755; no cgroups (proctrack/pgid).
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop DIR} dir=${2:?usage: cluster.sh start|stop DIR}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

stop() {
    for d in slurmd slurmctld munged; do
        [ -s "$dir/$d.pid" ] || continue
        pid=$(cat "$dir/$d.pid")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
}

start() {
    mkdir -p "$dir/state" "$dir/spool"
    dir=$(cd "$dir" && pwd)
    chmod 755 "$dir"
    user=$(id -un) node=$(hostname -s)
    # munge: its own key and socket; --force: as root, and beside a 0755 folder.
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge.key"
    munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
    cat >"$dir/slurm.conf" <<CONF
ClusterName=dmlcheck
SlurmctldHost=$node
SlurmUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 100); do # the node is up when sinfo says idle
        sinfo -h -o %t 2>/dev/null | grep -qx idle && { echo "export SLURM_CONF=$SLURM_CONF"; return 0; }
        sleep 0.1
    done
    echo "cluster.sh: the node did not come up; logs in $dir" >&2
    tail -n 5 "$dir"/*.log >&2
    stop
    return 1
}

case $cmd in
start) start ;;
stop) stop ;;
*) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
