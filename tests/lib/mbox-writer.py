#!/usr/bin/python3
"""mbox-writer.py MBOX PART1 PART2 GO: append to MBOX as Exim and Postfix's
local(8) do, holding MBOX.lock (a dotlock made with O_EXCL) and a fcntl
write lock on MBOX: PART1's bytes first, then, once the file GO exists,
PART2's; the locks are let go after.  Prints "locked" once PART1 is
written (tests wait for it).  Used by tests/t-mbox-lock.sh."""
import fcntl
import os
import sys
import time

mbox, part1, part2, go = sys.argv[1:5]
lock = mbox + ".lock"
while True:
    try:
        os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444))
        break
    except FileExistsError:
        time.sleep(0.1)
with open(mbox, "ab") as out:
    fcntl.lockf(out, fcntl.LOCK_EX)
    with open(part1, "rb") as f:
        out.write(f.read())
    out.flush()
    print("locked", flush=True)
    while not os.path.exists(go):
        time.sleep(0.1)
    with open(part2, "rb") as f:
        out.write(f.read())
    out.flush()
    os.fsync(out.fileno())
    fcntl.lockf(out, fcntl.LOCK_UN)
os.unlink(lock)
