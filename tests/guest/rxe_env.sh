# Soft-RoCE for tests and benchmarks inside the QEMU guest (sourced, bash): an rxe device on
# one end of a veth pair that carries an address existing only inside the guest. rxe does not
# bind to lo, and needs the crc32 hash (nothing in the rig's init loads it).
#   rxe_up [ADDR]    (default 10.77.0.1; prints nothing, returns non-zero on failure)
#   rxe_down         (removes the rxe link and the veth pair)
# Sets RXE_ADDR and RXE_DEV (rxe0). On real RDMA hardware none of this is needed: the target
# listens on the address of an RDMA-capable interface.
RXE_DEV=rxe0
RXE_ADDR=${RXE_ADDR:-10.77.0.1}

rxe_up() {
	RXE_ADDR=${1:-$RXE_ADDR}
	modprobe crc32_generic 2>/dev/null
	modprobe rdma_rxe && modprobe veth && modprobe rdma_ucm || return 1
	# local traffic (a TCP connection attempt to the address, the tcp backend's, is refused
	# at once instead of waiting out its timeout)
	ip link set lo up
	ip link show xrxe0 >/dev/null 2>&1 || ip link add xrxe0 type veth peer name xrxe1 || return 1
	ip addr add "$RXE_ADDR/24" dev xrxe0 2>/dev/null
	ip link set xrxe0 up && ip link set xrxe1 up || return 1
	rdma link show "$RXE_DEV/1" >/dev/null 2>&1 ||
		rdma link add "$RXE_DEV" type rxe netdev xrxe0 || return 1
	[ -e /dev/infiniband/rdma_cm ]
}

rxe_down() {
	rdma link delete "$RXE_DEV" 2>/dev/null
	ip link delete xrxe0 2>/dev/null
	return 0
}
