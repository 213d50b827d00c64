#!/usr/bin/env bash
# QEMU NVMe test rig for xNVMe: boots a stock Debian kernel under QEMU (TCG) with emulated NVMe
# namespaces and runs one command inside the guest, over the host's root file system.
#
#   rig.sh prepare [--fdp]                       install packages, fetch + cache kernel/initramfs
#   rig.sh run [options] -- <command...>         boot, run <command> in the guest, return its rc
#   rig.sh selftest [--fdp]                      boot once and smoke-check the guest devices
#   rig.sh clean                                 remove the cache
#
# See tests/qemu/README.md. Exit codes of `run`: the guest command's exit code, or 125 when the
# guest did not report one (boot failure, panic, timeout), or 2 on usage errors.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
CACHE=${XNVME_QEMU_CACHE:-$HOME/.cache/xnvme-qemu}
PKGS=(qemu-system-x86 qemu-utils busybox-static nvme-cli cpio kmod)
# nvme first: its controller probe runs asynchronously while the other modules load
BOOT_MODULES=(nvme virtio_pci virtio_console 9pnet_virtio 9p overlay)
RIG_RC_FAIL=125

log() { printf 'qrig: %s\n' "$*" >&2; }
die() { printf 'qrig: error: %s\n' "$*" >&2; exit "${QRIG_DIE_RC:-1}"; }

PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3

as_root() {
	if [[ $(id -u) -eq 0 ]]; then "$@"
	elif command -v sudo >/dev/null; then sudo -n "$@"
	else die "need root for: $*"; fi
}

# --------------------------------------------------------------------------------------------
# prepare
# --------------------------------------------------------------------------------------------

prepare_packages() {
	local need=() p st
	for p in "${PKGS[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[[ $st == installed ]] || need+=("$p")
	done
	((${#need[@]})) || return 0
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! as_root apt-get install -y -q --no-install-recommends "${need[@]}" >&2; then
		as_root apt-get update -q >&2
		as_root apt-get install -y -q --no-install-recommends "${need[@]}" >&2
	fi
}

# linux-image-<kver> that the linux-image-amd64 metapackage currently depends on
resolve_kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

# Decompress a kernel module (.ko/.ko.xz/.ko.gz/.ko.zst) and strip its appended signature.
MODPREP_PY='
import sys, lzma, gzip, struct, subprocess
src, dst = sys.argv[1], sys.argv[2]
if src.endswith(".xz"):
    data = lzma.open(src).read()
elif src.endswith(".gz"):
    data = gzip.open(src).read()
elif src.endswith(".zst"):
    data = subprocess.run(["zstd", "-dc", src], check=True, stdout=subprocess.PIPE).stdout
else:
    data = open(src, "rb").read()
magic = b"~Module signature appended~\n"
if data.endswith(magic):
    # struct module_signature: algo, hash, id_type, signer_len, key_id_len, pad[3], sig_len(be32)
    info = data[-len(magic) - 12:-len(magic)]
    signer_len, key_id_len = info[3], info[4]
    sig_len = struct.unpack(">I", info[8:12])[0]
    data = data[:-(len(magic) + 12 + sig_len + signer_len + key_id_len)]
if data[:4] != b"\x7fELF":
    sys.exit("not an ELF module: " + src)
open(dst, "wb").write(data)
'

# Cut the XZ stream out of a bzImage and decompress it: the ELF vmlinux boots via PVH.
VMLINUX_PY='
import sys, lzma
d = open(sys.argv[1], "rb").read()
i = d.find(b"\xfd7zXZ\x00")
if i < 0:
    sys.exit("no XZ stream in " + sys.argv[1])
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(d[i:])
if out[:4] != b"\x7fELF":
    sys.exit("decompressed kernel is not ELF")
open(sys.argv[2], "wb").write(out)
'

# Extract a linux-image .deb into $CACHE/kernels/<kver>: lib/modules/<kver>, vmlinux, config
install_kernel_deb() {
	local deb=$1 kver=$2 kdir=$CACHE/kernels/$2 tmp
	tmp=$(mktemp -d "$CACHE/tmp.kernel.XXXXXX")
	dpkg-deb -x "$deb" "$tmp/x"
	mkdir -p "$tmp/k/lib/modules"
	if [[ -d $tmp/x/lib/modules/$kver ]]; then
		mv "$tmp/x/lib/modules/$kver" "$tmp/k/lib/modules/"
	elif [[ -d $tmp/x/usr/lib/modules/$kver ]]; then
		mv "$tmp/x/usr/lib/modules/$kver" "$tmp/k/lib/modules/"
	else
		die "no lib/modules/$kver in $deb"
	fi
	mv "$tmp/x/boot/vmlinuz-$kver" "$tmp/k/vmlinuz"
	cp "$tmp/x/boot/config-$kver" "$tmp/k/config" 2>/dev/null || true
	depmod -b "$tmp/k" "$kver"
	"$PY" -c "$VMLINUX_PY" "$tmp/k/vmlinuz" "$tmp/k/vmlinux"
	[[ $(head -c4 "$tmp/k/vmlinux" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] ||
		die "vmlinux is not ELF"
	echo "$kver" >"$tmp/k/kver"
	rm -rf "$kdir"
	mkdir -p "$CACHE/kernels"
	mv "$tmp/k" "$kdir"
	rm -rf "$tmp"
}

# Download (apt-get download, no installation) and extract the kernel package $1
fetch_kernel() {
	local pkg=$1 kver=${1#linux-image-} tmp
	[[ -f $CACHE/kernels/$kver/vmlinux ]] && return 0
	log "downloading $pkg"
	tmp=$(mktemp -d "$CACHE/tmp.deb.XXXXXX")
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -q "$pkg" >&2 2>"$tmp/apt.err") ||
		{ cat "$tmp/apt.err" >&2; rm -rf "$tmp"; return 1; }
	install_kernel_deb "$(ls "$tmp"/*.deb)" "$kver"
	rm -rf "$tmp"
}

# The guest's /init (busybox sh). Baked into the initramfs; rebuilt when this text changes.
guest_init() {
	cat <<'INIT'
#!/bin/busybox sh
# qrig guest init, generated by tests/qemu/rig.sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
say() { echo "qrig-init: $*"; }
set -f
read -r cmdline </proc/cmdline
# busybox insmod does not read <module>.<param>=<val> from the command line: forward them
while read -r mod; do
	[ -n "$mod" ] || continue
	name=${mod%.ko}; name=${name//-/_}
	set --
	for w in $cmdline; do
		case $w in *.*=*) ;; *) continue ;; esac
		p=${w%%.*}
		[ "${p//-/_}" = "$name" ] && set -- "$@" "${w#*.}"
	done
	insmod "/modules/$mod" "$@" || say "insmod $mod $* failed"
done </modules/order
set +f

o=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /ctl /lower /rw /newroot
mount -t 9p -o $o,cache=none qrigctl /ctl || say "cannot mount the control share"
mount -t 9p -o $o,cache=loose,ro hostroot /lower || say "cannot mount the host root"
. /ctl/config
mount -t tmpfs -o mode=0755 rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	say "cannot mount the overlay root"
r=/newroot
mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
mount -t devtmpfs devtmpfs $r/dev
mkdir -p $r/dev/pts $r/dev/shm $r/dev/hugepages $r/run $r/tmp
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $r/dev/pts
ln -sf /proc/self/fd $r/dev/fd
ln -sf /proc/self/fd/0 $r/dev/stdin
ln -sf /proc/self/fd/1 $r/dev/stdout
ln -sf /proc/self/fd/2 $r/dev/stderr
[ -e $r/dev/ptmx ] || ln -sf pts/ptmx $r/dev/ptmx
mount -t tmpfs -o mode=1777 shm $r/dev/shm
mount -t hugetlbfs hugetlbfs $r/dev/hugepages
mount -t tmpfs -o mode=0755 run $r/run
mount -t tmpfs -o mode=1777 tmp $r/tmp
mkdir -p $r/run/qrig /lib/modules "$r/lib/modules"
mount --bind /ctl $r/run/qrig
# the kernel's module tree (cache dir on the host): for modprobe in the guest and kernel requests
mount --bind "/lower$QRIG_MODDIR" "$r/lib/modules"
mount --bind "/lower$QRIG_MODDIR" /lib/modules
mkdir -p "$r$QRIG_WORKDIR"
mount -t 9p -o $o,cache=mmap qrigwork "$r$QRIG_WORKDIR" || say "cannot mount the work directory"

# wait for the namespaces (hidden per-path disks nvmeXcYnZ do not count) and for the
# virtio-serial port that carries the command's output to the host (kernel console: ttyS0)
n=0 i=0 out=
while :; do
	n=0
	for d in /sys/block/nvme*n*; do
		case ${d##*/} in nvme*c*n*) ;; nvme*n*) [ -e "$d" ] && n=$((n + 1)) ;; esac
	done
	if [ -z "$out" ]; then
		for p in /sys/class/virtio-ports/vport*; do
			[ -e "$p/name" ] && read -r nm <"$p/name" && [ "$nm" = qrig.out ] &&
				[ -c "/dev/${p##*/}" ] && out=/dev/${p##*/}
		done
	fi
	[ $n -ge "$QRIG_NS" ] && [ -n "$out" ] && break
	i=$((i + 1))
	[ $i -ge 600 ] && break
	sleep 0.05
done
warn=
[ $n -ge "$QRIG_NS" ] || warn="only $n of $QRIG_NS NVMe namespaces appeared"
[ -n "$out" ] || { say "no output port, the command's output goes to the console"; out=/dev/console; }
[ -z "$warn" ] || say "$warn"

# map namespaces and controllers to roles by (controller serial, nsid), not controller number
for d in /sys/block/nvme*n*; do
	b=${d##*/}
	case $b in nvme*c*n*) continue ;; esac
	[ -e "$d/nsid" ] || continue
	read -r sn <"$d/device/serial" || continue
	read -r nsid <"$d/nsid" || continue
	role=
	for m in $QRIG_ROLES; do
		[ "${m%%=*}" = "$sn:$nsid" ] && role=${m#*=}
	done
	[ -n "$role" ] || continue
	export "XNVME_QEMU_${role}_BLK=/dev/$b" "XNVME_QEMU_${role}_CHR=/dev/ng${b#nvme}" \
		"XNVME_QEMU_${role}_NSID=$nsid"
done
for c in /sys/class/nvme/nvme*; do
	[ -e "$c/serial" ] || continue
	read -r sn <"$c/serial" || continue
	cd -P "$c/device" && bdf=${PWD##*/}
	cd /
	for m in $QRIG_CTRLS; do
		[ "${m%%=*}" = "$sn" ] || continue
		p=${m#*=}
		export "${p}CTRLR=/dev/${c##*/}" "${p}PCI_BDF=$bdf"
	done
done
export XNVME_QEMU_GUEST=1 HOME=/root TERM=dumb
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
exec 3<>"$out"
read -r up _ </proc/uptime
echo "$QRIG_TOKEN:BEGIN:$up" >&3
[ -z "$warn" ] || echo "qrig: warning: $warn" >&3
chroot $r /bin/bash /run/qrig/cmd.sh </dev/null >&3 2>&3 3>&-
rc=$?
echo "$QRIG_TOKEN:END:$rc" >&3
# virtio-serial writes return before QEMU has passed the data on: wait for the host's
# acknowledgement that it read everything up to the end marker, then power off
[ "$out" = /dev/console ] || read -t 15 -r _ <&3 || say "no acknowledgement from the host"
exec 3>&-
dmesg >/ctl/dmesg
echo $rc >/ctl/rc.tmp && mv /ctl/rc.tmp /ctl/rc
sync
poweroff -f
INIT
}

module_list() { # load order of BOOT_MODULES with dependencies, one path per line
	local kdir=$1 kver=$2 m
	for m in "${BOOT_MODULES[@]}"; do
		modprobe -C /dev/null -d "$kdir" -S "$kver" --show-depends "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++'
}

# initramfs-<hash>.cpio: keyed by /init, the module list, the module preparation, busybox
initramfs_path() {
	local kdir=$1 kver=$2 mods hash
	mods=$(module_list "$kdir" "$kver")
	[[ -n $mods ]] || die "module dependency resolution failed for $kver"
	hash=$({ guest_init; echo "$mods"; echo "$MODPREP_PY"; cat /bin/busybox; } | sha256sum | cut -c1-16)
	echo "$kdir/initramfs-$hash.cpio"
}

# Build the initramfs in the kernel dir if missing; prints its path
build_initramfs() {
	local kdir=$1 kver=$2 mods out tmp f n
	out=$(initramfs_path "$kdir" "$kver")
	mods=$(module_list "$kdir" "$kver")
	if [[ ! -f $out ]]; then
		tmp=$(mktemp -d "$CACHE/tmp.initramfs.XXXXXX")
		mkdir -p "$tmp/r/"{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,modules}
		cp /bin/busybox "$tmp/r/bin/busybox"
		# applet links made here, not by `busybox --install` at every boot
		/bin/busybox --list-full | while read -r f; do
			[[ -e $tmp/r/$f ]] || ln -s /bin/busybox "$tmp/r/$f"
		done
		guest_init >"$tmp/r/init"
		chmod 755 "$tmp/r/init"
		: >"$tmp/r/modules/order"
		while read -r f; do
			n=${f##*/}; n=${n%.xz}; n=${n%.gz}; n=${n%.zst}
			"$PY" -c "$MODPREP_PY" "$f" "$tmp/r/modules/$n"
			echo "$n" >>"$tmp/r/modules/order"
		done <<<"$mods"
		(cd "$tmp/r" && find . -print0 | LC_ALL=C sort -z |
			cpio --null -o -H newc -R 0:0 --quiet) >"$tmp/initramfs.cpio"
		mv "$tmp/initramfs.cpio" "$out"
		rm -rf "$tmp"
	fi
	echo "$out"
}

apt_lists_stamp() { stat -c %Y /var/lib/apt/lists 2>/dev/null || echo 0; }

write_current() { # kver initramfs lists-stamp
	printf 'QRIG_KVER=%s\nQRIG_KDIR=%s\nQRIG_INITRD=%s\nQRIG_LISTS=%s\n' \
		"$1" "$CACHE/kernels/$1" "$2" "$3" >"$CACHE/current.tmp"
	mv "$CACHE/current.tmp" "$CACHE/current"
}

prepare_kernel() {
	local pkg kver kdir initrd stamp
	stamp=$(apt_lists_stamp)
	# the apt lists did not change since the last resolution: same kernel, no apt-cache call
	if [[ -f $CACHE/current ]]; then
		(
			. "$CACHE/current"
			[[ ${QRIG_LISTS:-} == "$stamp" && -f $QRIG_KDIR/vmlinux ]]
		) && {
			prepare_kernel_cached
			return 0
		}
	fi
	pkg=$(resolve_kernel_pkg || true)
	if [[ -z $pkg ]]; then
		as_root apt-get update -q >&2 || true
		pkg=$(resolve_kernel_pkg || true)
	fi
	if [[ -n $pkg ]]; then
		kver=${pkg#linux-image-}
		if ! fetch_kernel "$pkg"; then
			kver=
			log "warning: could not download $pkg"
		fi
	fi
	if [[ -z ${kver:-} ]]; then # offline: fall back to the kernel prepared last time
		[[ -f $CACHE/current ]] || die "cannot resolve or download a guest kernel"
		kver=$(sed -n 's/^QRIG_KVER=//p' "$CACHE/current")
		log "warning: using the cached kernel $kver"
	fi
	kdir=$CACHE/kernels/$kver
	initrd=$(build_initramfs "$kdir" "$kver")
	write_current "$kver" "$initrd" "$stamp"
	# prune kernels replaced more than two days ago (runs in flight may still use them)
	touch "$kdir"
	find "$CACHE/kernels" -mindepth 1 -maxdepth 1 -type d ! -name "$kver" -mtime +2 \
		-exec rm -rf {} + 2>/dev/null || true
}

# QEMU 10 (for FDP) from bookworm-backports, fetched with a private apt state directory: the
# host's apt configuration and package database are not touched, nothing is installed.
prepare_qemu10() {
	local B=$CACHE/bpo-apt tmp ver d
	if [[ -f $CACHE/qemu10/current ]]; then
		d=$(cat "$CACHE/qemu10/current")
		[[ -x $d/usr/bin/qemu-system-x86_64 ]] && return 0
	fi
	mkdir -p "$B/etc" "$B/lists/partial" "$B/cache/archives/partial"
	cat >"$B/etc/bpo.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	local O=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$B/etc"
		-o "Dir::State::Lists=$B/lists" -o "Dir::Cache=$B/cache")
	log "fetching QEMU 10 from bookworm-backports (private apt state in $B)"
	apt-get "${O[@]}" update -q >&2
	tmp=$(mktemp -d "$CACHE/tmp.qemu10.XXXXXX")
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get "${O[@]}" download -q qemu-system-x86/bookworm-backports \
		qemu-system-common/bookworm-backports qemu-system-data/bookworm-backports \
		seabios/bookworm-backports >&2 2>"$tmp/apt.err") ||
		{ cat "$tmp/apt.err" >&2; rm -rf "$tmp"; die "QEMU 10 download failed"; }
	ver=$(dpkg-deb -f "$tmp"/qemu-system-x86_*.deb Version)
	ver=${ver//[:~+]/_}
	d=$CACHE/qemu10/$ver
	for f in "$tmp"/*.deb; do dpkg-deb -x "$f" "$tmp/x"; done
	"$tmp/x/usr/bin/qemu-system-x86_64" --version >/dev/null ||
		die "the backports QEMU does not run on this host"
	rm -rf "$d"
	mkdir -p "$CACHE/qemu10"
	mv "$tmp/x" "$d"
	rm -rf "$tmp"
	echo "$d" >"$CACHE/qemu10/current"
}

with_lock() {
	mkdir -p "$CACHE"
	(
		flock 9
		"$@"
	) 9>"$CACHE/.lock"
}

prepare_all() {
	local fdp=$1
	prepare_packages
	prepare_kernel
	[[ $fdp == 0 ]] || prepare_qemu10
	rm -rf "$CACHE"/tmp.* 2>/dev/null || true
}

cmd_prepare() {
	local fdp=0
	while (($#)); do
		case $1 in
		--fdp) fdp=1 ;;
		*) QRIG_DIE_RC=2 die "prepare: unknown option $1" ;;
		esac
		shift
	done
	with_lock prepare_all "$fdp"
	. "$CACHE/current"
	log "ready: kernel $QRIG_KVER, initramfs ${QRIG_INITRD##*/}$([[ $fdp == 0 ]] || echo ", QEMU 10 $(cat "$CACHE/qemu10/current")")"
}

# Fast path for run: trust the cache if it is complete, else prepare under the lock
ensure_prepared() {
	local fdp=$1 ok=1
	if [[ -f $CACHE/current ]]; then
		. "$CACHE/current"
		[[ -f $QRIG_KDIR/vmlinux && -f $QRIG_INITRD && -x /bin/busybox ]] || ok=0
		command -v qemu-system-x86_64 >/dev/null || ok=0
	else
		ok=0
	fi
	if ((fdp)) && ! [[ -f $CACHE/qemu10/current && -x $(cat "$CACHE/qemu10/current")/usr/bin/qemu-system-x86_64 ]]; then
		ok=0
	fi
	if ((!ok)); then
		with_lock prepare_all "$fdp" >&2
		. "$CACHE/current"
	fi
	# the initramfs matching this rig.sh (another version may share the cache): build if missing
	QRIG_INITRD=$(initramfs_path "$QRIG_KDIR" "$QRIG_KVER")
	[[ -f $QRIG_INITRD ]] || QRIG_INITRD=$(with_lock build_initramfs "$QRIG_KDIR" "$QRIG_KVER")
}

prepare_kernel_cached() { # (re)build the initramfs for the current kernel, no network
	local initrd f
	. "$CACHE/current"
	initrd=$(build_initramfs "$QRIG_KDIR" "$QRIG_KVER")
	[[ $initrd == "$QRIG_INITRD" ]] || write_current "$QRIG_KVER" "$initrd" "${QRIG_LISTS:-0}"
	# drop initramfs images of older rig.sh versions after a day
	for f in "$QRIG_KDIR"/initramfs-*.cpio; do
		[[ $f == "$initrd" ]] || find "$f" -mtime +1 -delete 2>/dev/null || true
	done
}

# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------

usage_run() {
	cat >&2 <<'EOF'
usage: rig.sh run [options] -- <command...>
  --timeout S     whole-VM time limit in seconds (default $XNVME_QEMU_TIMEOUT or 600)
  --smp N         vCPUs (default 1; one NVMe I/O queue per vCPU)
  --mem MiB       guest RAM (default 1024)
  --fdp           add an FDP controller (serial qfdp0); uses QEMU 10 from bookworm-backports
  --slow          add a controller (serial qslow0) whose namespace completes every read and
                  write after $XNVME_QEMU_SLOW_LATENCY_MS ms (default 6000): timeout tests
  --vfio          add an emulated IOMMU (intel-iommu, intel_iommu=on iommu=pt) and a spare
                  controller (serial qspare0; nsid 1: 1 GiB, 512 B LBAs; nsid 2: 64 MiB, 4 KiB
                  LBAs; nsid 3: 32 MiB, 512 B LBAs + 8 B separate metadata; nsid 4: 128 MiB
                  zoned, 16 MiB zones; nsid 5: 32 MiB, PI type 1; XNVME_QEMU_SPARE_*)
                  for the vfio backend (tests/guest/vfio.sh); and a controller behind a hot-plug
                  port (serial qhot0, QEMU id nvmehot; 16 MiB, XNVME_QEMU_HOT_*) to remove
  --qmp SOCKET    also serve QEMU's QMP monitor on SOCKET (always on at <run dir>/qmp.sock)
                  The guest command asks for a QEMU device_del by writing a device id to
                  $XNVME_QEMU_DEVICE_DEL (rename a temp file onto it); the answer ("ok" or
                  "error: ...") appears in $XNVME_QEMU_DEVICE_DEL.done
  --workdir DIR   host directory shared read-write at the same path (default: cwd)
  --env K=V       export K=V for the command (repeatable)
  --kparam WORD   extra kernel command-line word, e.g. nvme.io_queue_depth=64 (repeatable)
  --no-poll       do not add nvme.poll_queues=1
  --keep          keep the per-run directory (images, console log, dmesg)
Namespace sizes (sparse image files): $XNVME_QEMU_NVM_SIZE (default 1G, nsid 1, 512 B LBAs),
$XNVME_QEMU_NVM4K_SIZE (default 256M, nsid 2, 4 KiB LBAs).
EOF
}

# role map: "serial:nsid=ROLE"; controllers: "serial=ENVPREFIX"
ROLES_BASE="qnvm0:1=NVM qnvm0:2=NVM4K qnvm0:3=PI qnvm0:4=ZNS"
CTRLS_BASE="qnvm0=XNVME_QEMU_"

RUN_DIR=
QEMU_PID=
FILTER_PID=
DEVDEL_PID=
KEEP=0
run_cleanup() {
	if [[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill -TERM "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
	fi
	if [[ -n $FILTER_PID ]]; then wait "$FILTER_PID" 2>/dev/null || true; fi
	if [[ -n $DEVDEL_PID ]]; then kill "$DEVDEL_PID" 2>/dev/null || true; fi
	if [[ -n $RUN_DIR ]]; then
		if ((KEEP)); then log "kept $RUN_DIR"; else rm -rf "$RUN_DIR"; fi
	fi
}

pick_accel() {
	local a=${XNVME_QEMU_ACCEL:-auto}
	if [[ $a == auto ]]; then
		a=tcg
		# KVM only on a real VT-x/AMD-V host (not PVM, which cannot run Debian kernels)
		if [[ -w /dev/kvm && ! -d /sys/module/kvm_pvm ]] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
			a=kvm
		fi
	fi
	case $a in
	kvm) echo "-accel kvm -cpu host" ;;
	tcg) echo "-accel tcg,thread=multi -cpu max" ;;
	*) die "XNVME_QEMU_ACCEL must be auto, tcg or kvm" ;;
	esac
}

ms() { local n=$(($1 / 1000000)); printf '%d.%03d' $((n / 1000)) $((n % 1000)); }

# One QMP command: device_del of the device id $2 on the socket $1; prints "ok" or "error: ..."
QMP_DEVDEL_PY='
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
json.loads(f.readline())
def cmd(c, **a):
    f.write(json.dumps(dict(execute=c, arguments=a)) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
cmd("qmp_capabilities")
r = cmd("device_del", id=sys.argv[2])
print("ok" if "return" in r else "error: " + r["error"].get("desc", "?"))
'

# Serves device_del requests of the guest (a device id in the control share's device_del file)
devdel_service() {
	local req=$RUN_DIR/ctl/device_del sock=$1 id
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		if [[ -s $req ]]; then
			id=$(<"$req")
			rm -f "$req"
			log "device_del $id (asked by the guest)"
			"$PY" -c "$QMP_DEVDEL_PY" "$sock" "$id" >"$req.tmp" 2>&1 || true
			mv "$req.tmp" "$req.done"
		fi
		sleep 0.2
	done
}

cmd_run() {
	local timeout=${XNVME_QEMU_TIMEOUT:-600} smp=1 mem=1024 fdp=0 workdir=$PWD poll=1 slow=0
	local vfio=0 qmp=
	local slow_ms=${XNVME_QEMU_SLOW_LATENCY_MS:-6000}
	local envs=() kparams=()
	while (($#)); do
		case $1 in
		--timeout | --smp | --mem | --workdir | --env | --kparam | --qmp)
			(($# >= 2)) || { usage_run; QRIG_DIE_RC=2 die "run: $1 needs a value"; } ;;&
		--timeout) timeout=$2; shift ;;
		--smp) smp=$2; shift ;;
		--mem) mem=$2; shift ;;
		--fdp) fdp=1 ;;
		--slow) slow=1 ;;
		--vfio) vfio=1 ;;
		--qmp) qmp=$2; shift ;;
		--workdir) workdir=$2; shift ;;
		--env) envs+=("$2"); shift ;;
		--kparam) kparams+=("$2"); shift ;;
		--no-poll) poll=0 ;;
		--keep) KEEP=1 ;;
		-h | --help) usage_run; exit 0 ;;
		--) shift; break ;;
		-*) usage_run; QRIG_DIE_RC=2 die "run: unknown option $1" ;;
		*) break ;;
		esac
		shift
	done
	(($#)) || { usage_run; QRIG_DIE_RC=2 die "run: no command"; }
	[[ $timeout =~ ^[0-9]+$ && $smp =~ ^[0-9]+$ && $mem =~ ^[0-9]+$ ]] ||
		QRIG_DIE_RC=2 die "run: --timeout/--smp/--mem take integers"
	[[ $slow_ms =~ ^[0-9]+$ ]] || QRIG_DIE_RC=2 die "XNVME_QEMU_SLOW_LATENCY_MS takes an integer"
	workdir=$(readlink -f "$workdir")
	[[ -d $workdir ]] || QRIG_DIE_RC=2 die "run: no directory $workdir"
	[[ $workdir != / ]] || QRIG_DIE_RC=2 die "run: the work directory cannot be /"

	QRIG_DIE_RC=$RIG_RC_FAIL ensure_prepared "$fdp"

	local qemu=qemu-system-x86_64 qemu_env=() q10=
	local qemu_l=()
	if ((fdp)); then
		q10=$(cat "$CACHE/qemu10/current")
		qemu=$q10/usr/bin/qemu-system-x86_64
		qemu_l=(-L "$q10/usr/share/seabios" -L "$q10/usr/share/qemu")
		qemu_env=(env "QEMU_MODULE_DIR=$q10/usr/lib/x86_64-linux-gnu/qemu")
	fi

	RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/xnvme-qemu-run.XXXXXX")
	trap run_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir "$RUN_DIR/ctl"
	local img=$RUN_DIR
	truncate -s "${XNVME_QEMU_NVM_SIZE:-1G}" "$img/nvm.img"
	truncate -s "${XNVME_QEMU_NVM4K_SIZE:-256M}" "$img/nvm4k.img"
	truncate -s 128M "$img/pi.img"
	truncate -s 256M "$img/zns.img"

	local roles=$ROLES_BASE ctrls=$CTRLS_BASE nns=4
	if ((fdp)); then
		truncate -s 1G "$img/fdp.img"
		roles+=" qfdp0:1=FDP"
		ctrls+=" qfdp0=XNVME_QEMU_FDP_"
		nns=5
	fi
	if ((slow)); then
		roles+=" qslow0:1=SLOW"
		ctrls+=" qslow0=XNVME_QEMU_SLOW_"
		nns=$((nns + 1))
	fi
	if ((vfio)); then
		truncate -s 1G "$img/spare.img"
		truncate -s 64M "$img/spare4k.img"
		truncate -s 32M "$img/sparemd.img"
		roles+=" qspare0:1=SPARE qspare0:2=SPARE4K qspare0:3=SPAREMD"
		ctrls+=" qspare0=XNVME_QEMU_SPARE_"
		nns=$((nns + 3))
		# the command sets over vfio: a zoned namespace (nsid 4) and one with PI (nsid 5)
		truncate -s 128M "$img/sparezns.img"
		truncate -s 32M "$img/sparepi.img"
		roles+=" qspare0:4=SPAREZNS qspare0:5=SPAREPI"
		nns=$((nns + 2))
		truncate -s 16M "$img/hot.img"
		roles+=" qhot0:1=HOT"
		ctrls+=" qhot0=XNVME_QEMU_HOT_"
		nns=$((nns + 1))
	fi

	local token="QRIG-$$-$RANDOM$RANDOM"
	{
		printf 'QRIG_MODDIR=%q\n' "$(readlink -f "$QRIG_KDIR/lib/modules")"
		printf 'QRIG_WORKDIR=%q\n' "$workdir"
		printf 'QRIG_NS=%q\nQRIG_ROLES=%q\nQRIG_CTRLS=%q\nQRIG_TOKEN=%q\n' \
			"$nns" "$roles" "$ctrls" "$token"
	} >"$RUN_DIR/ctl/config"

	# the guest command; a guest-side timeout leaves time to collect dmesg (exit code 124)
	local gt=$((timeout - 30)) e
	{
		echo "# generated by rig.sh"
		for e in "${envs[@]}"; do
			[[ $e == *=* ]] || QRIG_DIE_RC=2 die "run: --env takes K=V"
			printf 'export %q=%q\n' "${e%%=*}" "${e#*=}"
		done
		if ((slow)); then printf 'export XNVME_QEMU_SLOW_LATENCY_MS=%d\n' "$slow_ms"; fi
		echo 'export XNVME_QEMU_DEVICE_DEL=/run/qrig/device_del'
		printf 'cd -- %q || exit 126\n' "$workdir"
		if ((gt >= 30)); then printf 'timeout -k 5 %d ' "$gt"; fi
		printf '%q ' "$@"
		echo
	} >"$RUN_DIR/ctl/cmd.sh"

	# cryptomgr.notests, initcall_blacklist=crypto_kdf108_init: no crypto self-tests;
	# rodata=off: no W+X page-table walk (all slow under TCG, ~0.4 s together)
	local append="console=ttyS0 quiet loglevel=4 panic=-1 8250.nr_uarts=1 mitigations=off"
	append+=" tsc=reliable cryptomgr.notests rodata=off initcall_blacklist=crypto_kdf108_init"
	# multipath off: QEMU 10 sets CMIC (multi-controller) even without a subsystem and the
	# kernel would then put multipath head disks (no zone limits in sysfs on 6.1) in front
	# of the namespaces; off, both QEMU versions give the same per-controller devices.
	append+=" nvme_core.multipath=N"
	# lets the tests read controller registers from resource0 while nvme owns the device
	append+=" iomem=relaxed"
	((poll)) && append+=" nvme.poll_queues=1"
	# no_timer_check: under a loaded TCG host the boot-time timer probe through the remapped
	# IO-APIC can miss its window, and with interrupt remapping on the kernel then panics
	((vfio)) && append+=" intel_iommu=on iommu=pt no_timer_check"
	((${#kparams[@]})) && append+=" ${kparams[*]}"

	local vfs="security_model=none"
	# shellcheck disable=SC2207
	# qboot (a minimal firmware shipped with QEMU) boots ~0.3 s faster than SeaBIOS under TCG;
	# XNVME_QEMU_BIOS=seabios selects QEMU's default firmware
	local bios=${XNVME_QEMU_BIOS:-qboot.rom} datadir=/usr/share/qemu bios_opt=()
	((fdp)) && datadir=$q10/usr/share/qemu
	if [[ $bios != seabios ]]; then
		[[ $bios == /* || -f $datadir/$bios ]] && bios_opt=(-bios "$bios")
	fi
	local machine=q35
	((vfio)) && machine+=,kernel-irqchip=split # interrupt remapping of the IOMMU
	local Q=("${qemu_env[@]}" "$qemu" "${qemu_l[@]}" "${bios_opt[@]}" $(pick_accel)
		-M "$machine" -m "$mem" -smp "$smp" -nodefaults -display none -no-reboot -monitor none
		-qmp "unix:$RUN_DIR/qmp.sock,server=on,wait=off"
		-chardev "file,id=con,path=$RUN_DIR/console.log" -serial chardev:con
		-device virtio-serial-pci,id=vser -chardev "pipe,id=out,path=$RUN_DIR/out"
		-device virtserialport,bus=vser.0,chardev=out,name=qrig.out
		-kernel "$QRIG_KDIR/vmlinux" -initrd "$QRIG_INITRD" -append "$append"
		-virtfs "local,path=$RUN_DIR/ctl,mount_tag=qrigctl,$vfs"
		-virtfs "local,path=/,mount_tag=hostroot,$vfs,readonly=on,multidevs=remap"
		-virtfs "local,path=$workdir,mount_tag=qrigwork,$vfs,multidevs=remap")
	# an emulated IOMMU for vfio-pci, before the NVMe controllers
	((vfio)) && Q+=(-device intel-iommu,intremap=on,caching-mode=on)
	local d
	for d in nvm nvm4k pi zns; do
		Q+=(-drive "file=$img/$d.img,if=none,id=$d,format=raw,cache=unsafe")
	done
	Q+=(-device nvme,id=nvme0,serial=qnvm0,mdts=7,zoned.zasl=5
		-device nvme-ns,drive=nvm,bus=nvme0,nsid=1,logical_block_size=512,physical_block_size=512
		-device nvme-ns,drive=nvm4k,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096
		-device nvme-ns,drive=pi,bus=nvme0,nsid=3,logical_block_size=512,physical_block_size=512,ms=8,mset=0,pi=1,pil=0
		-device nvme-ns,drive=zns,bus=nvme0,nsid=4,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=16M,zoned.zone_capacity=12M,zoned.max_open=8,zoned.max_active=12)
	if ((fdp)); then
		Q+=(-drive "file=$img/fdp.img,if=none,id=fdp,format=raw,cache=unsafe"
			-device nvme-subsys,id=fdpsubsys,nqn=qfdpsubsys,fdp=on,fdp.runs=32M,fdp.nrg=1,fdp.nruh=8
			-device nvme,id=nvme1,serial=qfdp0,subsys=fdpsubsys,mdts=7
			-device nvme-ns,drive=fdp,bus=nvme1,nsid=1,logical_block_size=512,physical_block_size=512,fdp.ruhs=0-7)
	fi
	if ((slow)); then
		# A device that answers late: every read/write/flush of the null block driver completes
		# after the latency (reads return zeroes, writes are dropped). Its own controller, so
		# the controller reset that follows a timeout leaves the other namespaces alone. 8 KiB
		# LBAs: the 6.1 kernel gives a namespace with LBAs larger than a page a block device of
		# capacity 0, so it never reads the namespace itself (no partition scan stalled on the
		# latency); commands reach it through the generic char device.
		Q+=(-blockdev "driver=null-co,node-name=slow,size=$((64 << 20)),read-zeroes=on,latency-ns=$((slow_ms * 1000000))"
			-device nvme,id=nvmeslow,serial=qslow0,mdts=7
			-device nvme-ns,drive=slow,bus=nvmeslow,nsid=1,logical_block_size=8192,physical_block_size=8192)
	fi
	if ((vfio)); then
		# the spare controller for the user-space driver, last: the others keep their order
		Q+=(-drive "file=$img/spare.img,if=none,id=spare,format=raw,cache=unsafe"
			-device nvme,id=nvmespare,serial=qspare0,mdts=7
			-device nvme-ns,drive=spare,bus=nvmespare,nsid=1,logical_block_size=512,physical_block_size=512
			-drive "file=$img/spare4k.img,if=none,id=spare4k,format=raw,cache=unsafe"
			-device nvme-ns,drive=spare4k,bus=nvmespare,nsid=2,logical_block_size=4096,physical_block_size=4096
			-drive "file=$img/sparemd.img,if=none,id=sparemd,format=raw,cache=unsafe"
			-device nvme-ns,drive=sparemd,bus=nvmespare,nsid=3,logical_block_size=512,physical_block_size=512,ms=8,mset=0
			-drive "file=$img/sparezns.img,if=none,id=sparezns,format=raw,cache=unsafe"
			-device nvme-ns,drive=sparezns,bus=nvmespare,nsid=4,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=16M,zoned.zone_capacity=12M,zoned.max_open=4,zoned.max_active=6
			-drive "file=$img/sparepi.img,if=none,id=sparepi,format=raw,cache=unsafe"
			-device nvme-ns,drive=sparepi,bus=nvmespare,nsid=5,logical_block_size=512,physical_block_size=512,ms=8,mset=0,pi=1,pil=0)
		# a controller QEMU can take away (device_del) while the driver uses it: a root port's
		# slot is hot-pluggable, the root bus is not
		Q+=(-device pcie-root-port,id=rphot,chassis=9,slot=9
			-drive "file=$img/hot.img,if=none,id=hot,format=raw,cache=unsafe"
			-device nvme,id=nvmehot,serial=qhot0,mdts=7,bus=rphot
			-device nvme-ns,drive=hot,bus=nvmehot,nsid=1,logical_block_size=512,physical_block_size=512)
	fi
	[[ -z $qmp ]] || Q+=(-qmp "unix:$qmp,server=on,wait=off")
	printf '%q ' "${Q[@]}" >"$RUN_DIR/qemu.cmdline"

	# live output: the command's output arrives on its own virtio-serial port (QEMU's stdout),
	# framed by start/end markers; the kernel console (ttyS0) goes to console.log
	local awk_cmd=(awk)
	command -v mawk >/dev/null && awk_cmd=(mawk -W interactive)
	mkfifo "$RUN_DIR/out.in" "$RUN_DIR/out.out"
	"${awk_cmd[@]}" -v tok="$token" -v up="$RUN_DIR/boot" -v ack="$RUN_DIR/out.in" '
		{
			if (!on) {
				if (index($0, tok ":BEGIN:") == 1) {
					on = 1; "date +%s%N" | getline tb; close("date +%s%N")
					print substr($0, length(tok) + 8), tb > up; close(up)
				}
				next
			}
			i = index($0, tok ":END:")
			if (i) {
				if (i > 1) { print substr($0, 1, i - 1); fflush() }
				"date +%s%N" | getline te; close("date +%s%N")
				print te >> up; close(up)
				print "ack" > ack; close(ack)
				on = 0; next
			}
			print; fflush()
		}' <"$RUN_DIR/out.out" &
	FILTER_PID=$!

	local t0 t1 qrc=0 rc
	t0=$(date +%s%N)
	timeout -k 10 "$timeout" "${Q[@]}" </dev/null >"$RUN_DIR/qemu.out" 2>"$RUN_DIR/qemu.err" &
	QEMU_PID=$!
	devdel_service "$RUN_DIR/qmp.sock" &
	DEVDEL_PID=$!
	wait "$QEMU_PID" || qrc=$?
	QEMU_PID=
	wait "$FILTER_PID" || true
	FILTER_PID=
	t1=$(date +%s%N)

	local boot=? up tb te times=
	if [[ -s $RUN_DIR/boot ]]; then
		{ read -r up tb; read -r te || te=; } <"$RUN_DIR/boot"
		boot=$(ms $((tb - t0)))
		times=" (guest uptime ${up}s), command $(ms $((${te:-$t1} - tb)))s, poweroff $(ms $((t1 - ${te:-$t1})))s"
	fi
	if [[ -s $RUN_DIR/ctl/rc ]]; then
		rc=$(cat "$RUN_DIR/ctl/rc")
		[[ $rc =~ ^[0-9]+$ ]] || rc=$RIG_RC_FAIL
		if [[ $rc == 124 ]] && ((gt >= 30)); then
			log "the guest command timed out after ${gt}s; dmesg tail:"
			tail -n 40 "$RUN_DIR/ctl/dmesg" >&2 || true
		fi
		if [[ ! -s $RUN_DIR/boot ]]; then
			log "the output port did not come up; the command's output went to the console:"
			cat "$RUN_DIR/console.log" >&2 || true
		fi
		log "guest exit $rc: boot ${boot}s${times}, total $(ms $((t1 - t0)))s"
	else
		rc=$RIG_RC_FAIL
		{
			echo "qrig: the guest did not report an exit code (qemu/timeout status $qrc$([[ $qrc == 124 ]] && echo ", timed out after ${timeout}s"))"
			echo "qrig: ---- qemu stderr ----"
			cat "$RUN_DIR/qemu.err" 2>/dev/null || true
			echo "qrig: ---- serial console ----"
			cat "$RUN_DIR/console.log" 2>/dev/null || true
			if [[ -s $RUN_DIR/ctl/dmesg ]]; then
				echo "qrig: ---- dmesg ----"
				cat "$RUN_DIR/ctl/dmesg"
			fi
			echo "qrig: ---- end ----"
		} >&2
	fi
	return "$rc"
}

# --------------------------------------------------------------------------------------------
# selftest
# --------------------------------------------------------------------------------------------

cmd_selftest() {
	local args=() wd
	while (($#)); do
		case $1 in
		--fdp) args+=(--fdp) ;;
		--smp | --timeout) args+=("$1" "$2"); shift ;;
		*) QRIG_DIE_RC=2 die "selftest: unknown option $1" ;;
		esac
		shift
	done
	wd=$(mktemp -d "${TMPDIR:-/tmp}/xnvme-qemu-selftest.XXXXXX")
	local rc=0
	(cmd_run --timeout 300 "${args[@]}" --workdir "$wd" -- bash "$SELF" __guest_selftest) || rc=$?
	rm -rf "$wd"
	if ((rc == 0)); then log "selftest PASSED"; else log "selftest FAILED (rc $rc)"; fi
	return "$rc"
}

# Runs inside the guest. Few processes: each exec of a dynamic binary costs ~50-100 ms under TCG.
guest_selftest() {
	set +e
	local fails=0 r v out
	pass() { echo "PASS  $*"; }
	fail() { echo "FAIL  $*"; fails=$((fails + 1)); }
	check() { # check <description> <command...>
		local d=$1; shift
		if "$@"; then pass "$d"; else fail "$d"; fi
	}
	is() { local x; read -r x <"$2" && [[ $x == "$1" ]]; } # is <value> <file>
	has() { [[ $2 =~ $1 ]]; }                              # has <regex> <text>

	[[ ${XNVME_QEMU_GUEST:-} == 1 ]] || { echo "FAIL  not in the guest"; return 1; }
	for v in ${!XNVME_QEMU_*}; do echo "$v=${!v}"; done
	for r in NVM NVM4K PI ZNS ${XNVME_QEMU_FDP_CTRLR:+FDP}; do
		local b=XNVME_QEMU_${r}_BLK c=XNVME_QEMU_${r}_CHR
		check "$r: block ${!b:-unset}" test -b "${!b:-/nonexistent}"
		check "$r: char ${!c:-unset}" test -c "${!c:-/nonexistent}"
	done
	check "controller ${XNVME_QEMU_CTRLR:-unset}" test -c "${XNVME_QEMU_CTRLR:-/nonexistent}"
	check "PCI BDF ${XNVME_QEMU_PCI_BDF:-unset}" test -e "/sys/bus/pci/devices/${XNVME_QEMU_PCI_BDF:-x}"

	out=$(nvme list 2>&1); echo "$out"
	check "nvme list shows the 4 qnvm0 namespaces" \
		has "(ng[0-9]+n[1-4] +qnvm0 .*){4}" "${out//$'\n'/ }"

	out=$(nvme id-ctrl "$XNVME_QEMU_CTRLR" 2>&1)
	check "id-ctrl: serial qnvm0" has $'(^|\n)sn +: qnvm0' "$out"
	check "id-ctrl: mdts 7" has $'(^|\n)mdts +: 7\n' "$out"

	idns() { # idns <role> <ms> <lbads>: the LBA format in use
		local dev=XNVME_QEMU_${1}_CHR
		out=$(nvme id-ns "${!dev}" 2>&1)
		check "$1 id-ns: in-use LBA format ms:$2 lbads:$3" \
			has "lbaf +[0-9]+ : ms:$2 +lbads:$3 [^"$'\n'"]*in use" "$out"
	}
	idns NVM 0 9
	idns NVM4K 0 12
	idns ZNS 0 12
	idns PI 8 9
	check "PI id-ns: flbas 0x1 (separate metadata)" has $'(^|\n)flbas +: 0x1\n' "$out"
	check "PI id-ns: dps 0x1 (type 1, PI in the last 8 B)" has $'(^|\n)dps +: 0x1\n' "$out"

	local sb=/sys/block pib=${XNVME_QEMU_PI_BLK##*/} zb=${XNVME_QEMU_ZNS_BLK##*/}
	local nb=${XNVME_QEMU_NVM_BLK##*/}
	check "NVM: logical block 512" is 512 "$sb/$nb/queue/logical_block_size"
	check "NVM4K: logical block 4096" is 4096 "$sb/${XNVME_QEMU_NVM4K_BLK##*/}/queue/logical_block_size"
	check "PI: kernel integrity T10-DIF-TYPE1-CRC" is T10-DIF-TYPE1-CRC "$sb/$pib/integrity/format"
	check "poll queues: io_poll on $nb" is 1 "$sb/$nb/queue/io_poll"
	out=$(dmesg)
	check "poll queues: dmesg shows 1 poll queue" \
		has "${XNVME_QEMU_CTRLR##*/}: [0-9]+/[0-9]+/1 default/read/poll queues" "$out"

	# write/read through the block layer (O_DIRECT), then through the passthrough char device
	head -c 1048576 /dev/urandom >/tmp/pat
	io() { # io <dev> <bs>: 1 MiB at offset 4 MiB
		dd if=/tmp/pat of="$1" bs="$2" seek=$((4194304 / $2)) oflag=direct conv=fsync status=none &&
			dd if="$1" of=/tmp/back bs="$2" skip=$((4194304 / $2)) count=$((1048576 / $2)) \
				iflag=direct status=none && cmp -s /tmp/pat /tmp/back
	}
	check "NVM: dd write/read 1 MiB O_DIRECT" io "$XNVME_QEMU_NVM_BLK" 512
	check "NVM4K: dd write/read 1 MiB O_DIRECT" io "$XNVME_QEMU_NVM4K_BLK" 4096
	check "PI: dd write/read 1 MiB O_DIRECT (kernel-generated PI)" io "$XNVME_QEMU_PI_BLK" 4096
	check "NVM: nvme read (passthrough) returns the dd data" eval \
		'nvme read "$XNVME_QEMU_NVM_CHR" -s 8192 -c 7 -z 4096 -d /tmp/rd >/dev/null 2>&1 &&
		cmp -s -n 4096 /tmp/rd /tmp/pat'

	# zoned namespace
	check "ZNS: host-managed" is host-managed "$sb/$zb/queue/zoned"
	check "ZNS: 16 zones" is 16 "$sb/$zb/queue/nr_zones"
	check "ZNS: zone size 16 MiB" is 32768 "$sb/$zb/queue/chunk_sectors"
	check "ZNS: max open 8" is 8 "$sb/$zb/queue/max_open_zones"
	check "ZNS: max active 12" is 12 "$sb/$zb/queue/max_active_zones"
	out=$(nvme zns id-ns "$XNVME_QEMU_ZNS_CHR" 2>&1)
	check "ZNS id-ns: mar 0xb, mor 0x7 (0-based)" has $'mar +: 0xb\nmor +: 0x7\n' "$out"
	check "ZNS: write 64 KiB at zone 1 start" dd if=/tmp/pat of="$XNVME_QEMU_ZNS_BLK" bs=65536 \
		count=1 seek=256 oflag=direct status=none
	out=$(nvme zns report-zones "$XNVME_QEMU_ZNS_CHR" -d 2 2>&1); echo "$out"
	check "ZNS: zone capacity 0xc00 LBAs (12 MiB) < zone size 0x1000 LBAs (16 MiB)" \
		has $'SLBA: 0 +WP: 0 +Cap: 0xc00 .*\nSLBA: 0x1000 ' "$out"
	check "ZNS: zone 1 write pointer advanced by 16 LBAs" has 'SLBA: 0x1000 +WP: 0x1010 ' "$out"
	check "ZNS: reset zone 1" eval 'nvme zns reset-zone "$XNVME_QEMU_ZNS_CHR" -s 0x1000 >/dev/null'

	if [[ -n ${XNVME_QEMU_FDP_CTRLR:-} ]]; then
		out=$(nvme id-ctrl "$XNVME_QEMU_FDP_CTRLR" 2>&1)
		local ctratt=0
		[[ $out =~ $'\n'ctratt\ +:\ (0x[0-9a-f]+) ]] && ctratt=${BASH_REMATCH[1]}
		check "FDP: ctratt $ctratt has bit 19 (FDP)" test "$(((ctratt >> 19) & 1))" -eq 1
		check "FDP: write with placement handle 3" eval 'nvme write "$XNVME_QEMU_FDP_CHR" -s 0 \
			-c 7 -z 4096 -d /tmp/pat --dir-type=2 --dir-spec=3 >/dev/null 2>&1'
		out=$(nvme fdp status "$XNVME_QEMU_FDP_CHR" 2>&1)
		check "FDP: RUH status lists 8 handles" \
			has "(Reclaim Unit Handle Identifier [0-7].*){8}" "${out//$'\n'/ }"
		check "FDP: the write consumed handle 3 only (RUAMW 65528 of 65536)" \
			has "Identifier 3"$'\n[^\n]*\n[^\n]*RUAMW\\): 65528\n.*'"Identifier 4"$'\n[^\n]*\n[^\n]*RUAMW\\): 65536\n' "$out"
	fi

	echo "selftest: $fails failure(s)"
	((fails == 0))
}

cmd_clean() {
	[[ -d $CACHE ]] || return 0
	with_lock true
	rm -rf "$CACHE"
	log "removed $CACHE"
}

main() {
	local sub=${1:-}
	(($#)) && shift
	case $sub in
	prepare) cmd_prepare "$@" ;;
	run) cmd_run "$@" ;;
	selftest) cmd_selftest "$@" ;;
	clean) cmd_clean ;;
	__guest_selftest) guest_selftest ;;
	*)
		sed -n '2,11p' "$SELF" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
}

main "$@"
