"""What one hop between SGLang's processes costs on a CPU: a BatchTokenIDOutput through sock_send
and sock_recv, from one process to another over an ipc:// PUSH/PULL pair.

SGLang v0.5.23's own message class and its own sock_send/sock_recv (pickle, the default) run
here, from the unpacked wheel in DIR (sglang_imports.py, as real_compare.py uses it). The parent
binds, as the TokenizerManager does; a spawned child connects and sends every message straight
back. Half the median round trip is one hop: pickle, send, the other process waking in recv,
unpickle. The message is one decode step's output for a batch of B requests (one new token
each, no logprobs), as the scheduler's output streamer fills it.

Usage: python ipc_hop.py DIR [--rounds N] [--batches 1,64,256]
Prints one JSON object: the CPU and its load average when the run began (other work on the
machine slows every figure), the Python, pyzmq and libzmq versions, the wheel file io_struct was
executed from, and per batch size the pickled bytes, the median in-process
pickle and unpickle times (the sender pays the first, on its own thread) and the median hop, in
microseconds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import pickle
import platform
import statistics
import sys
import tempfile
import time
import uuid
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sglang_imports import install  # noqa: E402


def batch_output(batch: int):
    """A BatchTokenIDOutput for one decode step of `batch` requests."""
    from sglang.srt.managers.io_struct import BatchTokenIDOutput  # noqa: PLC0415 - after install()

    per = {
        "rids": [uuid.uuid4().hex for _ in range(batch)],
        "http_worker_ipcs": [None] * batch,
        "finished_reasons": [None] * batch,
        "decoded_texts": [""] * batch,
        "decode_ids": [array("q", [1234]) for _ in range(batch)],
        "read_offsets": [100] * batch,
        "output_ids": [array("q", [1234]) for _ in range(batch)],
        "skip_special_tokens": [True] * batch,
        "spaces_between_special_tokens": [True] * batch,
        "no_stop_trim": [False] * batch,
        "prompt_tokens": [100] * batch,
        "reasoning_tokens": [0] * batch,
        "completion_tokens": [7] * batch,
        "cached_tokens": [0] * batch,
    }
    none = [f for f in BatchTokenIDOutput.__struct_fields__ if f not in per]
    return BatchTokenIDOutput(**per, **dict.fromkeys(none))


def echo(site: str, inbound: str, outbound: str) -> None:
    """The child: connect both sockets (as the scheduler and detokenizer do), send back all."""
    install(site)
    import zmq  # noqa: PLC0415
    from sglang.srt.managers.io_struct import sock_recv, sock_send  # noqa: PLC0415

    ctx = zmq.Context(1)
    pull, push = ctx.socket(zmq.PULL), ctx.socket(zmq.PUSH)
    pull.connect(inbound)
    push.connect(outbound)
    while True:
        msg = sock_recv(pull)
        sock_send(push, msg)
        if msg is None:
            return


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def measure(site: str, rounds: int, batches: list[int]) -> dict:
    install(site)
    import zmq  # noqa: PLC0415
    from sglang.srt.managers.io_struct import sock_recv, sock_send  # noqa: PLC0415

    names = [f"ipc://{tempfile.NamedTemporaryFile(delete=False).name}" for _ in range(2)]
    ctx = zmq.Context(1)
    push, pull = ctx.socket(zmq.PUSH), ctx.socket(zmq.PULL)
    push.bind(names[0])
    pull.bind(names[1])
    child = mp.get_context("spawn").Process(target=echo, args=(site, names[0], names[1]))
    child.start()
    out = {"cpu": cpu_name(), "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2),
           "python": platform.python_version(), "pyzmq": zmq.__version__, "libzmq": zmq.zmq_version(),
           # SGLang's own message module, executed from the wheel (a placeholder has no file)
           "io_struct": os.path.relpath(sys.modules["sglang.srt.managers.io_struct"].__file__, site),
           "rounds": rounds, "batches": {}}
    try:
        for batch in batches:
            msg = batch_output(batch)
            data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
            dumps, loads = [], []
            for _ in range(rounds):
                t0 = time.perf_counter()
                blob = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
                t1 = time.perf_counter()
                pickle.loads(blob)
                dumps.append(t1 - t0)
                loads.append(time.perf_counter() - t1)
            trips = []
            for i in range(rounds + rounds // 10):  # the first tenth warms up and is dropped
                t0 = time.perf_counter()
                sock_send(push, msg)
                back = sock_recv(pull)
                if i >= rounds // 10:
                    trips.append(time.perf_counter() - t0)
            assert back.rids == msg.rids
            out["batches"][str(batch)] = {
                "pickled_bytes": len(data),
                "pickle_us": round(statistics.median(dumps) * 1e6, 1),
                "unpickle_us": round(statistics.median(loads) * 1e6, 1),
                "hop_us": round(statistics.median(trips) / 2 * 1e6, 1),
            }
    finally:
        sock_send(push, None)
        sock_recv(pull)
        child.join(10)
        for name in names:
            os.unlink(name.removeprefix("ipc://"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", help="the unpacked SGLang wheel (with msgspec)")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--batches", default="1,64,256",
                        type=lambda s: [int(b) for b in s.split(",")])
    args = parser.parse_args()
    print(json.dumps(measure(args.site, args.rounds, args.batches)))


if __name__ == "__main__":
    main()
