#!/usr/bin/env bash
# Inside the QEMU guest (tests/qemu/rig.sh run -- bash bench/tcp_vs_kernel.sh <build dir>
# [seconds] [fio binary]): exports a null_blk device through nvmet-tcp on 127.0.0.1:4420 and
# runs 4 KiB random reads at QD1 and QD32 through the tcp backend (xnvmeperf, and fio's xnvme
# engine when a fio binary built against this library is given) and through the kernel's
# initiator (nvme connect; fio's io_uring engine with O_DIRECT on the block device it creates,
# and xnvmeperf there too). Prints a Markdown table: IOPS, the guest's CPU time per I/O (all
# CPUs, from /proc/stat: initiator, target and kernel threads together, since they share the
# guest) and completion latency p50/p99. Under TCG compare the ratios, not the absolute numbers. With TCP_BENCH_PROFILE=1 (needs
# perf) it also profiles the QD32 runs, two extra runs each: system calls per I/O (perf stat) and
# where the guest's CPU time goes (perf record -a, by command and object, and by symbol).
set -u
build=$(realpath "${1:?usage: tcp_vs_kernel.sh <build dir> [seconds] [fio]}")
secs=${2:-5}
fio=${3:-}
modprobe null_blk nr_devices=1 gb=1 || exit 77
modprobe nvmet-tcp || exit 77
modprobe nvme-tcp || exit 77
ip link set lo up
S=/sys/kernel/config/nvmet
[ -d "$S" ] || mount -t configfs none /sys/kernel/config
nqn=nqn.2024-01.io.xnvme:bench
# undone on exit, so that the script can run more than once per boot (e.g. two builds)
cleanup() {
	nvme disconnect -n $nqn >/dev/null 2>&1
	rm -f $S/ports/12/subsystems/$nqn
	[ -d $S/ports/12 ] && rmdir $S/ports/12
	[ -e $S/subsystems/$nqn/namespaces/1/enable ] && echo 0 >$S/subsystems/$nqn/namespaces/1/enable
	[ -d $S/subsystems/$nqn/namespaces/1 ] && rmdir $S/subsystems/$nqn/namespaces/1
	[ -d $S/subsystems/$nqn ] && rmdir $S/subsystems/$nqn
}
trap cleanup EXIT
mkdir $S/subsystems/$nqn && echo 1 >$S/subsystems/$nqn/attr_allow_any_host &&
	mkdir $S/subsystems/$nqn/namespaces/1 &&
	echo -n /dev/nullb0 >$S/subsystems/$nqn/namespaces/1/device_path &&
	echo 1 >$S/subsystems/$nqn/namespaces/1/enable && mkdir $S/ports/12 &&
	echo 127.0.0.1 >$S/ports/12/addr_traddr && echo tcp >$S/ports/12/addr_trtype &&
	echo 4420 >$S/ports/12/addr_trsvcid && echo ipv4 >$S/ports/12/addr_adrfam &&
	ln -s $S/subsystems/$nqn $S/ports/12/subsystems/$nqn || exit 1

echo "| initiator | tool | QD | IOPS | guest CPU us/IO | p50 us | p99 us |"
echo "|---|---|---|---|---|---|---|"
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
# record <initiator> <tool> <qd> <command...>: the command prints "ios iops p50_us p99_us" on its
# last line
record() {
	local who=$1 tool=$2 qd=$3 b0 b1 out ios iops p50 p99
	shift 3
	b0=$(busy)
	out=$("$@" | tail -n 1)
	b1=$(busy)
	read -r ios iops p50 p99 <<<"$out"
	if [ -z "${ios:-}" ] || [ "${ios:-0}" = 0 ]; then
		echo "| $who | $tool | $qd | failed | - | - | - |"
		return
	fi
	# USER_HZ ticks of 10 ms: microseconds of guest CPU per I/O
	echo "| $who | $tool | $qd | $(printf '%.0f' "$iops") | $(awk -v t=$((b1 - b0)) -v n="$ios" \
		'BEGIN{printf "%.0f", t * 10000 / n}') | $(printf '%.0f' "$p50") | $(printf '%.0f' "$p99") |"
}
xperf() {
	local uri=$1 qd=$2
	shift 2
	"${xperf_build:-$build}/tools/xnvmeperf" "$uri" --qdepth "$qd" --runtime "$secs" --size 256m --no-progress \
		--json "$@" | awk '
		function num(s, key, m) {
			if (!match(s, "\"" key "\": [0-9.]+"))
				return 0
			m = substr(s, RSTART, RLENGTH)
			sub(/.*: /, "", m)
			return m
		}
		/"total": [{]"ios"/ { ios = num($0, "ios"); iops = num($0, "iops") }
		/"lat_ns"/ { lat = $0 } # the last one is the total
		END { print ios, iops, num(lat, "p50") / 1000, num(lat, "p99") / 1000 }'
}
fiorun() {
	local qd=$1
	shift
	# terse v3: field 6 KiB read, field 8 read IOPS, 18-37 completion latency percentiles (us)
	"$fio" --name=bench --thread=1 --rw=randread --bs=4k --size=256m --time_based \
		--runtime="$secs" --iodepth="$qd" --output-format=terse "$@" |
		awk -F';' '{ p50 = p99 = 0
			for (i = 18; i <= 37; i++) {
				split($i, kv, "=")
				if (kv[1] == "50.000000%") p50 = kv[2]
				if (kv[1] == "99.000000%") p99 = kv[2]
			}
			print $6 / 4, $8, p50, p99 }'
}
furi="127.0.0.1\\:4420?subnqn=${nqn//:/\\:}"
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e1f0000-0000-4000-8000-00000000be0c
nvme connect -t tcp -a 127.0.0.1 -s 4420 -n $nqn --hostnqn $hostnqn >/dev/null || exit 1
sleep 1
kdev=$(for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/subsysnqn")" = "$nqn" ] && ls -d "$c"/nvme*n1 2>/dev/null | head -1
done)
kdev=/dev/$(basename "$kdev")
# TCP_BENCH_BASELINE=<build dir>: also xnvmeperf of another build (e.g. before a change) over
# the tcp backend, interleaved with the others. TCP_BENCH_REPEAT=N: every row N times, the initiators interleaved (a loaded host drifts)
for _ in $(seq "${TCP_BENCH_REPEAT:-1}"); do
	for qd in 1 32; do
		record "tcp backend" xnvmeperf $qd xperf "127.0.0.1:4420?subnqn=$nqn" $qd
		if [ -n "${TCP_BENCH_BASELINE:-}" ]; then
			xperf_build=$TCP_BENCH_BASELINE LD_LIBRARY_PATH=$TCP_BENCH_BASELINE/lib \
				record "tcp backend, baseline" xnvmeperf $qd xperf \
				"127.0.0.1:4420?subnqn=$nqn" $qd
		fi
		if [ -n "$fio" ]; then
			record "tcp backend" "fio xnvme" $qd fiorun $qd --ioengine=xnvme \
				--xnvme_async=tcp --xnvme_dev_nsid=1 --filename="$furi"
			record "kernel nvme-tcp" "fio io_uring" $qd fiorun $qd --ioengine=io_uring \
				--direct=1 --filename="$kdev"
		fi
		record "kernel nvme-tcp" "xnvmeperf io_uring" $qd xperf "$kdev" $qd --async io_uring \
			--direct
	done
done

# profile <label> <command...>: system calls per I/O (perf stat on syscall tracepoints; strace
# would slow every call down and change the batching it measures), then a system-wide profile
# by command and object and by symbol (software clock: TCG has no hardware counters)
profile() {
	local label=$1 tmp ios
	shift
	tmp=$(mktemp -d)
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	ios=$(perf stat -x, -o "$tmp/stat" -e raw_syscalls:sys_enter,syscalls:sys_enter_recvmsg \
		-e syscalls:sys_enter_sendmsg,syscalls:sys_enter_io_uring_enter \
		-- bash -c '"$@"' _ "$@" | tail -n 1 | awk '{print $1}')
	echo "#### $label: system calls per I/O ($ios I/Os; all processes of the run)"
	awk -F, -v n="${ios:-0}" '$1 ~ /^[0-9]+$/ && n > 0 { printf "    %-36s %8.3f\n", $3, $1 / n }' \
		"$tmp/stat"
	perf record -q -a -e cpu-clock -o "$tmp/perf.data" -- bash -c '"$@"' _ "$@" >/dev/null 2>&1
	echo "#### $label: guest CPU by command and object (perf, cpu-clock, whole guest)"
	perf report -q -i "$tmp/perf.data" --sort comm,dso --stdio 2>/dev/null | head -8 |
		sed 's/^/    /'
	echo "#### $label: guest CPU by symbol (top 25)"
	perf report -q -i "$tmp/perf.data" --sort comm,sym --stdio 2>/dev/null | head -25 |
		sed 's/^/    /'
	rm -rf "$tmp"
}
if [ "${TCP_BENCH_PROFILE:-0}" = 1 ]; then
	export -f xperf fiorun
	export build secs fio
	profile "tcp backend, xnvmeperf QD32" xperf "127.0.0.1:4420?subnqn=$nqn" 32
	profile "kernel nvme-tcp, xnvmeperf io_uring QD32" xperf "$kdev" 32 --async io_uring --direct
	if [ -n "$fio" ]; then
		profile "kernel nvme-tcp, fio io_uring QD32" fiorun 32 --ioengine=io_uring --direct=1 \
			--filename="$kdev"
	fi
fi
