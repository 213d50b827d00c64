#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A fault-injecting NVMe/TCP proxy in front of a real target, and the hostile-target cases.

The proxy listens on 127.0.0.1:<listen port> and forwards every connection to the target,
splitting both byte streams at PDU boundaries (the common header's PLEN). Host to controller it
notes the CID of a Read of 128 blocks (the one 64 KiB read of test_tcp_proxy); controller to
host it corrupts the C2HData PDU of that CID once, as the case says, then forwards unchanged:

  truncated   PLEN shorter than the PDU header
  short-data  half of the data, then the following PDUs (the stream loses its framing)
  oversized   PLEN of 2 GiB
  unknown-cid the data for a CID that is not outstanding
  bad-hdgst   a wrong header digest (header digests negotiated)
  bad-ddgst   a wrong data digest (data digests negotiated)
  c2h-offset  data at an offset past the command's buffer
  c2h-length  4 KiB more data than the command transfers (PLEN grown to match)
  drop        header and half the data, then both connections closed
  stall       nothing more on that connection (the command timeout must end it)
  silent      from that read's capsule on, nothing from the target on that connection: the
              program waits on the completion fd with poll(fd, -1) alone, which must wake
              at the command timeout

For every case it runs `test_tcp_proxy <uri> <subnqn> <case>` (build dir argument), which checks
that the affected command fails, the queue reports an error, nothing hangs, and a fresh
connection reads back what it wrote; a case also fails when the fault was never injected.

  usage: tcp_fault_proxy.py <test_tcp_proxy binary> <target port> <listen port> <subnqn> [case...]
Exit 0 pass, 1 fail.
"""
import socket
import struct
import subprocess
import sys
import threading
import time

CASES = {
    # name: URI query (digests the case needs)
    "truncated": "",
    "short-data": "",
    "oversized": "",
    "unknown-cid": "",
    "bad-hdgst": "?hdgst=1",
    "bad-ddgst": "?ddgst=1",
    "c2h-offset": "",
    "c2h-length": "",
    "drop": "",
    "stall": "",
    "silent": "",
}
PDU_CAPSULE_CMD = 4
PDU_C2H_DATA = 7
NVM_OPC_READ = 2
CASE_TIMEOUT_S = 60


class Conn:
    """What both directions of one proxied connection share"""

    def __init__(self):
        self.reads = set()  # CIDs of the 64 KiB read
        self.silent = False  # swallow everything the target sends


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.fault = None
        self.fired = False


STATE = State()


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def pdus(sock):
    """Yields whole PDUs (ICReq/ICResp are 128-byte PDUs like any other)"""
    while True:
        ch = recv_exact(sock, 8)
        if ch is None:
            return
        plen = struct.unpack_from("<I", ch, 4)[0]
        rest = recv_exact(sock, plen - 8) if plen > 8 else b""
        if rest is None:
            return
        yield ch + rest


def close_both(a, b):
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def inject(pdu, fault, out, host, target):
    """Sends the corrupted PDU; returns False when the connection must end or stall here"""
    p = bytearray(pdu)
    hlen, pdo = p[2], p[3]
    datal = len(p) - pdo - (4 if p[1] & 0x02 else 0)
    if fault == "truncated":
        struct.pack_into("<I", p, 4, 16)
    elif fault == "short-data":
        p = p[: pdo + datal // 2]
    elif fault == "oversized":
        struct.pack_into("<I", p, 4, 0x80000000)
    elif fault == "unknown-cid":
        struct.pack_into("<H", p, 8, 0xBEEF)
    elif fault == "bad-hdgst":
        p[hlen] ^= 0x01
    elif fault == "bad-ddgst":
        p[-1] ^= 0x01
    elif fault == "c2h-offset":
        struct.pack_into("<I", p, 12, struct.unpack_from("<I", p, 12)[0] + 4096)
    elif fault == "c2h-length":
        struct.pack_into("<I", p, 4, len(p) + 4096)
        struct.pack_into("<I", p, 16, struct.unpack_from("<I", p, 16)[0] + 4096)
        p += bytes(4096)
    elif fault == "drop":
        out.sendall(bytes(p[: pdo + datal // 2]))
        time.sleep(0.05)
        close_both(host, target)
        return False
    elif fault == "stall":
        return False
    out.sendall(bytes(p))
    return True


def pump(src, dst, host, target, to_host, conn):
    try:
        for pdu in pdus(src):
            if not to_host:
                if pdu[0] == PDU_CAPSULE_CMD and pdu[8] == NVM_OPC_READ:
                    nlb = struct.unpack_from("<H", pdu, 8 + 48)[0]
                    if nlb == 127:
                        conn.reads.add(struct.unpack_from("<H", pdu, 10)[0])
                        with STATE.lock:
                            if STATE.fault == "silent" and not STATE.fired:
                                STATE.fired = conn.silent = True
                dst.sendall(pdu)
                continue
            if conn.silent:
                continue
            if pdu[0] == PDU_C2H_DATA and struct.unpack_from("<H", pdu, 8)[0] in conn.reads:
                with STATE.lock:
                    fault = None if STATE.fired or STATE.fault == "silent" else STATE.fault
                    STATE.fired = STATE.fired or fault is not None
                if fault and not inject(pdu, fault, dst, host, target):
                    # stall: swallow everything until the host gives up and closes
                    for _ in pdus(src):
                        pass
                    break
                if fault:
                    continue
            dst.sendall(pdu)
    except OSError:
        pass
    close_both(host, target)


def serve(listener, target_port):
    while True:
        host, _ = listener.accept()
        try:
            target = socket.create_connection(("127.0.0.1", target_port))
        except OSError:
            host.close()
            continue
        for s in (host, target):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = Conn()
        for args in ((host, target, False), (target, host, True)):
            threading.Thread(
                target=pump, args=(args[0], args[1], host, target, args[2], conn), daemon=True
            ).start()


def main():
    if len(sys.argv) < 5:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 1
    prog, target_port, listen_port, subnqn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    cases = sys.argv[5:] or list(CASES)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", listen_port))
    listener.listen(16)
    threading.Thread(target=serve, args=(listener, target_port), daemon=True).start()

    failed = []
    for name in cases:
        with STATE.lock:
            STATE.fault, STATE.fired = name, False
        uri = "127.0.0.1:%d%s" % (listen_port, CASES[name])
        t0 = time.monotonic()
        try:
            res = subprocess.run([prog, uri, subnqn, name], capture_output=True, text=True,
                                 timeout=CASE_TIMEOUT_S)
            rc, out = res.returncode, res.stdout + res.stderr
        except subprocess.TimeoutExpired as e:
            rc, out = "timeout", str(e.stdout or "") + str(e.stderr or "")
        dt = time.monotonic() - t0
        ok = rc == 0 and STATE.fired
        print("%s %s (%.1f s)%s" % ("ok  " if ok else "FAIL", name, dt,
                                   "" if STATE.fired else ": the fault was never injected"))
        if not ok:
            failed.append(name)
            print("    exit %s\n    " % rc + out.strip().replace("\n", "\n    "))
    print("tcp_fault_proxy: %d cases, %d failed" % (len(cases), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
