#!/usr/bin/python3
"""Latency of tenure under IDLE, beside a bare IDLE client.

usage: idle-latency.py PORT CA USER PASSWORD_FILE LIST_MAILDIR MAIL...

Each MAIL is a signed resignation whose announcement carries the
subject "... <name> resigns ...", where <name> is the mail's file name
(Trial-N -> "Trial N").  For each MAIL in turn: APPEND it over IMAP,
note when the server said OK, when a bare IDLE client (a second
connection, a few lines below) was told EXISTS, and when the SMTP server
wrote the announcement into LIST_MAILDIR (the file's mtime: aiosmtpd
writes it before it answers 250).  Prints one line per trial and the
figures at the end.
"""
import imaplib
import os
import re
import socket
import ssl
import statistics
import sys
import threading
import time

port, ca, user, password_file, maildir = sys.argv[1:6]
mails = sys.argv[6:]
password = open(password_file).read().strip()
context = ssl.create_default_context(cafile=ca)

exists_times = []
ready = threading.Event()


def bare_idle_client():
    """Logs in, selects INBOX, idles and notes every EXISTS."""
    sock = context.wrap_socket(socket.create_connection(("localhost", int(port))),
                               server_hostname="localhost")
    stream = sock.makefile("rb")
    stream.readline()

    def command(tag, text):
        sock.sendall(f"{tag} {text}\r\n".encode())
        while not stream.readline().startswith(tag.encode()):
            pass

    command("a", f"LOGIN {user} {password}")
    command("b", "SELECT INBOX")
    sock.sendall(b"c IDLE\r\n")
    stream.readline()
    ready.set()
    for line in stream:
        if line.rstrip().endswith(b"EXISTS"):
            exists_times.append(time.time())


def announcement_time(name, deadline):
    """The mtime of the list copy of NAME's announcement, or None."""
    pattern = re.compile(rb"^Subject: .*" + name.encode() + rb" resigns", re.M)
    seen = set()
    while time.time() < deadline:
        for sub in ("new", "cur"):
            directory = os.path.join(maildir, sub)
            for entry in os.listdir(directory):
                path = os.path.join(directory, entry)
                if entry in seen:
                    continue
                seen.add(entry)
                try:
                    with open(path, "rb") as f:
                        head = f.read(4096)
                    if pattern.search(head):
                        return os.stat(path).st_mtime
                except FileNotFoundError:
                    # Dovecot moved it from new/ to cur/: look again.
                    seen.discard(entry)
        time.sleep(0.002)
    return None


threading.Thread(target=bare_idle_client, daemon=True).start()
ready.wait(10)
appender = imaplib.IMAP4_SSL("localhost", int(port), ssl_context=context)
appender.login(user, password)

tenure_ms, bare_ms, share_ms = [], [], []
for path in mails:
    name = os.path.basename(path).replace("-", " ")
    data = open(path, "rb").read()
    seen_before = len(exists_times)
    status, _ = appender.append("INBOX", None, None, data)
    appended = time.time()
    if status != "OK":
        sys.exit(f"APPEND of {path} failed")
    sent = announcement_time(name, appended + 30)
    # The bare client's EXISTS for this APPEND is the first after it.
    deadline = time.time() + 5
    while len(exists_times) <= seen_before and time.time() < deadline:
        time.sleep(0.001)
    if sent is None or len(exists_times) <= seen_before:
        sys.exit(f"{name}: no announcement or no EXISTS within the deadline")
    exists = exists_times[seen_before]
    t, b = (sent - appended) * 1000, (exists - appended) * 1000
    tenure_ms.append(t)
    bare_ms.append(b)
    share_ms.append(t - b)
    print(f"{name}: tenure {t:7.1f} ms  bare IDLE client {b:7.1f} ms  "
          f"tenure's share {t - b:6.1f} ms", flush=True)
    # Let the announcement come back on the list (and be ignored) before
    # the next trial, so trials do not overlap.
    time.sleep(0.8)
appender.logout()


def figures(label, values):
    print(f"{label}: median {statistics.median(values):7.1f} ms, "
          f"worst {max(values):7.1f} ms")


print(f"trials: {len(tenure_ms)}")
figures("APPEND -> announcement accepted by SMTP (tenure)", tenure_ms)
figures("APPEND -> EXISTS at a bare IDLE client (floor) ", bare_ms)
figures("tenure's own share (per-trial difference)      ", share_ms)
