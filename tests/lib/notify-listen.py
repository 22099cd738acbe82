#!/usr/bin/python3
"""notify-listen.py SOCKET FILE [--time]: a stand-in for systemd's notification socket.

Binds a Unix datagram socket at SOCKET (the NOTIFY_SOCKET of sd_notify(3))
and appends each message it receives to FILE as one line, its
assignments joined by " | " (READY=1 | STATUS=first pass); with --time,
each line begins with the monotonic time it came at, in seconds, and a
space.  Prints "ready" once it listens; runs until killed.
"""
import socket
import sys
import time


def main():
    path, out = sys.argv[1], sys.argv[2]
    stamp = len(sys.argv) > 3 and sys.argv[3] == "--time"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    print("ready", flush=True)
    while True:
        data = sock.recv(65536)
        line = " | ".join(data.decode("utf-8", "backslashreplace").split("\n"))
        if stamp:
            line = "%.3f %s" % (time.monotonic(), line)
        with open(out, "a") as f:
            f.write(line.rstrip(" |") + "\n")


if __name__ == "__main__":
    main()
