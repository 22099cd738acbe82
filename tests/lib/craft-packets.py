#!/usr/bin/python3
"""craft-packets.py: OpenPGP "signatures" no honest signer makes, for the
tests of what tenure refuses before gpg runs (issue 15, item 5).  Prints
an armoured block on stdout.

  craft-packets.py compressed LAYERS SIZE
      LAYERS nested compressed data packets around a literal packet of
      SIZE zero octets (the decompression bomb)
  craft-packets.py repeat N SIGNATURE_FILE
      the signature packet of an armoured SIGNATURE_FILE, N times over
  craft-packets.py version V SIGNATURE_FILE
      that signature packet with its version octet set to V
  craft-packets.py partial SIGNATURE_FILE
      that signature packet with its body sent as partial lengths
  craft-packets.py field class|pubkey|hash V SIGNATURE_FILE
      that (version 4) signature packet with its signature class, public
      key algorithm or hash algorithm octet set to V (what an outsider
      without a key can send: gpgv can give no verdict on it)
  craft-packets.py created SECONDS SIGNATURE_FILE
      that (version 4) signature packet with the creation time in its
      hashed area set to SECONDS (Unix time): no longer a good signature,
      and before its key was made if SECONDS is
  craft-packets.py drop-value SIGNATURE_FILE
      that (version 4) signature packet without its last value (MPI),
      the packet's length made to fit (gpgv says only NODATA of it)
  craft-packets.py strip-backsigs KEYRING_FILE
      the binary keyring (on stdout, not armoured) with the embedded
      signatures (back-signatures) taken out of every signature's
      unhashed area: the bindings stay valid, the back-signatures go
"""
import base64
import sys
import zlib


def crc24(data):
    crc = 0xB704CE
    for octet in data:
        crc ^= octet << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def armour(data, label="SIGNATURE"):
    text = base64.b64encode(data).decode()
    lines = [text[i:i + 64] for i in range(0, len(text), 64)]
    crc = base64.b64encode(crc24(data).to_bytes(3, "big")).decode()
    return "-----BEGIN PGP %s-----\n\n%s\n=%s\n-----END PGP %s-----\n" % (
        label, "\n".join(lines), crc, label)


def dearmour(text):
    body = []
    in_headers = True
    for line in text.splitlines()[1:]:
        line = line.strip()
        if line.startswith("-----END"):
            break
        if in_headers:
            if line == "":
                in_headers = False
            continue
        if line.startswith("="):
            continue
        body.append(line)
    return base64.b64decode("".join(body))


def packet(tag, body):
    """A new-format packet with a five-octet length."""
    return bytes([0xC0 | tag, 0xFF]) + len(body).to_bytes(4, "big") + body


def first_packet(data):
    """The header length and body of the first packet of DATA."""
    header = data[0]
    if header & 0x40:
        first = data[1]
        if first < 192:
            return 2, data[2:2 + first]
        if first < 224:
            length = ((first - 192) << 8) + data[2] + 192
            return 3, data[3:3 + length]
        length = int.from_bytes(data[2:6], "big")
        return 6, data[6:6 + length]
    octets = {0: 1, 1: 2, 2: 4}[header & 3]
    length = int.from_bytes(data[1:1 + octets], "big")
    return 1 + octets, data[1 + octets:1 + octets + length]


def subpackets(area):
    """The subpackets of a signature's subpacket AREA, each whole."""
    i = 0
    while i < len(area):
        first = area[i]
        if first < 192:
            size, length = 1, first
        elif first < 255:
            size, length = 2, ((first - 192) << 8) + area[i + 1] + 192
        else:
            size, length = 5, int.from_bytes(area[i + 1:i + 5], "big")
        yield area[i:i + size + length]
        i += size + length


def strip_backsigs(data):
    out = b""
    while data:
        header = data[0]
        tag = header & 0x3F if header & 0x40 else (header >> 2) & 0x0F
        size, body = first_packet(data)
        data = data[size + len(body):]
        if tag == 2 and body[0] == 4:
            hashed = int.from_bytes(body[4:6], "big")
            at = 6 + hashed
            unhashed = int.from_bytes(body[at:at + 2], "big")
            area = body[at + 2:at + 2 + unhashed]
            kept = b"".join(sub for sub in subpackets(area)
                            if sub[1 if sub[0] < 192 else 2 if sub[0] < 255 else 5] & 0x7F != 32)
            body = body[:at] + len(kept).to_bytes(2, "big") + kept + \
                body[at + 2 + unhashed:]
        out += packet(tag, body)
    return out


def main(argv):
    if argv[1] == "strip-backsigs":
        with open(argv[2], "rb") as f:
            sys.stdout.buffer.write(strip_backsigs(f.read()))
        return
    if argv[1] == "compressed":
        layers, size = int(argv[2]), int(argv[3])
        data = packet(11, b"b\x00\x00\x00\x00\x00" + b"\x00" * size)
        for _ in range(layers):
            data = packet(8, b"\x02" + zlib.compress(data, 9))
        sys.stdout.write(armour(data))
        return
    with open(argv[-1]) as f:
        signature = dearmour(f.read())
    _, body = first_packet(signature)
    if argv[1] == "repeat":
        sys.stdout.write(armour(packet(2, body) * int(argv[2])))
    elif argv[1] == "version":
        sys.stdout.write(armour(packet(2, bytes([int(argv[2])]) + body[1:])))
    elif argv[1] == "field":
        at = {"class": 1, "pubkey": 2, "hash": 3}[argv[2]]
        body = body[:at] + bytes([int(argv[3], 0)]) + body[at + 1:]
        sys.stdout.write(armour(packet(2, body)))
    elif argv[1] == "created":
        hashed = int.from_bytes(body[4:6], "big")
        area = body[6:6 + hashed]
        out = b""
        for sub in subpackets(area):
            size = 1 if sub[0] < 192 else 2 if sub[0] < 255 else 5
            if sub[size] & 0x7F == 2:
                sub = sub[:size + 1] + int(argv[2]).to_bytes(4, "big")
            out += sub
        body = body[:6] + out + body[6 + hashed:]
        sys.stdout.write(armour(packet(2, body)))
    elif argv[1] == "drop-value":
        hashed = int.from_bytes(body[4:6], "big")
        at = 6 + hashed
        at += 2 + int.from_bytes(body[at:at + 2], "big") + 2
        last = at
        while at < len(body):
            last = at
            at += 2 + (int.from_bytes(body[at:at + 2], "big") + 7) // 8
        sys.stdout.write(armour(packet(2, body[:last])))
    elif argv[1] == "partial":
        # A first chunk of 2^0 = 1 octet, then the rest as a final length.
        rest = body[1:]
        data = bytes([0xC2, 0xE0]) + body[:1] + bytes([0xFF]) + \
            len(rest).to_bytes(4, "big") + rest
        sys.stdout.write(armour(data))
    else:
        sys.exit("craft-packets.py: unknown command " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
