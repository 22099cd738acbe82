#!/usr/bin/python3
"""A server that stalls, for tenure's stop-on-time tests.

  netstall.py [--port PORT]
      Listens on 127.0.0.1:PORT (default: a free one), prints the port on
      the first line of stdout, accepts every connection and never says a
      word: a client waits for the greeting (SMTP, IMAP) or the TLS
      handshake until its own timeout, or until it is told to stop.  Each
      connection is logged as a line "ACCEPT" on stderr.
"""

import argparse
import signal
import socket
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
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
        print("ACCEPT", file=sys.stderr, flush=True)
        held.append(connection)
        time.sleep(0)


if __name__ == "__main__":
    sys.exit(main())
