#!/usr/bin/python3
"""A server that stalls, or a proxy that trickles, for tenure's
stop-on-time and deadline tests.

  netstall.py [--port PORT]
      Listens on 127.0.0.1:PORT (default: a free one), prints the port on
      the first line of stdout, accepts every connection and never says a
      word: a client waits for the greeting (SMTP, IMAP) or the TLS
      handshake until its own timeout, or until it is told to stop.  Each
      connection is logged as a line "ACCEPT" on stderr.

  netstall.py --trickle HOST:PORT [--rate BYTES] [--port PORT]
      The same listener, as a proxy to HOST:PORT: what the client sends
      goes through at once, what the server sends comes back BYTES bytes
      a second (default 1), so that every read of the client gets data in
      time and no per-read timeout ever trips.  Each connection is logged
      as "ACCEPT", each second's relaying as "TRICKLE N" (bytes so far).
"""

import argparse
import signal
import socket
import sys
import threading
import time


def log(text):
    print(text, file=sys.stderr, flush=True)


def pump_fast(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass


def pump_slow(source, sink, rate):
    relayed = 0
    buffered = b""
    source.setblocking(False)
    try:
        while True:
            try:
                data = source.recv(65536)
                if data == b"" and not buffered:
                    break
                buffered += data or b""
            except BlockingIOError:
                pass
            if buffered:
                sink.sendall(buffered[:rate])
                relayed += len(buffered[:rate])
                buffered = buffered[rate:]
                log("TRICKLE %d" % relayed)
            time.sleep(1)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def trickle(client, target, rate):
    host, port = target.rsplit(":", 1)
    server = socket.create_connection((host, int(port)))
    threading.Thread(target=pump_fast, args=(client, server),
                     daemon=True).start()
    threading.Thread(target=pump_slow, args=(server, client, rate),
                     daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--trickle")
    parser.add_argument("--rate", type=int, default=1)
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    held = []
    while True:
        connection, _ = listener.accept()
        log("ACCEPT")
        if args.trickle:
            trickle(connection, args.trickle, args.rate)
        else:
            held.append(connection)


if __name__ == "__main__":
    sys.exit(main())
