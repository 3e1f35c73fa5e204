"""A model of vLLM v1's front-end / EngineCore process split, using only the standard library.

Front end (this process)          | EngineCore (a child process, like CoreEngineProcManager's)
  FrontEnd    ~ LLMEngine + OutputProcessor (detokenise, stop strings, RequestOutput)
  CoreClient  ~ SyncMPClient: binds both sockets, waits for READY, output-reader thread
                                  |  input thread ~ EngineCoreProc.process_input_sockets
                                  |  busy loop    ~ EngineCoreProc.run_busy_loop
                                  |  output thread~ EngineCoreProc.process_output_sockets

vLLM uses ZMQ (ROUTER/DEALER for requests, PUSH/PULL for outputs) and msgspec msgpack.
This model uses AF_UNIX stream sockets with multiprocessing.connection framing and pickle.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import pickle
import queue
import shutil
import socket
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Client, Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sched_model import (  # noqa: E402
    KVCacheManager,
    Request,
    Scheduler,
    fake_execute,
    prompt,
    reference_generate,
)

# Request types travel as one leading byte, like EngineCoreRequestType (ADD=b"\x00"...).
ADD, ABORT, UTILITY = b"\x00", b"\x01", b"\x03"
ENGINE_CONFIG = {"num_blocks": 64, "block_size": 4, "max_num_batched_tokens": 32,
                 "max_num_seqs": 8, "step_time_s": 0.002}


def encode(obj) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


class EngineDeadError(RuntimeError):
    pass


# ----------------------------------------------------------------------------------------
# EngineCore process
# --8<-- [start:engine]
class EngineCoreProc:
    def __init__(self, input_path: str, output_path: str, cfg: dict):
        kv = KVCacheManager(cfg["num_blocks"], cfg["block_size"])
        self.scheduler = Scheduler(kv, cfg["max_num_batched_tokens"], cfg["max_num_seqs"])
        self.block_size, self.step_time = cfg["block_size"], cfg["step_time_s"]
        self.input_queue: queue.Queue = queue.Queue()
        self.output_queue: queue.Queue = queue.Queue()
        self.generated: dict[str, int] = {}
        self.num_steps = 0
        # The front end bound both sockets; the engine connects (DEALER / PUSH in vLLM).
        self.in_conn = Client(input_path, family="AF_UNIX")
        self.out_conn = Client(output_path, family="AF_UNIX")
        # The engine speaks first on the input socket: a READY payload with what the front
        # end cannot know before start-up (vLLM: EngineCoreReadyResponse, e.g. num_gpu_blocks).
        self.in_conn.send_bytes(encode({"status": "READY", **cfg}))
        threading.Thread(target=self.process_input_socket, daemon=True).start()
        self.output_thread = threading.Thread(target=self.process_output_socket, daemon=True)
        self.output_thread.start()

    def process_input_socket(self) -> None:
        """IO thread: blocking socket reads and decoding stay off the busy loop."""
        while True:
            try:
                frame = self.in_conn.recv_bytes()
            except (EOFError, OSError):
                self.input_queue.put((UTILITY, (-1, "shutdown")))
                return
            kind, payload = frame[:1], pickle.loads(frame[1:])
            if kind == ADD:  # like preprocess_add_request: build the Request (and its
                rid, prompt_ids, max_tokens = payload  # block hashes) in this thread
                payload = Request(rid, prompt_ids, max_tokens, self.block_size)
            self.input_queue.put((kind, payload))

    def process_output_socket(self) -> None:
        while (item := self.output_queue.get()) is not None:
            self.out_conn.send_bytes(encode(item))

    def run_busy_loop(self) -> None:
        while True:
            # 1) Block on the input queue only while there is nothing to step.
            while not self.scheduler.has_requests():
                if not self.handle_client_request(*self.input_queue.get()):
                    return
            while not self.input_queue.empty():  # then drain whatever else arrived
                if not self.handle_client_request(*self.input_queue.get_nowait()):
                    return
            # 2) One engine step: schedule -> execute -> update_from_output.
            out = self.scheduler.schedule()
            time.sleep(self.step_time)  # stands in for the GPU forward pass
            sampled = fake_execute(out, self.scheduler.requests)
            for rid in sampled:
                self.generated[rid] = self.generated.get(rid, 0) + 1
            self.num_steps += 1
            if results := self.scheduler.update_from_output(out, sampled):
                self.output_queue.put(("outputs", results))

    def handle_client_request(self, kind: bytes, payload) -> bool:
        if kind == ADD:
            self.scheduler.add_request(payload)
        elif kind == ABORT:
            self.scheduler.finish_requests(payload, "abort")
        elif kind == UTILITY:
            call_id, method = payload
            if method == "crash":
                os._exit(1)  # simulate a fatal error: no goodbye message
            result = {"generated": dict(self.generated), "steps": self.num_steps}
            self.output_queue.put(("utility", call_id, result))
            if method == "shutdown":
                return False
        return True


def run_engine_core(input_path: str, output_path: str, cfg: dict) -> None:
    """Process target, like EngineCoreProc.run_engine_core."""
    engine = EngineCoreProc(input_path, output_path, cfg)
    engine.run_busy_loop()
    engine.output_queue.put(None)
    engine.output_thread.join()
# --8<-- [end:engine]


# ----------------------------------------------------------------------------------------
# Front end
# --8<-- [start:client]
class CoreClient:
    """SyncMPClient's role: own the sockets, start the engine, read outputs on a thread."""

    def __init__(self, cfg: dict, startup_timeout_s: float = 60.0):
        self._dir = tempfile.mkdtemp(prefix="v1dd-")
        paths = [os.path.join(self._dir, n) for n in ("input.sock", "output.sock")]
        listeners = []
        for p in paths:  # bind before the engine exists, like MPClient's ROUTER/PULL binds
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(p)
            s.listen(1)
            s.settimeout(0.1)
            listeners.append(s)
        ctx = mp.get_context("spawn")  # vLLM: fork by default as a library, spawn for the CLI
        self.proc = ctx.Process(target=run_engine_core, args=(*paths, cfg),
                                name="EngineCore", daemon=True)
        self.proc.start()
        self.in_conn, self.out_conn = (self._accept(s, startup_timeout_s) for s in listeners)
        shutil.rmtree(self._dir, ignore_errors=True)  # connected: the socket paths can go
        ready = pickle.loads(self.in_conn.recv_bytes())
        assert ready["status"] == "READY"
        self.engine_config = ready
        self.outputs: queue.Queue = queue.Queue()
        self.utility_results: dict[int, Future] = {}
        self._call_ids = itertools.count()
        threading.Thread(target=self._process_outputs_socket, daemon=True).start()

    def _accept(self, srv: socket.socket, timeout_s: float) -> Connection:
        deadline = time.monotonic() + timeout_s
        while True:  # poll, and watch the child: a dead engine must not hang start-up
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                if not self.proc.is_alive():
                    raise RuntimeError("Engine core initialization failed.") from None
                if time.monotonic() > deadline:
                    raise TimeoutError("engine did not connect") from None
                continue
            srv.close()
            conn.setblocking(True)
            return Connection(conn.detach())

    def _process_outputs_socket(self) -> None:
        try:
            while True:
                item = pickle.loads(self.out_conn.recv_bytes())
                if item[0] == "utility":
                    self.utility_results.pop(item[1]).set_result(item[2])
                else:
                    self.outputs.put(item[1])
        except (EOFError, OSError):
            self.outputs.put(EngineDeadError("EngineCore died"))
            for fut in self.utility_results.values():
                fut.set_exception(EngineDeadError("EngineCore died"))

    def add_request(self, rid: str, prompt_ids: list[int], max_tokens: int) -> None:
        self.in_conn.send_bytes(ADD + encode((rid, prompt_ids, max_tokens)))

    def abort_requests(self, rids: list[str]) -> None:
        self.in_conn.send_bytes(ABORT + encode(rids))

    def call_utility(self, method: str, timeout: float = 30.0):
        call_id = next(self._call_ids)
        fut: Future = Future()
        self.utility_results[call_id] = fut
        self.in_conn.send_bytes(UTILITY + encode((call_id, method)))
        return fut.result(timeout)

    def get_output(self, timeout: float = 30.0):
        item = self.outputs.get(timeout=timeout)
        if isinstance(item, Exception):
            raise item
        return item

    def shutdown(self) -> dict:
        stats = self.call_utility("shutdown")
        self.proc.join(10)
        return stats
# --8<-- [end:client]


def detokenize(tok: int) -> str:
    """Toy tokenizer: every token id decodes to one lowercase letter."""
    return chr(ord("a") + tok % 26)


@dataclass
class RequestState:
    output_kind: str  # "FINAL_ONLY" (LLM.generate) or "DELTA" (streaming server)
    stop: str | None
    token_ids: list[int] = field(default_factory=list)
    text: str = ""
    sent: int = 0


# --8<-- [start:frontend]
class FrontEnd:
    """LLMEngine + OutputProcessor: detokenisation and stop strings live here, not in
    the engine, so the engine keeps generating until an ABORT reaches it."""

    def __init__(self, client: CoreClient):
        self.client = client
        self.states: dict[str, RequestState] = {}
        self.request_counter = itertools.count()  # like LLM.request_counter

    def add_request(self, rid, prompt_ids, max_tokens, stop=None, output_kind="FINAL_ONLY"):
        self.states[rid] = RequestState(output_kind, stop)
        self.client.add_request(rid, prompt_ids, max_tokens)

    def step(self) -> list[tuple[str, str, list[int], str | None]]:
        outputs, to_abort = [], []
        for rid, new_ids, finish in self.client.get_output():
            st = self.states.get(rid)
            if st is None:  # finished here already (stop string); late engine output
                continue
            st.token_ids += new_ids
            st.text += "".join(detokenize(t) for t in new_ids)
            if st.stop and (cut := st.text.find(st.stop)) >= 0:
                st.text, st.token_ids = st.text[:cut], st.token_ids[:cut]  # 1 char / token
                finish = "stop"
                to_abort.append(rid)  # the engine does not know about stop strings
            if finish:
                del self.states[rid]
            if st.output_kind == "DELTA" or finish:
                delta = st.text[st.sent:]
                st.sent = len(st.text)
                outputs.append((rid, delta if st.output_kind == "DELTA" else st.text,
                                st.token_ids, finish))
        if to_abort:
            self.client.abort_requests(to_abort)
        return outputs

    def generate(self, prompts: list[list[int]], max_tokens: int, stop=None) -> list:
        """LLM.generate: add everything, then step until nothing is unfinished."""
        rids = [f"r{next(self.request_counter)}" for _ in prompts]
        for rid, p in zip(rids, prompts, strict=True):
            self.add_request(rid, p, max_tokens, stop)
        done = {}
        while any(r in self.states for r in rids):
            for rid, text, toks, finish in self.step():
                done[rid] = (text, toks, finish)
        return [done[r] for r in rids]

    def stream(self, rid: str, prompt_ids: list[int], max_tokens: int):
        """AsyncLLM.generate in miniature: yield deltas as they arrive."""
        self.add_request(rid, prompt_ids, max_tokens, output_kind="DELTA")
        while rid in self.states:
            for _, delta, _, finish in self.step():
                yield delta, finish
# --8<-- [end:frontend]


def main() -> None:
    client = CoreClient(ENGINE_CONFIG)
    fe = FrontEnd(client)
    cfg = client.engine_config
    print(f"EngineCore ready: num_blocks={cfg['num_blocks']}, "
          f"max_num_batched_tokens={cfg['max_num_batched_tokens']}")

    # 1) Offline-style generate(): FINAL_ONLY outputs, order restored by request id.
    prompts = [prompt(10 + i, 5 + 7 * i) for i in range(4)]
    results = fe.generate(prompts, max_tokens=12)
    for i, (text, toks, finish) in enumerate(results):
        assert toks == reference_generate(prompts[i], 12)
        print(f"generate r{i}: prompt {len(prompts[i]):2d} tokens -> {text!r} ({finish})")

    # 2) Server-style streaming: DELTA outputs, one per engine step that produced a token.
    p = prompt(20, 9)
    deltas = list(fe.stream("s0", p, max_tokens=8))
    expected = "".join(detokenize(t) for t in reference_generate(p, 8))
    assert "".join(d for d, _ in deltas) == expected and deltas[-1][1] == "length"
    print(f"stream s0: {len(deltas)} deltas {[d for d, _ in deltas]} -> {expected!r}")

    # 3) Stop string: detected in the front end, which then sends ABORT to the engine.
    p = prompt(30, 6)
    ref_text = "".join(detokenize(t) for t in reference_generate(p, 16))
    stop = ref_text[5:7]
    cut = ref_text.find(stop)
    ((text, toks, finish),) = fe.generate([p], max_tokens=16, stop=stop)
    assert (text, finish) == (ref_text[:cut], "stop") and len(toks) == cut
    stats = client.call_utility("stats")
    rid = f"r{len(prompts)}"
    assert stats["generated"][rid] >= cut + len(stop)  # engine ran at least to the stop
    print(f"stop={stop!r}: front end kept {text!r}; engine generated "
          f">= {cut + len(stop)} tokens before the ABORT reached it")
    client.shutdown()

    # 4) A dead engine surfaces in the front end as an error, not a hang.
    doomed = CoreClient(ENGINE_CONFIG)
    try:
        doomed.call_utility("crash", timeout=10)
    except EngineDeadError as e:
        print(f"engine process exited -> front end raised EngineDeadError: {e}")
    else:
        raise AssertionError("expected EngineDeadError")
    doomed.proc.join(10)
    print("all outputs match the in-process reference")


if __name__ == "__main__":
    main()
