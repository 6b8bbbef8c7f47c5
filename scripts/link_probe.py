#!/usr/bin/env python3
"""Point-to-point link probe, as a user measures a link (like `iperf3 --bidir`): ranks 0
and 1 of a `gcu launch` job (RANK, MASTER_ADDR, MASTER_PORT from the environment) open one
TCP connection and both send as fast as they can for SECONDS while receiving, so the link
carries traffic in both directions at once, as a ring all-reduce's does. Each of the two
ranks writes OUT.rank<r>: {"rank", "rx_gbps", "rx_bytes", "seconds"}, its received rate
over the window after a warm-up. Other ranks exit at once. `gcu validate` runs it through
every shaped link and, under the user protocol, predicts the link's cells at the lower of
the two directions' rates.

    gcu launch -n 2 -- /usr/bin/python3 scripts/link_probe.py OUT [SECONDS]
"""
import json, os, socket, sys, threading, time

WARMUP_S = 0.5
CHUNK = 1 << 16


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
    if not (0.5 < seconds <= 600):
        print("link_probe: SECONDS must be in (0.5, 600]", file=sys.stderr)
        return 2
    rank = int(os.environ.get("RANK", "0"))
    if rank > 1:
        return 0
    addr = os.environ.get("MASTER_ADDR", "127.0.0.1")
    port = int(os.environ.get("MASTER_PORT", "29500")) + 7  # beside the job's rendezvous port
    if rank == 0:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("0.0.0.0", port))
        srv.listen(1)
        srv.settimeout(30)
        conn, _ = srv.accept()
        srv.close()
    else:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = socket.create_connection((addr, port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    print(f"link_probe: rank 1 cannot reach {addr}:{port}", file=sys.stderr)
                    return 1
                time.sleep(0.1)
    conn.settimeout(seconds + 30)
    start = time.monotonic()
    stop = start + WARMUP_S + seconds
    counted = {"bytes": 0, "t0": None, "t1": None}

    def send():
        buf = b"\0" * CHUNK
        try:
            while time.monotonic() < stop:
                conn.sendall(buf)
        except OSError:
            pass
        try:
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    sender = threading.Thread(target=send)
    sender.start()
    while True:
        try:
            b = conn.recv(1 << 20)
        except OSError:
            break
        if not b:
            break
        now = time.monotonic()
        if now >= start + WARMUP_S and now <= stop:
            if counted["t0"] is None:
                counted["t0"] = now
            counted["bytes"] += len(b)
            counted["t1"] = now
    sender.join()
    conn.close()
    t0, t1 = counted["t0"], counted["t1"]
    if t0 is None or t1 is None or t1 <= t0:
        print("link_probe: received nothing in the window", file=sys.stderr)
        return 1
    rate = counted["bytes"] * 8 / (t1 - t0) / 1e9
    tmp = f"{out}.rank{rank}.tmp"
    with open(tmp, "w") as f:
        json.dump({"rank": rank, "rx_gbps": rate, "rx_bytes": counted["bytes"], "seconds": t1 - t0}, f)
        f.write("\n")
    os.replace(tmp, f"{out}.rank{rank}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
