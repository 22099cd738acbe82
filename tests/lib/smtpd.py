#!/usr/bin/python3
"""A test SMTP server for tenure's mail-out tests, built on aiosmtpd.

  smtpd.py certs DIR
      Makes a test CA (ca.pem), a server certificate for 127.0.0.1 and
      localhost signed by it (server.pem, server.key), and a second,
      unrelated CA (other-ca.pem) for "untrusted certificate" tests, with
      certtool (GnuTLS) or, where that is missing, openssl.

  smtpd.py serve --mode MODE --maildir DIR [--certs DIR] [--auth USER:PASS]
                 [--control FILE] [--log FILE] [--port PORT]
      Listens on PORT (default: a free one) on 127.0.0.1 and prints the
      port on the first line of stdout.  MODE: plain (no STARTTLS
      offered), starttls, smtps (TLS from the first byte).  Every
      accepted message is written as is (CRLF kept) into DIR/new, after
      X-Envelope-From/X-Envelope-To lines.
      When the control file exists and is not empty, its first line (for
      example "451 4.3.0 try again later" or "554 5.7.1 refused") is the
      answer to DATA instead.  Lines "ADDRESS ANSWER" in FILE.rcpt
      refuse that recipient with that answer; lines "ADDRESS ANSWER" in
      FILE.rcpt-once do so once each, the line crossed off when used (a
      4xx that a retry gets past).  The first line of
      FILE.mail answers MAIL FROM (say "530 5.7.0 Authentication
      required"); the first line of FILE.greeting replaces the greeting
      (say "554 5.3.2 no service"), after which every command but QUIT
      gets 503, as RFC 5321 wants.  FILE.delay holds a number of seconds
      to wait before answering the end of the data (the message is taken
      all the same).  When FILE.drop exists, the message is taken and the
      connection dropped before the answer to its data (RFC 1047's case:
      the client cannot know that it was delivered).  When FILE.date holds
      a number of seconds, the greeting gives the date as Exim does, that
      far from the server's clock ("220 localhost ESMTP tenure-test Thu,
      03 Dec 2026 12:00:00 +0000"; 0 for the clock itself).  When
      FILE.idle holds "SECONDS [ANSWER]", a session idle that long is
      closed, as Exim and Postfix close one after about five minutes:
      with ANSWER first (say "421 4.4.2 idle timeout") or without a word
      (EOF); ANSWER "drop" keeps the socket open and resets it at the
      next command, unanswered, as a firewall that forgot the session
      does.  The log file gets one line per SMTP event (EHLO,
      AUTH-OK/AUTH-FAIL, MAIL, RCPT, DATA, IDLE-CLOSE) with "tls" or
      "clear" for whether the session was encrypted at that point.
"""

import argparse
import asyncio
import email.utils
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time

from aiosmtpd.smtp import SMTP, AuthResult


# The test certificates hold for any day a test sets tenure's clock to
# (tests/lib/common.sh, tenure_at: years ahead or back; GnuTLS checks them on
# that clock).  openssl's cannot start before today.
VALIDITY = ('activation_date = "2000-01-01 00:00:00 UTC"\n'
            'expiration_date = "2099-12-31 23:59:59 UTC"\n')
OPENSSL_DAYS = "36500"


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def openssl_ca(directory, name):
    key = os.path.join(directory, name + ".key")
    pem = os.path.join(directory, name + ".pem")
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
        "-out", pem, "-days", OPENSSL_DAYS,
        "-subj", "/CN=tenure test CA " + name,
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return key, pem


def openssl_certs(directory):
    ca_key, ca_pem = openssl_ca(directory, "ca")
    openssl_ca(directory, "other-ca")
    key = os.path.join(directory, "server.key")
    csr = os.path.join(directory, "server.csr")
    ext = os.path.join(directory, "server.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                "extendedKeyUsage=serverAuth\n"
                "basicConstraints=critical,CA:FALSE\n")
    run("openssl", "req", "-newkey", "ec", "-pkeyopt",
        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
        "-out", csr, "-subj", "/CN=localhost")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca_pem, "-CAkey",
        ca_key, "-CAcreateserial", "-out",
        os.path.join(directory, "server.pem"), "-days", OPENSSL_DAYS,
        "-extfile", ext)


def certtool_key(path):
    run("certtool", "--generate-privkey", "--key-type", "ecdsa",
        "--outfile", path)


def certtool_template(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def certtool_ca(directory, name):
    key = os.path.join(directory, name + ".key")
    pem = os.path.join(directory, name + ".pem")
    certtool_key(key)
    template = certtool_template(
        os.path.join(directory, name + ".tmpl"),
        'cn = "tenure test CA %s"\nca\ncert_signing_key\n' % name
        + VALIDITY)
    run("certtool", "--generate-self-signed", "--load-privkey", key,
        "--template", template, "--outfile", pem)
    return key, pem


def certtool_certs(directory):
    ca_key, ca_pem = certtool_ca(directory, "ca")
    certtool_ca(directory, "other-ca")
    key = os.path.join(directory, "server.key")
    certtool_key(key)
    template = certtool_template(
        os.path.join(directory, "server.tmpl"),
        'cn = "localhost"\ndns_name = "localhost"\n'
        'ip_address = "127.0.0.1"\ntls_www_server\nsigning_key\n'
        + VALIDITY)
    run("certtool", "--generate-certificate", "--load-privkey", key,
        "--load-ca-certificate", ca_pem, "--load-ca-privkey", ca_key,
        "--template", template, "--outfile",
        os.path.join(directory, "server.pem"))


def certs(directory):
    """GnuTLS's certtool (gnutls-bin, a build dependency) when present,
    else openssl."""
    os.makedirs(directory, exist_ok=True)
    if shutil.which("certtool"):
        certtool_certs(directory)
    else:
        openssl_certs(directory)


class Handler:
    def __init__(self, maildir, control, log):
        self.maildir = maildir
        self.control = control
        self.log_path = log
        self.counter = 0
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(maildir, sub), exist_ok=True)

    def log(self, session, event):
        if self.log_path:
            tls = "tls" if session.ssl else "clear"
            with open(self.log_path, "a") as f:
                f.write("%s %s\n" % (event, tls))

    async def handle_EHLO(self, server, session, envelope, hostname,
                          responses):
        self.log(session, "EHLO")
        session.host_name = hostname
        return responses

    def answer_from(self, suffix):
        """The first line of the control file CONTROL+SUFFIX, or None."""
        if not self.control:
            return None
        try:
            with open(self.control + suffix) as f:
                return f.readline().strip() or None
        except FileNotFoundError:
            return None

    async def handle_MAIL(self, server, session, envelope, address,
                          options):
        self.log(session, "MAIL")
        answer = self.answer_from(".mail")
        if answer:
            return answer
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address,
                          options):
        self.log(session, "RCPT")
        if self.control and os.path.exists(self.control + ".rcpt"):
            with open(self.control + ".rcpt") as f:
                for line in f:
                    rejected, _, answer = line.strip().partition(" ")
                    if rejected == address and answer:
                        return answer
        answer = self.rcpt_once(address)
        if answer:
            return answer
        envelope.rcpt_tos.append(address)
        return "250 OK"

    def rcpt_once(self, address):
        """The answer of the first line of FILE.rcpt-once for ADDRESS,
        crossed off the file; None when it has none."""
        if not self.control:
            return None
        path = self.control + ".rcpt-once"
        try:
            with open(path) as f:
                lines = f.readlines()
        except FileNotFoundError:
            return None
        for i, line in enumerate(lines):
            refused, _, answer = line.strip().partition(" ")
            if refused == address and answer:
                with open(path + ".tmp", "w") as f:
                    f.writelines(lines[:i] + lines[i + 1:])
                os.rename(path + ".tmp", path)
                return answer
        return None

    async def handle_DATA(self, server, session, envelope):
        self.log(session, "DATA")
        delay = self.answer_from(".delay")
        if delay:
            await asyncio.sleep(float(delay))
        if self.control and os.path.exists(self.control):
            with open(self.control) as f:
                answer = f.readline().strip()
            if answer:
                return answer
        self.counter += 1
        name = "%d.%d_%d.test" % (time.time(), os.getpid(), self.counter)
        tmp = os.path.join(self.maildir, "tmp", name)
        with open(tmp, "wb") as f:
            f.write(b"X-Envelope-From: " + envelope.mail_from.encode() +
                    b"\r\n")
            f.write(b"X-Envelope-To: " +
                    ", ".join(envelope.rcpt_tos).encode() + b"\r\n")
            f.write(envelope.original_content)
        os.rename(tmp, os.path.join(self.maildir, "new", name))
        if self.control and os.path.exists(self.control + ".drop"):
            self.log(session, "DROP")
            server.transport.abort()
        return "250 OK delivered"


class IdleClosing(SMTP):
    """A session that the server closes once it was idle for a while,
    with a last word (421) or without one."""

    def __init__(self, handler, idle, answer, **kwargs):
        super().__init__(handler, timeout=idle, **kwargs)
        self.idle_answer = answer
        self.idle_handler = handler

    def _timeout_cb(self):
        self.idle_handler.log(self.session, "IDLE-CLOSE")
        if self.idle_answer == "drop":
            self.idle_dropped = True
            return
        if self.idle_answer:
            self.transport.write(self.idle_answer.encode() + b"\r\n")
        self.transport.close()

    def data_received(self, data):
        if getattr(self, "idle_dropped", False):
            self.transport.abort()
            return
        super().data_received(data)


class Refusal(asyncio.Protocol):
    """A session refused at the greeting: 503 to everything but QUIT."""

    def __init__(self, greeting, handler):
        self.greeting = greeting
        self.handler = handler
        self.buffer = b""

    def connection_made(self, transport):
        self.transport = transport
        if self.handler.log_path:
            with open(self.handler.log_path, "a") as f:
                f.write("GREETING-REFUSED\n")
        transport.write(self.greeting.encode() + b"\r\n")

    def data_received(self, data):
        self.buffer += data
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            if line.strip().upper() == b"QUIT":
                self.transport.write(b"221 2.0.0 bye\r\n")
                self.transport.close()
                return
            self.transport.write(b"503 5.5.1 no service here\r\n")


def serve(args):
    context = None
    if args.mode in ("starttls", "smtps"):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.path.join(args.certs, "server.pem"),
                                os.path.join(args.certs, "server.key"))
    handler = Handler(args.maildir, args.control, args.log)
    authenticator = None
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, data):
            ok = (data.login.decode() == user and
                  data.password.decode() == password)
            handler.log(session, "AUTH-OK" if ok else "AUTH-FAIL")
            # handled=False: aiosmtpd answers a failure with its 535, as
            # a real server does; handled=True (the default) would leave
            # the client waiting for an answer that never comes.
            return AuthResult(success=ok, handled=False)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    def factory():
        greeting = handler.answer_from(".greeting")
        if greeting:
            return Refusal(greeting, handler)
        kwargs = dict(hostname="localhost", loop=loop)
        offset = handler.answer_from(".date")
        if offset:
            kwargs.update(ident="ESMTP tenure-test " + email.utils.formatdate(
                time.time() + float(offset)))
        if args.mode == "starttls":
            kwargs.update(tls_context=context, require_starttls=True)
        if authenticator:
            kwargs.update(authenticator=authenticator, auth_required=True,
                          auth_require_tls=True)
        idle = handler.answer_from(".idle")
        if idle:
            seconds, _, answer = idle.partition(" ")
            return IdleClosing(handler, float(seconds), answer, **kwargs)
        return SMTP(handler, **kwargs)

    server = loop.run_until_complete(loop.create_server(
        factory, host="127.0.0.1", port=args.port,
        ssl=context if args.mode == "smtps" else None))
    print(server.sockets[0].getsockname()[1], flush=True)
    loop.add_signal_handler(signal.SIGTERM, loop.stop)
    loop.run_forever()
    server.close()


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("certs")
    c.add_argument("directory")
    s = sub.add_parser("serve")
    s.add_argument("--mode", choices=("plain", "starttls", "smtps"),
                   required=True)
    s.add_argument("--maildir", required=True)
    s.add_argument("--certs")
    s.add_argument("--auth")
    s.add_argument("--control")
    s.add_argument("--log")
    s.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.command == "certs":
        certs(args.directory)
    else:
        serve(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
