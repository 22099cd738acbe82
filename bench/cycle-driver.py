#!/usr/bin/python3
"""Drives a running tenure daemon through CYCLES passes and samples its
resident memory.

usage: cycle-driver.py PID LOG PORT CA USER PASSWORD_FILE CYCLES SIGNED...

Each cycle APPENDs one message over IMAP and waits until the daemon logs
the new mail ("imap-new-mail"): one IDLE wake-up, fetch, intake,
schedule and outbox pass.  Every hundredth message is one of the SIGNED
mails (a resignation: gpg, ledger, outbox, SMTP); the others are list
chatter.  Prints VmRSS after warm-up and at every hundredth cycle.
"""
import imaplib
import ssl
import sys
import time

pid, log_path, port, ca, user, password_file = sys.argv[1:7]
cycles = int(sys.argv[7])
signed = sys.argv[8:]
context = ssl.create_default_context(cafile=ca)
imap = imaplib.IMAP4_SSL("localhost", int(port), ssl_context=context)
imap.login(user, open(password_file).read().strip())


def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def wakeups():
    with open(log_path) as f:
        return sum(1 for line in f if line.startswith("imap-new-mail"))


samples = []
start = time.time()
for cycle in range(1, cycles + 1):
    if cycle % 100 == 50 and signed:
        message = open(signed.pop(0), "rb").read()
    else:
        message = (f"From: Someone <someone@example.org>\r\n"
                   f"To: ctte@lists.example.org\r\nSubject: chatter {cycle}\r\n"
                   f"Message-ID: <chatter-{cycle}-{start}@example.org>\r\n\r\n"
                   f"Discussion, cycle {cycle}.\r\n").encode()
    before = wakeups()
    imap.append("INBOX", None, None, message)
    deadline = time.time() + 30
    while wakeups() <= before:
        if time.time() > deadline:
            sys.exit(f"cycle {cycle}: the daemon did not wake up")
        time.sleep(0.01)
    if cycle == 10 or cycle % 100 == 0 or cycle == cycles:
        kb = rss_kb()
        samples.append((cycle, kb))
        print(f"cycle {cycle:5d}: VmRSS {kb / 1024:6.1f} MB", flush=True)
imap.logout()
warm = samples[0][1]
last = samples[-1][1]
peak = max(kb for _, kb in samples)
# Growth is judged from cycle 100 on, once every code path has run.
reference = samples[1][1] if len(samples) > 2 else warm
print(f"cycles: {cycles} in {time.time() - start:.0f} s")
print(f"resident memory after {cycles} cycles: {last / 1024:.1f} MB "
      f"(after 10: {warm / 1024:.1f} MB, peak sample {peak / 1024:.1f} MB, "
      f"growth since cycle 100: {(last - reference) / 1024:+.1f} MB)")
