"""What one extra process hop costs, in the stdlib model of proc_split.py.

Round-trips a batch of per-request outputs shaped like one decode step's EngineCoreOutputs
(request id, one new token id, no finish reason) three ways:

  pickle only      : dumps + loads in one thread (the serialisation share)
  thread round trip: queue.Queue to another thread and back, i.e. two handoffs, like the
                     input-thread -> busy-loop -> output-thread handoffs inside
                     EngineCoreProc. An in-process client (InprocClient) has no thread at
                     all: its get_output() calls engine_core.step_fn() directly.
  process round trip: pickle + AF_UNIX socket to a child process, which decodes,
                     re-encodes and sends it back (two hops, so one hop costs about half)

vLLM itself uses msgspec msgpack over ZMQ, which this does not measure.
"""

from __future__ import annotations

import multiprocessing as mp
import pickle
import queue
import statistics
import threading
import time
from multiprocessing.connection import Connection

BATCH_SIZES = (1, 16, 64, 256)


def make_batch(n: int) -> list[tuple[str, list[int], None]]:
    return [(f"cmpl-{i:06d}-1a2b3c4d", [1000 + i], None) for i in range(n)]


def _echo(conn: Connection) -> None:
    conn.send_bytes(b"ready")
    while (frame := conn.recv_bytes()) != b"":
        conn.send_bytes(pickle.dumps(pickle.loads(frame), protocol=pickle.HIGHEST_PROTOCOL))


def _median_us(fn, iters: int) -> float:
    for _ in range(max(3, iters // 10)):  # warm-up
        fn()
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def measure(batch_sizes=BATCH_SIZES, iters: int = 300) -> list[dict]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()  # a socketpair (AF_UNIX) on Linux
    proc = ctx.Process(target=_echo, args=(child,), daemon=True)
    proc.start()
    child.close()  # so a dead child shows up as EOF here instead of a hang
    if not parent.poll(60):
        proc.terminate()
        raise RuntimeError("echo process did not start")
    assert parent.recv_bytes() == b"ready"
    q_in: queue.Queue = queue.Queue()
    q_out: queue.Queue = queue.Queue()
    worker = threading.Thread(target=lambda: [q_out.put(x) for x in iter(q_in.get, None)],
                              daemon=True)
    worker.start()
    rows = []
    try:
        for n in batch_sizes:
            batch = make_batch(n)

            def pickle_only(b=batch):
                pickle.loads(pickle.dumps(b, protocol=pickle.HIGHEST_PROTOCOL))

            def thread_round_trip(b=batch):
                q_in.put(b)
                q_out.get()

            def process_hop(b=batch):
                parent.send_bytes(pickle.dumps(b, protocol=pickle.HIGHEST_PROTOCOL))
                pickle.loads(parent.recv_bytes())

            rows.append({
                "batch": n,
                "bytes": len(pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)),
                "pickle_us": _median_us(pickle_only, iters),
                "thread_us": _median_us(thread_round_trip, iters),
                "process_us": _median_us(process_hop, iters),
            })
    finally:
        parent.send_bytes(b"")
        q_in.put(None)
        proc.join(10)
    return rows


def main() -> None:
    rows = measure()
    print(f"{'batch':>5} {'bytes':>7} {'pickle rt us':>13} {'thread rt us':>13} "
          f"{'process rt us':>14} {'process us/req':>15}")
    for r in rows:
        assert 0 < r["pickle_us"] and 0 < r["thread_us"] and 0 < r["process_us"]
        print(f"{r['batch']:>5} {r['bytes']:>7} {r['pickle_us']:>13.1f} {r['thread_us']:>13.1f} "
              f"{r['process_us']:>14.1f} {r['process_us'] / r['batch']:>15.2f}")
    print("rt = round trip (two handoffs or two hops); one costs about half. "
          "Timings vary run to run.")


if __name__ == "__main__":
    main()
