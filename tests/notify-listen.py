#!/usr/bin/python3
"""notify-listen.py SOCKET FILE: a stand-in for systemd's notification socket.

Binds a Unix datagram socket at SOCKET (the NOTIFY_SOCKET of sd_notify(3))
and appends each message it receives to FILE as one line, its
assignments joined by " | " (READY=1 | STATUS=first pass).  Prints
"ready" once it listens; runs until killed.
"""
import socket
import sys


def main():
    path, out = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    print("ready", flush=True)
    while True:
        data = sock.recv(65536)
        line = " | ".join(data.decode("utf-8", "backslashreplace").split("\n"))
        with open(out, "a") as f:
            f.write(line.rstrip(" |") + "\n")


if __name__ == "__main__":
    main()
