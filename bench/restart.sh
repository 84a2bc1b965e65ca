#!/bin/bash
# restart.sh BINARY RUNDIR SRCDIR [CHANGES [IDLE]]: northlog's northd
# restarted on the filled NB and SB of a kept compare run (SRCDIR, e.g.
# DIR/23.03/northlog of `compare -keep -dir DIR`), copied to RUNDIR: the time
# and CPU until `ovn-nbctl --wait=sb sync` returns and the peak RSS then;
# the CPU and context switches of IDLE seconds (default 30) with nothing to
# do; then CHANGES (default 20) lsp-add and as many lsp-del with --wait=sb,
# their CPU and the collections meanwhile. The northd runs with
# GODEBUG=gctrace=1 (its stderr, RUNDIR/northd.err) and writes cpu.prof and
# mem.prof (the live heap at exit) into RUNDIR. Results in RUNDIR/res.
set -eu
bin=$(realpath "$1") dir=$2 src=$3 n=${4:-20} idle=${5:-30}
rm -rf "$dir" && mkdir -p "$dir" && dir=$(realpath "$dir") && cd "$dir"
for db in nb sb; do
	cp "$src/$db.db" $db.db
	ovsdb-server --remote=punix:$dir/$db.sock --unixctl=$dir/$db.ctl --pidfile=$dir/$db.pid \
		--log-file=$dir/$db.log --detach --no-chdir $dir/$db.db
done
export OVN_NB_DB=unix:$dir/nb.sock
GODEBUG=gctrace=1 "$bin" --ovnnb-db=unix:$dir/nb.sock --ovnsb-db=unix:$dir/sb.sock --unixctl=$dir/northd.ctl \
	--log-file=$dir/northd.log --cpuprofile=$dir/cpu.prof --memprofile=$dir/mem.prof -vconsole:off \
	>northd.out 2>northd.err &
pid=$!
ticks() { awk '{print $14+$15}' /proc/$pid/stat; } # utime+stime, 10 ms ticks
switches() { cat /proc/$pid/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }
gcs() { grep -c '^gc ' northd.err || true; }
t0=$(date +%s.%N)
ovn-nbctl --timeout=1800 --wait=sb sync
echo "start: wall $(echo "$(date +%s.%N) - $t0" | bc) s, CPU $(ticks)0 ms, $(grep VmHWM /proc/$pid/status)" | tee res
sleep 5
c0=$(ticks) s0=$(switches)
sleep "$idle"
echo "idle ${idle} s: CPU $(($(ticks) - c0))0 ms, $(($(switches) - s0)) context switches" | tee -a res
c0=$(ticks) g0=$(gcs) t0=$(date +%s.%N)
for i in $(seq 1 "$n"); do
	ovn-nbctl --wait=sb lsp-add node1 restart-$i -- lsp-set-addresses restart-$i "0a:58:0a:ff:00:01 10.255.0.$i" >/dev/null
	ovn-nbctl --wait=sb lsp-del restart-$i
done
echo "$((2 * n)) changes: CPU $(($(ticks) - c0))0 ms, wall $(echo "$(date +%s.%N) - $t0" | bc) s, $(($(gcs) - g0)) collections, $(grep VmHWM /proc/$pid/status)" | tee -a res
ovn-appctl -t $dir/northd.ctl exit
wait $pid
for db in nb sb; do ovs-appctl -t $dir/$db.ctl exit; done
