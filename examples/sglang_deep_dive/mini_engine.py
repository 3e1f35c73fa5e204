"""A three-process miniature of SGLang v0.5.23's Engine, on the CPU, with the same ZMQ roles.

Our own model, not SGLang's code. The caller's process runs the TokenizerManager; `spawn`
starts a Scheduler process and a Detokenizer process. The endpoints are ipc:// paths made
from temporary file names, as PortArgs.init_new does, and each side binds or connects as
SGLang's sockets do:

    tokenizer   binds PULL <- tokenizer_ipc      binds PUSH -> scheduler_input_ipc
    scheduler   connects PULL <- scheduler_input connects PUSH -> detokenizer_ipc
    detokenizer binds PULL <- detokenizer_ipc    connects PUSH -> tokenizer_ipc

Messages are pickled (send_pyobj), SGLang's default (SGLANG_USE_PICKLE_IPC=1). The "model" is
a rule: the next token is (last token + 1) mod 128, and tokens are characters, so every result
can be checked by hand. The scheduler admits requests first come, first served (SGLang's default
policy), keeps a radix-tree prefix cache (radix.py) and reports how many prompt tokens it took
from there: at most len(prompt) - 1, as SGLang's Req._compute_max_prefix_len allows.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import sys
import tempfile
import time

import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from radix import RadixTree  # noqa: E402

VOCAB = 128


def ipc_name() -> str:
    return f"ipc://{tempfile.NamedTemporaryFile(delete=False).name}"


@dataclasses.dataclass
class PortArgs:
    tokenizer_ipc_name: str
    scheduler_input_ipc_name: str
    detokenizer_ipc_name: str

    @staticmethod
    def init_new() -> PortArgs:
        return PortArgs(ipc_name(), ipc_name(), ipc_name())


# The messages, named after SGLang's io_struct classes.
@dataclasses.dataclass
class TokenizedGenerateReqInput:
    rid: str
    input_ids: list[int]
    max_new_tokens: int
    stream: bool


@dataclasses.dataclass
class BatchTokenIDOutput:
    rids: list[str]
    decode_ids: list[list[int]]  # new token ids since the last message, per request
    finished_reasons: list[dict | None]
    cached_tokens: list[int]


@dataclasses.dataclass
class BatchStrOutput:
    rids: list[str]
    output_strs: list[str]  # new text since the last message, per request
    finished_reasons: list[dict | None]
    cached_tokens: list[int]


def tokenize(text: str) -> list[int]:
    return [ord(c) % VOCAB for c in text]


def detokenize(ids: list[int]) -> str:
    return "".join(chr(i) for i in ids)


# --8<-- [start:scheduler]
def run_scheduler_process(port_args: PortArgs, pipe_writer, max_batch: int = 4) -> None:
    ctx = zmq.Context(2)
    recv_from_tokenizer = ctx.socket(zmq.PULL)
    recv_from_tokenizer.connect(port_args.scheduler_input_ipc_name)
    send_to_detokenizer = ctx.socket(zmq.PUSH)
    send_to_detokenizer.connect(port_args.detokenizer_ipc_name)
    tree, next_slot = RadixTree(), 0
    waiting, running = [], []  # running: dicts with rid, ids, out, left, node, cached
    pipe_writer.send({"status": "ready", "max_req_input_len": 4096})  # after "model load"
    while True:
        while True:  # drain the socket without blocking, as recv_requests does
            try:
                req = recv_from_tokenizer.recv_pyobj(zmq.NOBLOCK)
            except zmq.ZMQError:
                break
            if req is None:  # shutdown
                return
            waiting.append(req)
        if not waiting and not running:
            time.sleep(0.001)  # SGLang spins or sleeps on idle (sleep_on_idle)
            continue
        # Prefill first: admit waiting requests in arrival order (fcfs, the default), else decode.
        if waiting and len(running) < max_batch:
            admit, waiting = waiting[: max_batch - len(running)], waiting[max_batch - len(running):]
            for r in admit:
                # At most input_len - 1 tokens from the cache: the last one is computed for logits.
                slots, node = tree.match_prefix(r.input_ids, limit=len(r.input_ids) - 1)
                tree.inc_lock_ref(node)  # pinned while the request runs
                new = list(range(next_slot, next_slot + len(r.input_ids) - len(slots)))
                next_slot += len(new)
                running.append({"rid": r.rid, "ids": list(r.input_ids), "out": [], "sent": 0,
                                "left": r.max_new_tokens, "node": node, "cached": len(slots),
                                "slots": slots + new, "stream": r.stream})
            batch = running[-len(admit):]  # an extend batch: only the new requests
        else:
            batch = running  # a decode batch
        # "Forward + sample": one next token per request in the batch.
        for s in batch:
            s["out"].append((s["ids"][-1] + 1) % VOCAB)
            s["ids"].append(s["out"][-1])
            s["slots"].append(next_slot)
            next_slot += 1
            s["left"] -= 1
        finished = [s for s in batch if s["left"] == 0]
        # As _GenerationStreamAccumulator.accept: a finished request always sends, a streaming one
        # every step, a non-streaming one only at multiples of SGLANG_FORCE_STREAM_INTERVAL (50).
        out = [s for s in batch if s["left"] == 0 or s["stream"] or len(s["out"]) % 50 == 0]
        if out:
            send_to_detokenizer.send_pyobj(BatchTokenIDOutput(
                rids=[s["rid"] for s in out], decode_ids=[s["out"][s["sent"]:] for s in out],
                finished_reasons=[{"type": "length"} if s["left"] == 0 else None for s in out],
                cached_tokens=[s["cached"] for s in out]))
            for s in out:
                s["sent"] = len(s["out"])
        for s in finished:  # cache what the request computed, then release its pin
            tree.insert(s["ids"][:-1], s["slots"][: len(s["ids"]) - 1])
            tree.dec_lock_ref(s["node"])
            running.remove(s)
# --8<-- [end:scheduler]


# --8<-- [start:detokenizer]
def run_detokenizer_process(port_args: PortArgs) -> None:
    ctx = zmq.Context(2)
    recv_from_scheduler = ctx.socket(zmq.PULL)
    recv_from_scheduler.bind(port_args.detokenizer_ipc_name)
    send_to_tokenizer = ctx.socket(zmq.PUSH)
    send_to_tokenizer.connect(port_args.tokenizer_ipc_name)
    while True:
        out = recv_from_scheduler.recv_pyobj()  # blocking: this process has nothing else to do
        if out is None:
            return
        send_to_tokenizer.send_pyobj(BatchStrOutput(
            rids=out.rids, output_strs=[detokenize(ids) for ids in out.decode_ids],
            finished_reasons=out.finished_reasons, cached_tokens=out.cached_tokens))
# --8<-- [end:detokenizer]


# --8<-- [start:engine]
class Engine:
    """Engine.__init__: ports, spawn scheduler + detokenizer, bind the tokenizer's sockets."""

    def __init__(self) -> None:
        mp_ctx = mp.get_context("spawn")  # SGLang: mp.set_start_method("spawn", force=True)
        self.port_args = PortArgs.init_new()
        reader, writer = mp_ctx.Pipe(duplex=False)
        self.procs = [mp_ctx.Process(target=run_scheduler_process, args=(self.port_args, writer)),
                      mp_ctx.Process(target=run_detokenizer_process, args=(self.port_args,))]
        for p in self.procs:
            p.start()
        ctx = zmq.Context(2)
        self.recv_from_detokenizer = ctx.socket(zmq.PULL)
        self.recv_from_detokenizer.bind(self.port_args.tokenizer_ipc_name)
        self.send_to_scheduler = ctx.socket(zmq.PUSH)
        self.send_to_scheduler.bind(self.port_args.scheduler_input_ipc_name)
        if not reader.poll(60):  # wait_for_ready: the scheduler reports once "loaded"
            raise RuntimeError("scheduler did not start")
        self.scheduler_info = reader.recv()
        self.rid_to_text: dict[str, list[str]] = {}
        self.messages: dict[str, int] = {}  # BatchStrOutput entries received, per rid
        self.n = 0

    def _send(self, prompt: str, max_new_tokens: int, stream: bool) -> str:
        rid = f"r{self.n}"
        self.n += 1
        self.rid_to_text[rid] = []
        self.send_to_scheduler.send_pyobj(
            TokenizedGenerateReqInput(rid, tokenize(prompt), max_new_tokens, stream))
        return rid

    def _pump(self):
        """What TokenizerManager.handle_loop does: route each BatchStrOutput by rid."""
        out = self.recv_from_detokenizer.recv_pyobj()
        for rid, text, fin, cached in zip(out.rids, out.output_strs, out.finished_reasons,
                                          out.cached_tokens, strict=True):
            self.rid_to_text[rid].append(text)
            self.messages[rid] = self.messages.get(rid, 0) + 1
            yield rid, text, fin, cached

    def generate(self, prompts: list[str], max_new_tokens: int = 4) -> list[dict]:
        rids = [self._send(p, max_new_tokens, False) for p in prompts]
        done: dict[str, dict] = {}
        while len(done) < len(rids):
            for rid, _, fin, cached in self._pump():
                if fin is not None:
                    done[rid] = {"text": "".join(self.rid_to_text.pop(rid)),
                                 "meta_info": {"finish_reason": fin, "cached_tokens": cached}}
        return [done[r] for r in rids]

    def generate_stream(self, prompt: str, max_new_tokens: int = 4):
        rid = self._send(prompt, max_new_tokens, True)
        while True:
            for r, text, fin, _ in self._pump():
                if r == rid:
                    yield text
                    if fin is not None:
                        return

    def shutdown(self) -> None:
        self.send_to_scheduler.send_pyobj(None)
        detok = zmq.Context.instance().socket(zmq.PUSH)
        detok.connect(self.port_args.detokenizer_ipc_name)
        detok.send_pyobj(None)
        for p in self.procs:
            p.join(10)
        detok.close(linger=0)
# --8<-- [end:engine]


def main() -> None:
    engine = Engine()
    try:
        demo(engine)
    finally:  # a failed check must not leave the children running
        engine.shutdown()
    print("all three processes exited:", all(p.exitcode == 0 for p in engine.procs))


def demo(engine: Engine) -> None:
    print(f"scheduler ready: {engine.scheduler_info}")
    scheduler, detokenizer = engine.procs
    print(f"pids: tokenizer {os.getpid()}, scheduler {scheduler.pid}, detokenizer {detokenizer.pid}")
    assert len({os.getpid(), scheduler.pid, detokenizer.pid}) == 3
    assert scheduler.is_alive() and detokenizer.is_alive()
    first = engine.generate(["abc"], max_new_tokens=3)[0]
    print(f"generate('abc') -> {first['text']!r} {first['meta_info']}")
    assert first["text"] == "def" and first["meta_info"]["cached_tokens"] == 0
    # Same prefix again: the scheduler finds 'abcde' (prompt + generated, minus the last token).
    again = engine.generate(["abcdeXY", "zzz"], max_new_tokens=2)
    print(f"generate(['abcdeXY', 'zzz']) -> {[(o['text'], o['meta_info']['cached_tokens']) for o in again]}")
    assert [o["text"] for o in again] == ["Z[", "{|"]
    assert again[0]["meta_info"]["cached_tokens"] == 5
    # 'abcde' is cached whole, but a match may use at most len(prompt) - 1 = 4 of it.
    same = engine.generate(["abcde"], max_new_tokens=1)[0]
    print(f"generate('abcde') -> cached_tokens {same['meta_info']['cached_tokens']}")
    assert same["meta_info"]["cached_tokens"] == 4
    chunks = list(engine.generate_stream("hello", max_new_tokens=4))
    print(f"stream('hello') -> {chunks}")
    assert chunks == ["p", "q", "r", "s"]
    # r0 was not streamed: its 3 tokens came back in one message, at the finish.
    print(f"messages per request: {engine.messages}")
    assert engine.messages["r0"] == 1 and engine.messages["r4"] == 4


if __name__ == "__main__":
    main()
