# shellcheck shell=bash
# Sourced by scripts/wine_test.sh: runs the cross-built tools under Wine on the ramdisk and on
# files (Z:<unix path>). Expects $build, the Wine environment and tally() (which counts into
# $p and $f); $tools is the directory of the .exe files (default: the build's).
tools=${tools:-$build/tools}
tdir="$build/tools-run"
rm -rf "$tdir"
mkdir -p "$tdir"
timg="$tdir/dev.img"
truncate -s 16M "$timg"

# tool_run NAME EXPECTED_RC PATTERN|- EXE ARGS...: the exit status must be EXPECTED_RC and, unless
# PATTERN is -, stdout+stderr must match the extended regular expression PATTERN
tool_run() {
	local name=$1 want=$2 pat=$3 exe=$4 rc
	shift 4
	timeout 60 wine64 "$tools/$exe.exe" "$@" >"$tdir/out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] && { [ "$pat" = - ] || grep -qE "$pat" "$tdir/out"; }
	tally $? "tools $name" "tools $name (exit $rc, want $want; pattern '$pat'): $exe $*" "$tdir/out"
}
# tool_same NAME A B: files A and B must hold the same bytes
tool_same() {
	cmp -s "$2" "$3"
	tally $? "tools $1" "tools $1: $2 and $3 differ"
}

tool_run "info ramdisk" 0 "name: 'ramdisk'" xnvme info 1GB
tool_run "info file" 0 "be: 'windows'" xnvme info "Z:$timg"
# The file command set counts bytes: nsze is the file size
tool_run "idfy-ns file" 0 "nsze: 16777216" xnvme idfy-ns "Z:$timg"
tool_run "idfy-ctrlr ramdisk" 0 "mdts:" xnvme idfy-ctrlr 1GB
# Wine has no NVMe disk: enumeration lists nothing, admin nvme on \\.\PhysicalDrive0 is refused
# with the reason, and by default the disk is served by its geometry (admin block)
tool_run "enum lists nothing" 0 "xnvme_cli_enumeration: \\[\\]" xnvme enum
tool_run "PhysicalDrive0 nvme refused" 1 "answers no NVMe Identify.*errno: -40," xnvme info '\\.\PhysicalDrive0' --admin nvme
tool_run "PhysicalDrive0 by geometry" 0 "admin: 'block'" xnvme info '\\.\PhysicalDrive0'
tool_run "block refuses files" 1 "needs a disk" xnvme info "Z:$timg" --admin block
tool_run "missing disk refused" 1 "no such disk.*errno: -19," xnvme idfy-ctrlr '\\.\PhysicalDrive63'
tool_run "library-info" 0 "XNVME_BE_WINDOWS_ENABLED" xnvme library-info
tool_run "help names this build's mechanisms" 0 "Queue mechanism: emu, thrpool, iocp, iocp_th, io_ring, nil .windows." lblk write --help

# Data through files in both directions: a written range read back, and the image checked
head -c 8192 /dev/urandom >"$tdir/in.bin"
tool_run "lblk write file" 0 - lblk write "Z:$timg" --slba 0x10 --nlb 15 --data-input "Z:$tdir/in.bin"
tool_run "lblk read file" 0 - lblk read "Z:$timg" --slba 0x10 --nlb 15 --data-output "Z:$tdir/out.bin"
tool_same "lblk read returns the written data" "$tdir/in.bin" "$tdir/out.bin"
dd if="$timg" of="$tdir/img.bin" bs=512 skip=16 count=16 status=none
tool_same "lblk write reached the file at slba 0x10" "$tdir/in.bin" "$tdir/img.bin"
# The ramdisk lives in one process: write, read back and compare in one run
tool_run "xnvme_file write-read ramdisk" 0 - xnvme_file write-read 1GB 1048576
tool_run "xnvme_file write-read file iocp" 0 - xnvme_file write-read "Z:$tdir/wr.bin" 1048576 --async iocp
head -c 3000000 /dev/urandom >"$tdir/src.bin"
tool_run "xnvme_file copy-async iocp" 0 - xnvme_file copy-async "Z:$tdir/src.bin" "Z:$tdir/dst.bin" --async iocp
tool_same "xnvme_file copy-async copied the bytes" "$tdir/src.bin" "$tdir/dst.bin"
# xdd between files through queues (iocp_th), compared
tool_run "xdd async iocp_th" 0 - xdd async --data-input "Z:$tdir/src.bin" --data-output "Z:$tdir/xdd.bin" --data-nbytes 3000000 --iosize 65536 --async iocp_th
tool_same "xdd async copied the bytes" "$tdir/src.bin" "$tdir/xdd.bin"
# zoned and key-value namespaces of the ramdisk
tool_run "zoned report" 0 "nzones: 512" zoned report "1GB?csi=zoned,zsze=4096" --limit 2
tool_run "kvs idfy-ns" 0 "xnvme_spec_kvs_idfy_ns" kvs idfy-ns "1GB?csi=kv"

# xnvmeperf: a fixed count of mixed I/O, queued (iocp, thrpool) and synchronous
tool_run "xnvmeperf file iocp" 0 '"ios": 800, .*"errors": 0' xnvmeperf --rw randrw --qdepth 8 --count 800 --async iocp --json "Z:$timg"
tool_run "xnvmeperf file iocp_th" 0 '"ios": 800, .*"errors": 0' xnvmeperf --rw randrw --qdepth 8 --count 800 --async iocp_th --json "Z:$timg"
tool_run "xnvmeperf ramdisk thrpool" 0 '"ios": 800, .*"errors": 0' xnvmeperf --rw randrw --qdepth 4 --count 800 --async thrpool --json 1GB
tool_run "xnvmeperf file sync" 0 '"ios": 200, .*"errors": 0' xnvmeperf --rw randread --qdepth 0 --count 200 --json "Z:$timg"

# Errors: exit status and the error line
tool_run "missing file fails" 1 "errno: -2," lblk read "Z:$tdir/missing.img" --slba 0 --nlb 0
tool_run "input == output refused" 1 "are the same file" lblk read "Z:$timg" --slba 0 --nlb 0 --data-output "Z:$timg"
tool_run "Linux mechanism refused" 1 "no async mechanism named ''io_uring''.*errno: -40," xnvme info "Z:$timg" --async io_uring
tool_run "io_ring refused with the reason" 1 "no IoRing API .CreateIoRing is missing.*errno: -40," xnvme info "Z:$timg" --async io_ring
tool_run "write beyond the end fails" 1 "ERR" lblk write "Z:$timg" --slba 0x8000 --nlb 0
tool_run "xnvmeperf usage error" 2 "unknown option" xnvmeperf --bogus
tool_run "unknown subcommand" 2 - xnvme no-such-command
