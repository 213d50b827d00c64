# The steps tcp_target.sh and rdma_target.sh share (sourced, bash): the same checks against the
# kernel's target, over either transport. Each prints what it found, prefixed with $FAB_LABEL
# (e.g. "tcp_target"), and returns non-zero on a failure. Needs $build (the build dir).

# fab_matrix <uri> <mech> <transport name>: the device x mechanism matrix (tests/test_matrix)
# over the backend on namespaces 1 (the QEMU namespace) and 3 (null_blk), every mechanism run.
fab_matrix() {
	local uri=$1 mech=$2 name=$3 mlog nsid rc=0
	mlog=$(mktemp)
	for nsid in 1 3; do
		if ! "$build/tests/test_matrix" --uri "$uri" --nsid $nsid \
			--mech "$mech" --mech sync --mech emu --mech thrpool --mech nil >"$mlog" 2>&1 ||
			[ "$(grep -c 'ran: true' "$mlog")" != 5 ]; then
			echo "$FAB_LABEL: the matrix over $name failed on namespace $nsid:"
			tail -20 "$mlog"
			rc=1
		fi
	done
	[ $rc -eq 0 ] && echo "$FAB_LABEL: the matrix passes over $name (QEMU namespace, null_blk)"
	rm -f "$mlog"
	return $rc
}

# fab_kernel_cross <trtype> <traddr> <nqn> <local dev> <slba> <nlb> <backend> [strict]: the
# kernel's initiator (nvme connect) on the same subsystem reads at <slba> what the backend wrote
# there (<nlb> LBAs of 512 B, compared with the local block device), then writes 64 KiB of random
# data at LBA 5000 that `lblk read` over the backend must read back. Without "strict" a failed
# nvme connect skips the check (returns 0).
fab_kernel_cross() {
	local trtype=$1 traddr=$2 nqn=$3 dev=$4 slba=$5 nlb=$6 be=$7 strict=${8:-} tmp kdev c n rc=0
	local hostnqn_opt=()
	command -v nvme >/dev/null && modprobe "nvme-$trtype" 2>/dev/null || return 0
	tmp=$(mktemp -d)
	[ -s /etc/nvme/hostnqn ] ||
		hostnqn_opt=(--hostnqn nqn.2014-08.org.nvmexpress:uuid:5e1f0000-0000-4000-8000-00000000c0de)
	if ! nvme connect -t "$trtype" -a "$traddr" -s 4420 -n "$nqn" "${hostnqn_opt[@]}" >"$tmp/connect.log" 2>&1; then
		echo "$FAB_LABEL: nvme connect -t $trtype failed:"
		cat "$tmp/connect.log"
		rm -rf "$tmp"
		[ -n "$strict" ] && return 1
		return 0
	fi
	kdev=""
	for _ in $(seq 50); do
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
			for n in "$c"/nvme*n1 "$c"/nvme*c*n1; do
				[ -e "$n" ] && kdev=/dev/$(basename "$n")
			done
		done
		[ -n "$kdev" ] && [ -b "$kdev" ] && break
		sleep 0.2
	done
	if [ -z "$kdev" ]; then
		echo "$FAB_LABEL: nvme connect made no namespace"
		rc=1
	else
		dd if="$kdev" bs=512 skip="$slba" count="$nlb" iflag=direct status=none >"$tmp/kernel.bin"
		dd if="$dev" bs=512 skip="$slba" count="$nlb" iflag=direct status=none >"$tmp/local.bin"
		cmp -s "$tmp/kernel.bin" "$tmp/local.bin" || { echo "$FAB_LABEL: kernel initiator reads other data"; rc=1; }
		head -c 65536 /dev/urandom >"$tmp/rand.bin"
		dd if="$tmp/rand.bin" of="$kdev" bs=512 seek=5000 oflag=direct status=none
		"$build/tools/lblk" read "$traddr:4420" --be "$be" --subnqn "$nqn" --slba 0x1388 --nlb 127 \
			--data-output "$tmp/ours.bin" >"$tmp/lblk.log" 2>&1 || { cat "$tmp/lblk.log"; rc=1; }
		cmp -s "$tmp/rand.bin" "$tmp/ours.bin" || { echo "$FAB_LABEL: data the kernel initiator wrote reads back differently"; rc=1; }
		[ $rc -eq 0 ] && echo "$FAB_LABEL: kernel initiator and $be backend agree"
	fi
	nvme disconnect -n "$nqn" >/dev/null 2>&1
	rm -rf "$tmp"
	return $rc
}

# fab_fio <fio> <traddr> <nqn> <backend>: fio 3.33's xnvme engine over the backend, verifying
# what it writes (crc32c) from offset 32 MiB: the async mechanism at QD 1 and 16, the sync one
# through emu. fio splits file names at ':', hence the escapes.
fab_fio() {
	local fio=$1 furi="${2}\\:4420?subnqn=${3//:/\\:}" be=$4 rc=0 name
	for job in "async-qd1 --xnvme_async=$be --iodepth=1" "async-qd16 --xnvme_async=$be --iodepth=16" \
		"sync-emu --xnvme_sync=$be --xnvme_async=emu --iodepth=16"; do
		set -- $job
		name=$1
		shift
		"$fio" --name="$be-$name" --ioengine=xnvme --thread=1 --filename="$furi" \
			--xnvme_be="$be" --xnvme_dev_nsid=1 --offset=32M --size=4M --bs=4k --rw=randwrite \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
			--output-format=terse "$@" >/dev/null || {
			echo "$FAB_LABEL: fio $name failed"
			rc=1
		}
	done
	[ $rc -eq 0 ] && echo "$FAB_LABEL: fio's xnvme engine verified its data over $be"
	return $rc
}

# fab_under_load <what> <uri> <backend> <nsid> <command...>: xnvmeperf over the backend at QD 8;
# after 3 s the command breaks the path (runs in this shell); the initiator must fail its
# commands and exit within 30 s
fab_under_load() {
	local what=$1 uri=$2 be=$3 nsid=$4 log pid rc=0
	shift 4
	log=$(mktemp)
	"$build/tools/xnvmeperf" "$uri" --be "$be" --dev-nsid "$nsid" --qdepth 8 --runtime 60 \
		--size 16m --no-progress >"$log" 2>&1 &
	pid=$!
	sleep 3
	"$@"
	for _ in $(seq 300); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		echo "$FAB_LABEL: the initiator hangs after $what"
		kill -9 $pid
		rc=1
	elif wait $pid; then
		echo "$FAB_LABEL: I/O kept succeeding after $what"
		cat "$log"
		rc=1
	else
		echo "$FAB_LABEL: $what during I/O: the initiator failed its commands and exited"
		grep -m2 -i "fail\|errno" "$log" | tr '\n' ' '
		echo
	fi
	rm -f "$log"
	return $rc
}
