#!/usr/bin/env python3
"""A loopback HTTP server that fails on purpose, for the libcurl adapter's tests.

Binds 127.0.0.1 on a free port, prints the port on the first line of stdout, and serves until it
is terminated (the test that started it sends SIGTERM). Every path is /MODE/ID with a query:

  /ok/ID                          200 "ok"
  /status/ID?code=503&fail=N&retry_after=V
                                  the first N requests of ID get CODE (with Retry-After: V when
                                  given), later ones 200
  /reset-before/ID?fail=N         the first N connections are reset before the request is read
  /reset-after/ID?fail=N          the first N requests are read and applied, then the connection
                                  is reset before any response
  /stall/ID?fail=N&ms=M           the first N requests wait M ms before the response
  /slow/ID?fail=N&ms=M            the first N requests wait M ms before the response, watching
                                  their connection: one the client closes (or resets) meanwhile
                                  gets no response and is counted by /closed/ID
  /closed/ID                      200 with the number of slow requests of ID whose client closed
                                  the connection before the response was due
  /big/ID?bytes=N&chunked=1       200 with a body of N bytes ('x'), with a Content-Length, or
                                  chunked (no length known in advance) when chunked=1
  /silent/ID                      reads the request and never answers (the connection stays
                                  open until the client gives up or the server is stopped)
  /applied/ID                     200 with the number of times a request to ID was applied
  /connections/ID                 200 with the number of connections accepted so far (every
                                  ID; the connection of this request included)

A request is applied once per Idempotency-Key (the key deduplicates, as a payment API does);
without a key every request that reaches its handler is applied. Connections are kept open
between requests (HTTP/1.1 keep-alive) until the client closes them.
"""
import select
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
seen = {}          # ID -> requests that reached the handler (or connections, for reset-before)
applied = {}       # ID -> times applied
keys = {}          # ID -> set of Idempotency-Keys already applied
reset_before = {}  # ID -> connections still to reset before reading
connections = [0]  # connections accepted
closed = {}        # ID -> slow requests whose client closed the connection before the answer


def count(table, ident):
    with lock:
        table[ident] = table.get(ident, 0) + 1
        return table[ident]


def apply(ident, key):
    with lock:
        done = keys.setdefault(ident, set())
        if key is not None and key in done:
            return
        if key is not None:
            done.add(key)
        applied[ident] = applied.get(ident, 0) + 1


def client_left(connection, seconds):
    """Waits `seconds`; True as soon as the client closes or resets the connection.

    The request was read whole and the client sends nothing more before its answer, so the
    connection turning readable means its end.
    """
    readable, _, _ = select.select([connection], [], [], seconds)
    if not readable:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True  # reset


def reset(connection):
    # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as production servers set it: the head and the body are two writes, and on a
    # kept connection Nagle's algorithm would hold the body until the client's delayed ACK (40 ms).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def setup(self):
        with lock:
            connections[0] += 1
        super().setup()

    def handle(self):
        # reset-before is decided per connection from a peek at the request line, without
        # consuming the request.
        try:
            head = self.connection.recv(4096, socket.MSG_PEEK).decode("latin-1")
        except OSError:
            return
        parts = head.split(" ")
        if len(parts) > 1:
            url = urllib.parse.urlsplit(parts[1])
            path = url.path.strip("/").split("/")
            if len(path) == 2 and path[0] == "reset-before":
                fail = int(urllib.parse.parse_qs(url.query).get("fail", ["0"])[0])
                if count(reset_before, path[1]) <= fail:
                    reset(self.connection)
                    return
        super().handle()

    def respond(self, code, body=b"", headers=()):
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_big(self, size, chunked):
        self.send_response(200)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        block = b"x" * 65536
        left = size
        while left > 0:
            part = block[:min(left, len(block))]
            if chunked:
                self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            else:
                self.wfile.write(part)
            left -= len(part)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def serve(self):
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        path = url.path.strip("/").split("/")
        length = int(self.headers.get("Content-Length", "0"))
        if length:
            self.rfile.read(length)
        if len(path) != 2:
            self.respond(404)
            return
        mode, ident = path
        fail = int(query.get("fail", "0"))
        if mode == "applied":
            with lock:
                self.respond(200, str(applied.get(ident, 0)).encode())
            return
        if mode == "connections":
            with lock:
                self.respond(200, str(connections[0]).encode())
            return
        if mode == "closed":
            with lock:
                self.respond(200, str(closed.get(ident, 0)).encode())
            return
        if mode == "big":
            self.send_big(int(query.get("bytes", "0")), query.get("chunked") == "1")
            return
        if mode == "silent":
            count(seen, ident)
            threading.Event().wait()  # never set: no answer, ever
            return
        number = count(seen, ident)
        failing = number <= fail
        if mode == "status" and failing:
            headers = [("Retry-After", query["retry_after"])] if "retry_after" in query else []
            self.respond(int(query.get("code", "503")), b"try later", headers)
            return
        if mode == "slow" and failing and client_left(self.connection,
                                                      int(query.get("ms", "2000")) / 1000.0):
            count(closed, ident)
            self.close_connection = True
            return
        if mode == "stall" and failing:
            time.sleep(int(query.get("ms", "2000")) / 1000.0)
        apply(ident, self.headers.get("Idempotency-Key"))
        if mode == "reset-after" and failing:
            reset(self.connection)
            self.close_connection = True
            return
        self.respond(200, b"ok")

    do_GET = serve
    do_POST = serve
    do_PUT = serve


class Server(ThreadingHTTPServer):
    # The listen backlog (socketserver's default is 5): many clients connecting at once must not
    # find it full, or the kernel drops their SYNs and they retry seconds later.
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # resets and clients that gave up are the point of this server, not errors


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
