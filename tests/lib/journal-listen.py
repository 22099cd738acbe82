#!/usr/bin/python3
"""journal-listen.py SOCKET DIR: a stand-in for journald's native socket.

Binds a Unix datagram socket at SOCKET and writes each entry it receives
to DIR/N.json as {field: value} (journald's native protocol: KEY=VALUE
lines, or KEY, a newline, a 64-bit little-endian length and the value
for a value holding a newline; an entry too large for a datagram comes
as a memfd passed with SCM_RIGHTS).  Runs until killed.
"""
import array
import json
import os
import socket
import struct
import sys


def parse(data):
    fields = {}
    i = 0
    while i < len(data):
        end = data.index(b"\n", i)
        line = data[i:end]
        if b"=" in line:
            key, _, value = line.partition(b"=")
            i = end + 1
        else:
            key = line
            (size,) = struct.unpack("<Q", data[end + 1:end + 9])
            value = data[end + 9:end + 9 + size]
            i = end + 9 + size + 1
        fields[key.decode()] = value.decode("utf-8", "backslashreplace")
    return fields


def main():
    path, out = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    n = 0
    while True:
        fds = array.array("i")
        data, ancdata, _, _ = sock.recvmsg(1 << 20, socket.CMSG_SPACE(4))
        for level, kind, cmsg in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(cmsg[:4])
        if fds:
            with os.fdopen(fds[0], "rb") as memfd:
                data = memfd.read()
        n += 1
        with open(os.path.join(out, "%d.json" % n), "w") as f:
            json.dump(parse(data), f)


main()
