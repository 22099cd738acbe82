#!/usr/bin/python3
"""A TCP relay that counts the bytes it passes.

usage: byte-counter.py LISTEN_PORT TARGET_PORT LOG

Relays 127.0.0.1:LISTEN_PORT to 127.0.0.1:TARGET_PORT and appends one
line per chunk to LOG: "UNIX_TIME DIRECTION BYTES", DIRECTION being
"up" (client to server) or "down".  TLS passes through untouched, so the
counts are what crosses the wire.
"""
import socket
import sys
import threading
import time

listen_port, target_port, log_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
log = open(log_path, "a", buffering=1)


def pump(source, sink, direction):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            with lock:
                log.write(f"{time.time():.6f} {direction} {len(data)}\n")
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", listen_port))
server.listen(16)
print("listening", flush=True)
while True:
    client, _ = server.accept()
    upstream = socket.create_connection(("127.0.0.1", target_port))
    threading.Thread(target=pump, args=(client, upstream, "up"), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, "down"), daemon=True).start()
