#!/usr/bin/env python3
"""The loopback service of the real brownout experiment (docs/performance.md, "Brownout").

A server of capacity C requests/s with a fixed pool of workers and a bounded FIFO queue, as
docs/simulate.md models it, except that the queue is bounded: when it is full the server sheds
the request at once with 503 and `Retry-After`. It can be browned out on command.

  brownout_server.py [--capacity C] [--workers W] [--queue Q] [--retry-after S] [--max-seconds T]
  brownout_server.py --latency [--fast-ms F] [--slow-ms L] [--slow-fraction P] [--seed N] ...

With --latency (the hedging experiment, docs/hedging.md) the server has no capacity and no
queue: each /work request is answered F ms (default 1) after it was read, or L ms (default 50)
with probability P (default 0.02), drawn per request; a slowdown on command makes every
request take L ms (a dependency slow for everyone). A timer thread sends the answers at their
due times, so any number of requests wait at once.

It binds 127.0.0.1 on a free port (never another address), prints the port on the first line of
stdout, and serves until it is terminated (SIGTERM) or, at the latest, for T seconds: it then
exits by itself with status 3, so a driver that dies cannot leave it behind. Paths:

  GET /work                   queued; a worker answers 200 "ok" in its turn, or 503 at once
                              with Retry-After: S when Q requests are already held (waiting
                              or with a worker)
  GET /control/brownout?fraction=F&seconds=D
                              capacity F * C for D seconds from now, then C again; 200 at once
  GET /control/slow?seconds=D (--latency) every /work request takes L ms for D seconds from
                              now; 200 at once
  GET /stats                  200 with JSON: received, served, shed, largest_queue (the most
                              requests held at once), connections (accepted), capacity, and
                              with --latency slow (answers that took L ms)

Capacity: the workers take requests in FIFO order and each answer takes the next free service
slot of the whole server, 1 / capacity apart, so the server answers at most `capacity`
requests/s whatever the number of workers; an idle server banks no slots. A queued request whose
client has given up is still served (the server cannot know): that is the work a retry storm
wastes. Connections are kept open between requests (HTTP/1.1 keep-alive) until the client closes
them, as rebound::curl's HttpClient reuses them; a response that cannot be written closes its
connection.
"""
import argparse
import heapq
import json
import os
import queue
import random
import selectors
import socket
import sys
import threading
import time
import urllib.parse

HEAD_LIMIT = 8192
EXIT_HARD_TIMEOUT = 3


class Capacity:
    """The service slots: capacity C, or F * C until the brownout ends."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.lock = threading.Lock()
        self.next_slot = 0.0
        self.fraction = 1.0
        self.brownout_until = 0.0

    def brown_out(self, fraction, seconds):
        with self.lock:
            self.fraction = fraction
            self.brownout_until = time.monotonic() + seconds

    def current(self, at):
        return self.capacity * (self.fraction if at < self.brownout_until else 1.0)

    def take_slot(self):
        """The instant at which the caller's answer is due."""
        with self.lock:
            now = time.monotonic()
            slot = max(now, self.next_slot)
            self.next_slot = slot + 1.0 / self.current(slot)
            return slot


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.received = 0
        self.served = 0
        self.shed = 0
        self.largest_queue = 0
        self.connections = 0
        self.held = 0  # admitted and not answered yet: waiting or with a worker
        self.slow = 0  # --latency: answers that took the slow time

    def admit(self, limit):
        """Counts a received request; True when fewer than `limit` are held (it is then held)."""
        with self.lock:
            self.received += 1
            if self.held >= limit:
                self.shed += 1
                return False
            self.held += 1
            self.largest_queue = max(self.largest_queue, self.held)
            return True

    def connected(self):
        with self.lock:
            self.connections += 1

    def answered(self):
        with self.lock:
            self.held -= 1
            self.served += 1

    def slowed(self):
        with self.lock:
            self.slow += 1

    def as_json(self, capacity):
        with self.lock:
            return json.dumps({"received": self.received, "served": self.served,
                               "shed": self.shed, "largest_queue": self.largest_queue,
                               "connections": self.connections, "capacity": capacity,
                               "slow": self.slow})


def respond(connection, status, body, headers=()):
    """Writes the response; True when the connection can take the next request."""
    reason = {200: "OK", 404: "Not Found", 503: "Service Unavailable"}[status]
    lines = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    try:
        connection.settimeout(1.0)
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        return True
    except OSError:
        connection.close()  # the client gave up: its answer is lost work
        return False


def worker(waiting, capacity, stats, kept):
    while True:
        connection = waiting.get()
        due = capacity.take_slot()
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        if respond(connection, 200, b"ok"):
            kept(connection)
        stats.answered()


class Latencies:
    """--latency: when each request is answered, sent by one timer thread at its due time."""

    def __init__(self, options, stats, kept):
        self.fast = options.fast_ms / 1000.0
        self.slow = options.slow_ms / 1000.0
        self.slow_fraction = options.slow_fraction
        self.random = random.Random(options.seed)
        self.stats = stats
        self.kept = kept
        self.condition = threading.Condition()
        self.due = []  # heap of (due, sequence, connection)
        self.sequence = 0
        self.slow_until = 0.0

    def slow_down(self, seconds):
        with self.condition:
            self.slow_until = time.monotonic() + seconds

    def put(self, connection):
        """Schedules the answer to a request read now (selector thread)."""
        with self.condition:
            now = time.monotonic()
            slow = now < self.slow_until or self.random.random() < self.slow_fraction
            heapq.heappush(self.due, (now + (self.slow if slow else self.fast), self.sequence,
                                      connection))
            self.sequence += 1
            self.condition.notify()
        if slow:
            self.stats.slowed()

    def serve_forever(self):
        while True:
            with self.condition:
                while True:
                    now = time.monotonic()
                    if self.due and self.due[0][0] <= now:
                        _, _, connection = heapq.heappop(self.due)
                        break
                    self.condition.wait(self.due[0][0] - now if self.due else None)
            if respond(connection, 200, b"ok"):
                self.kept(connection)
            self.stats.answered()


class Server:
    def __init__(self, options):
        self.options = options
        self.capacity = Capacity(options.capacity)
        self.stats = Stats()
        self.waiting = queue.Queue()
        self.selector = selectors.DefaultSelector()
        self.heads = {}  # connection -> bytes of the request head read so far
        # Connections the workers answered, handed back to the selector's thread, which is woken
        # through `wake`.
        self.returned = queue.SimpleQueue()
        self.wake, self.waker = socket.socketpair()
        self.wake.setblocking(False)
        self.waker.setblocking(False)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1024)
        self.listener.setblocking(False)
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.selector.register(self.wake, selectors.EVENT_READ)
        self.latencies = Latencies(options, self.stats, self.hand_back) if options.latency else None

    def port(self):
        return self.listener.getsockname()[1]

    def serve_forever(self):
        if self.latencies is not None:
            threading.Thread(target=self.latencies.serve_forever, daemon=True).start()
        for _ in range(self.options.workers):
            threading.Thread(target=worker,
                             args=(self.waiting, self.capacity, self.stats, self.hand_back),
                             daemon=True).start()
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self.listener:
                    self.accept()
                elif key.fileobj is self.wake:
                    self.take_back()
                else:
                    self.read(key.fileobj)

    def hand_back(self, connection):
        """From a worker: the connection waits for its next request."""
        self.returned.put(connection)
        try:
            self.waker.send(b"x")
        except OSError:
            pass  # the wake-up byte of an earlier hand-back is still unread

    def take_back(self):
        try:
            while self.wake.recv(4096):
                pass
        except BlockingIOError:
            pass
        while True:
            try:
                self.keep(self.returned.get_nowait())
            except queue.Empty:
                return

    def keep(self, connection):
        """Waits for the next request on `connection` (selector thread only)."""
        connection.setblocking(False)
        self.heads[connection] = b""
        self.selector.register(connection, selectors.EVENT_READ)

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except BlockingIOError:
                return
            self.stats.connected()
            self.keep(connection)

    def read(self, connection):
        try:
            data = connection.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        head = self.heads[connection] + data
        if data and b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
            self.heads[connection] = head
            return
        self.selector.unregister(connection)
        del self.heads[connection]
        if not data or b"\r\n\r\n" not in head:
            connection.close()  # closed early or a head too long: nothing to answer
            return
        connection.setblocking(True)
        self.route(connection, head.split(b"\r\n", 1)[0].decode("latin-1"))

    def route(self, connection, request_line):
        parts = request_line.split(" ")
        url = urllib.parse.urlsplit(parts[1] if len(parts) > 1 else "/")
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        if url.path == "/work" and self.latencies is not None:
            self.stats.admit(float("inf"))
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.latencies.put(connection)
            return
        if url.path == "/work" and self.stats.admit(self.options.queue):
            self.waiting.put(connection)
            return
        if url.path == "/work":
            answered = respond(connection, 503, b"overloaded",
                               [("Retry-After", str(self.options.retry_after))])
        elif url.path == "/control/brownout":
            self.capacity.brown_out(float(query.get("fraction", "0.4")),
                                    float(query.get("seconds", "10")))
            answered = respond(connection, 200, b"browned out")
        elif url.path == "/control/slow" and self.latencies is not None:
            self.latencies.slow_down(float(query.get("seconds", "10")))
            answered = respond(connection, 200, b"slowed down")
        elif url.path == "/stats":
            answered = respond(connection, 200,
                               self.stats.as_json(self.options.capacity).encode())
        else:
            answered = respond(connection, 404, b"no such path")
        if answered:
            self.keep(connection)


def positive(kind):
    def parse(text):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value
    return parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capacity", type=positive(float), default=100.0)
    parser.add_argument("--workers", type=positive(int), default=8)
    parser.add_argument("--queue", type=positive(int), default=150)
    parser.add_argument("--retry-after", type=positive(int), default=1)
    parser.add_argument("--max-seconds", type=positive(float), default=300.0)
    parser.add_argument("--latency", action="store_true",
                        help="no capacity or queue: answers after --fast-ms or --slow-ms")
    parser.add_argument("--fast-ms", type=positive(float), default=1.0)
    parser.add_argument("--slow-ms", type=positive(float), default=50.0)
    parser.add_argument("--slow-fraction", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()

    def hard_timeout():
        print(f"brownout_server.py: stopping after --max-seconds {options.max_seconds:g}",
              file=sys.stderr, flush=True)
        os._exit(EXIT_HARD_TIMEOUT)

    timer = threading.Timer(options.max_seconds, hard_timeout)
    timer.daemon = True
    timer.start()
    if options.latency:
        # A thread woken for an answer gets the interpreter within 0.2 ms, not the default 5 ms.
        sys.setswitchinterval(0.0002)
    server = Server(options)
    print(server.port(), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
