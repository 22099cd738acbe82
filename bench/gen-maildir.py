#!/usr/bin/python3
"""Generates a Maildir of list traffic for bench/import.sh.

usage: gen-maildir.py DIR COUNT GNUPGHOME SIGNER [COMMAND_EVERY [SIGNED_EVERY]]

Most messages are unsigned discussion of assorted sizes (some quoting a
command, some with a base64 attachment); one in COMMAND_EVERY (100) is a
PGP/MIME-signed command by SIGNER, each with its own signature; one in
SIGNED_EVERY (40) is signed ordinary mail.  Prints the number of command
messages, and the path of one of them, on stdout.
"""

import os
import random
import subprocess
import sys
import time

WORDS = ("term limit committee member seniority appointment rotation "
         "proposal constitution resolution vote ballot amendment expiry "
         "project leader chair debian technical decision delegate review "
         "consensus discussion draft wording months years turnover").split()


def paragraph(rng, words):
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    lines, line = [], []
    for word in text.split():
        line.append(word)
        if len(" ".join(line)) > 66:
            lines.append(" ".join(line))
            line = []
    if line:
        lines.append(" ".join(line))
    return "\n".join(lines)


def headers(n, sender, subject, extra=""):
    return (f"From: {sender}\nTo: debian-ctte@lists.debian.org\n"
            f"Subject: {subject}\nDate: Thu, 03 Dec 2026 08:00:00 +0000\n"
            f"Message-ID: <bench.{n}@example.org>\nMIME-Version: 1.0\n"
            f"List-Id: <debian-ctte.lists.debian.org>\n{extra}")


def discussion(rng, n):
    body = "\n\n".join(paragraph(rng, rng.randint(30, 250))
                       for _ in range(rng.randint(1, 6)))
    if rng.random() < 0.1:
        body = "Someone wrote:\n> Tenure: resign\n> Effective: 2027-01-01\n\n" + body
    sender = f"person{rng.randint(1, 300)}@example.org"
    if rng.random() < 0.1:
        attachment = os.urandom(rng.randint(2000, 20000)).hex()
        return (headers(n, sender, "Re: term limits",
                        'Content-Type: multipart/mixed; boundary="b1"\n')
                + f"\n--b1\nContent-Type: text/plain\n\n{body}\n"
                + "--b1\nContent-Type: application/octet-stream\n"
                + "Content-Transfer-Encoding: base64\n\n"
                + "\n".join(attachment[i:i + 76]
                            for i in range(0, len(attachment), 76))
                + "\n--b1--\n")
    return (headers(n, sender, "Re: term limits",
                    "Content-Type: text/plain; charset=us-ascii\n")
            + "\n" + body + "\n")


def signed(gnupghome, signer, n, text, sender):
    part = ("Content-Type: text/plain; charset=us-ascii\n"
            "Content-Transfer-Encoding: 7bit\n\n" + text)
    canonical = part.replace("\n", "\r\n").encode()
    signature = subprocess.run(
        ["gpg", "--homedir", gnupghome, "--batch", "--quiet", "-u", signer,
         "--armor", "--detach-sign", "--digest-algo", "SHA256"],
        input=canonical, capture_output=True, check=True).stdout.decode()
    return (headers(n, sender, "signed",
                    'Content-Type: multipart/signed; micalg=pgp-sha256;\n'
                    ' protocol="application/pgp-signature"; boundary="s1"\n')
            + "\n--s1\n" + part + "\n--s1\n"
            + "Content-Type: application/pgp-signature\n\n" + signature
            + "--s1--\n")


def main():
    directory, count, gnupghome, signer = sys.argv[1:5]
    count = int(count)
    command_every = int(sys.argv[5]) if len(sys.argv) > 5 else 100
    signed_every = int(sys.argv[6]) if len(sys.argv) > 6 else 40
    rng = random.Random(4)
    for sub in ("new", "cur", "tmp"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    start = int(time.time()) - count
    commands, example = 0, None
    for n in range(count):
        if n % command_every == command_every // 2:
            text = (f"Tenure: resign\n\nMessage {n}: I step down.\n\n"
                    + paragraph(rng, 40) + "\n")
            message = signed(gnupghome, signer, n, text, "signer@example.org")
            commands += 1
        elif n % signed_every == 1:
            message = signed(gnupghome, signer, n,
                             paragraph(rng, rng.randint(40, 200)) + "\n",
                             "signer@example.org")
        else:
            message = discussion(rng, n)
        path = os.path.join(directory, "new", f"{start + n}.{n}.bench")
        with open(path, "w") as out:
            out.write(message)
        if example is None and message.count("Tenure: resign\n\nMessage"):
            example = path
    print(commands, example)


if __name__ == "__main__":
    main()
