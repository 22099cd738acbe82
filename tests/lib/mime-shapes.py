#!/usr/bin/python3
"""mime-shapes.py SHAPE COUNT [SIZE]: prints a mail of a shape that costs
a MIME reader more than its size, made at test time (issue 39 item 1).

Every mail holds a line "Tenure: resign" in a text part, so that tenure
takes it for a command attempt and parses it.  SIZE (bytes, default 0)
pads the mail to about that size with text that changes nothing of its
shape.

  unclosed N    a multipart/mixed of N multipart/mixed parts, each
                closed; the outer one's closing line "--o--" ends in a
                form feed: a boundary line to a reader that takes any
                blank after the boundary, not to GMime, for which a form
                feed is no linear white space, so GMime finds the mail
                truncated and the reader that explains why visits every
                part
  parameters N  a Content-Type with N parameters
  headers N     N header fields
  header-block N  a header block of N bytes (in fields of 900)
  parts N       a multipart/mixed of N text parts, closed
  depth N       N multipart/mixed nested in one another, closed
  plain N       a text/plain mail of N bytes (COUNT is its size)
"""
import sys


def head(extra=""):
    return ("From: Mallory Outsider <mallory@example.org>\n"
            "To: debian-ctte@lists.debian.org\n"
            "Subject: a costly shape\n"
            "Date: Mon, 07 Dec 2026 00:00:00 +0000\n"
            "Message-ID: <shape-%s-%d@example.org>\n"
            "MIME-Version: 1.0\n%s" % (shape, count, extra))


def text(pad=0):
    filler = ""
    if pad > 0:
        line = "x" * 71 + "\n"
        filler = line * (pad // len(line))
    return ("Content-Type: text/plain; charset=us-ascii\n\n"
            "Tenure: resign\n\n" + filler)


def per_part(total, n):
    return max(0, total // max(n, 1) - 120)


shape, count = sys.argv[1], int(sys.argv[2])
size = int(sys.argv[3]) if len(sys.argv) > 3 else 0
out = []
if shape == "unclosed":
    out.append(head('Content-Type: multipart/mixed; boundary="o"\n\n'))
    pad = per_part(size, count)
    for i in range(count):
        out.append('--o\nContent-Type: multipart/mixed; boundary="i%d"\n\n'
                   '--i%d\n%s\n--i%d--\n' % (i, i, text(pad), i))
    out.append("--o--\f\n")
elif shape == "parameters":
    params = "".join(";\n p%d=v%d" % (i, i) for i in range(count))
    out.append(head("Content-Type: text/plain; charset=us-ascii%s\n\n"
                    % params))
    out.append(text(size)[44:])
elif shape == "headers":
    fields = "".join("X-Filler-%d: %d\n" % (i, i) for i in range(count))
    out.append(head(fields + "\n"))
    out.append(text(size)[44:])
elif shape == "header-block":
    field = "X-Filler: " + "y" * 889 + "\n"
    out.append(head(field * (count // len(field) + 1) + "\n"))
    out.append(text(size)[44:])
elif shape == "parts":
    out.append(head('Content-Type: multipart/mixed; boundary="p"\n\n'))
    pad = per_part(size, count)
    for i in range(count):
        out.append("--p\n%s\n" % text(pad))
    out.append("--p--\n")
elif shape == "depth":
    out.append(head('Content-Type: multipart/mixed; boundary="d0"\n\n'))
    for i in range(1, count):
        out.append('--d%d\nContent-Type: multipart/mixed; boundary="d%d"\n\n'
                   % (i - 1, i))
    out.append("--d%d\n%s\n" % (count - 1, text(size)))
    for i in reversed(range(count)):
        out.append("--d%d--\n" % i)
elif shape == "plain":
    out.append(head())
    out.append(text(max(count, size)))
else:
    sys.exit("mime-shapes.py: no shape %s" % shape)
sys.stdout.write("".join(out))
