#!/usr/bin/python3
"""Fills a Maildir's cur/ with COUNT small list messages, quickly.

usage: make-maildir.py MAILDIR FIRST COUNT
"""
import os
import sys
import time

maildir, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
now = int(time.time())
cur = os.path.join(maildir, "cur")
for n in range(first, first + count):
    body = (f"From: Someone {n} <someone{n}@example.org>\n"
            f"To: ctte@lists.example.org\nSubject: discussion {n}\n"
            f"Message-ID: <bulk-{n}@example.org>\n\n"
            f"Old list traffic, message {n}.\n")
    with open(os.path.join(cur, f"{now}.B{n}.bench:2,S"), "w") as f:
        f.write(body)
