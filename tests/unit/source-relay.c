/* source-relay.c: which host handed a mail over, as a table of the
 * Received headers the common servers write (src/source/relay.c). */
#include "config.h"

#include <string.h>

#include "base/mime.h"
#include "source/relay.h"

typedef struct {
	const char *name;
	const char *headers; /* the message's headers, topmost first */
	const char *relays;  /* [source] list-relay */
	gboolean handed_over;
	const char *seen; /* what the header named, when not handed over */
} RelayCase;

#define POSTFIX_BENDEL                                                         \
	"Received: from bendel.debian.org (bendel.debian.org "                 \
	"[82.195.75.100])\n"                                                   \
	"\tby mx.example.org (Postfix) with ESMTPS id 4B2;\n"                  \
	"\tThu, 03 Dec 2026 10:00:00 +0000 (UTC)\n"

static const RelayCase cases[] = {
    {"Postfix: the looked-up name counts", POSTFIX_BENDEL, "bendel.debian.org",
     TRUE, NULL},
    {"Postfix: the address counts", POSTFIX_BENDEL, "82.195.75.100", TRUE,
     NULL},
    {"one of several relays counts", POSTFIX_BENDEL,
     "lists.example.net; 82.195.75.100", TRUE, NULL},
    {"names are compared without case or a final dot", POSTFIX_BENDEL,
     "Bendel.Debian.Org.", TRUE, NULL},
    {"Postfix: the sender's HELO alone does not count",
     "Received: from bendel.debian.org (unknown [203.0.113.9])\n"
     "\tby mx.example.org (Postfix) with ESMTP id 1;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Exim: the looked-up name and the address count, not the HELO",
     "Received: from attacker.example.net ([203.0.113.9] "
     "helo=bendel.debian.org)\n"
     "\tby mx.example.org with esmtp (Exim 4.96)\n",
     "bendel.debian.org", FALSE, "attacker.example.net 203.0.113.9"},
    {"Exim: the relay by name",
     "Received: from bendel.debian.org ([82.195.75.100] helo=bendel)\n"
     "\tby mx.example.org with esmtp (Exim 4.96)\n",
     "bendel.debian.org", TRUE, NULL},
    {"an IPv6 address",
     "Received: from bendel.debian.org (bendel.debian.org "
     "[IPv6:2001:41b8:202:deb::311:100])\n"
     "\tby mx.example.org (Postfix)\n",
     "2001:41b8:202:deb::311:100", TRUE, NULL},
    {"only the topmost header counts",
     "Received: from attacker.example.net (attacker.example.net "
     "[203.0.113.9])\n"
     "\tby mx.example.org (Postfix)\n" POSTFIX_BENDEL,
     "bendel.debian.org", FALSE, "attacker.example.net 203.0.113.9"},
    {"a header without a from clause names nobody",
     "Received: by mx.example.org (Postfix, from userid 0)\n"
     "\tid 1; Thu, 03 Dec 2026 10:00:00 +0000\n" POSTFIX_BENDEL,
     "bendel.debian.org", FALSE, NULL},
    {"no Received header at all", "X-Other: 1\n", "bendel.debian.org", FALSE,
     NULL},
    {"a from clause with no comment: a name in doubt does not count",
     "Received: from bendel.debian.org by mx.example.org; Thu, 03 Dec 2026\n",
     "bendel.debian.org", FALSE, NULL},
    /* A name counts only where the server's notation says it verified
     * it (Postfix, Sendmail without "may be forged", Exim outside the
     * comment); a name the sender gave (HELO) never, in any server's
     * notation; anywhere else the address alone counts. */
    {"Postfix: a HELO that looks like a comment does not count",
     "Received: from x(bendel.debian.org) (unknown [203.0.113.9])\n"
     "\tby mx.example.org (Postfix) with ESMTP id 1;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Postfix: the name is read only in its own notation",
     "Received: from bendel.debian.org (bendel.debian.org [203.0.113.9] x)\n"
     "\tby mx.example.org (Postfix) with ESMTP id 1;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Postfix: with TLS and no client certificate, the looked-up name counts",
     "Received: from bendel.debian.org (bendel.debian.org [82.195.75.100])\n"
     "\t(using TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits)\n"
     "\t key-exchange X25519 server-signature RSA-PSS (2048 bits) "
     "server-digest SHA256)\n"
     "\t(No client certificate requested)\n"
     "\tby mx.example.org (Postfix) with ESMTPS id 4B2;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000 (UTC)\n",
     "bendel.debian.org", TRUE, NULL},
    {"a HELO that writes a comment of its own does not count",
     "Received: from x (bendel.debian.org [82.195.75.100]) "
     "(unknown [203.0.113.9])\n"
     "\tby mx.example.org (Postfix) with ESMTP id 1;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org; 82.195.75.100", FALSE, "203.0.113.9"},
    {"Sendmail: the looked-up name counts",
     "Received: from bendel.debian.org (bendel.debian.org [82.195.75.100])\n"
     "\tby mx.example.org (8.17.1/8.17.1/Debian-2) with ESMTP id 3B1A0x;\n"
     "\tThu, 3 Dec 2026 10:00:00 GMT\n",
     "bendel.debian.org", TRUE, NULL},
    {"Sendmail: a name it marks (may be forged) does not count",
     "Received: from bendel.debian.org (bendel.debian.org [203.0.113.9] "
     "(may be forged))\n"
     "\tby mx.example.org (8.17.1/8.17.1/Debian-2) with ESMTP id 3B1A0x;\n"
     "\tThu, 3 Dec 2026 10:00:00 GMT\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Sendmail: the address of a marked name counts",
     "Received: from bendel.debian.org (bendel.debian.org [82.195.75.100] "
     "(may be forged))\n"
     "\tby mx.example.org (8.17.1/8.17.1/Debian-2) with ESMTP id 3B1A0x;\n"
     "\tThu, 3 Dec 2026 10:00:00 GMT\n",
     "82.195.75.100", TRUE, NULL},
    {"Sendmail: the HELO without a looked-up name does not count",
     "Received: from bendel.debian.org ([203.0.113.9])\n"
     "\tby mx.example.org (8.17.1/8.17.1/Debian-2) with ESMTP id 3B1A0x;\n"
     "\tThu, 3 Dec 2026 10:00:00 GMT\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Exim: the address with a port counts",
     "Received: from bendel.debian.org ([82.195.75.100]:41234 "
     "helo=bendel.debian.org)\n"
     "\tby mx.example.org with esmtps  (TLS1.3) tls "
     "TLS_AES_256_GCM_SHA384\n"
     "\t(Exim 4.96)\n\t(envelope-from <a@example.org>)\n"
     "\tid 1s2T3u-000ABC-1x\n\tfor tenure@example.org;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000\n",
     "82.195.75.100", TRUE, NULL},
    {"Exim: no looked-up name, the HELO does not count",
     "Received: from [203.0.113.9] (helo=bendel.debian.org)\n"
     "\tby mx.example.org with esmtp (Exim 4.96)\n"
     "\t(envelope-from <a@example.org>)\n\tid 1s2T3u-000ABC-1x;\n"
     "\tThu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"qmail: the HELO does not count",
     "Received: (qmail 12345 invoked from network); 3 Dec 2026 10:00:00 "
     "-0000\n"
     "Received: from unknown (HELO bendel.debian.org) (203.0.113.9)\n"
     "  by mx.example.org with SMTP; 3 Dec 2026 10:00:00 -0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"qmail: the HELO does not count, without the queue's header",
     "Received: from unknown (HELO bendel.debian.org) (203.0.113.9)\n"
     "  by mx.example.org with SMTP; 3 Dec 2026 10:00:00 -0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"qmail: an address literal given as HELO does not count",
     "Received: from unknown (HELO [82.195.75.100]) (203.0.113.9)\n"
     "  by mx.example.org with SMTP; 3 Dec 2026 10:00:00 -0000\n",
     "82.195.75.100", FALSE, "203.0.113.9"},
    {"qmail: an address given as HELO does not count",
     "Received: from unknown (HELO x@82.195.75.100) (203.0.113.9)\n"
     "  by mx.example.org with SMTP; 3 Dec 2026 10:00:00 -0000\n",
     "82.195.75.100", FALSE, "203.0.113.9"},
    {"qmail: a reverse name it did not verify does not count",
     "Received: from bendel.debian.org (HELO bendel.debian.org) "
     "(203.0.113.9)\n"
     "  by mx.example.org with SMTP; 3 Dec 2026 10:00:00 -0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"qmail: the address counts, past the queue's header",
     "Received: (qmail 12345 invoked from network); 3 Dec 2026 10:00:00 "
     "-0000\n"
     "Received: from bendel.debian.org (HELO bendel.debian.org) "
     "(ident@82.195.75.100)\n"
     "  by mx.example.org with SMTP; 3 Dec 2026 10:00:00 -0000\n",
     "82.195.75.100", TRUE, NULL},
    {"Dovecot LMTP: the LHLO name does not count",
     "Received: from bendel.debian.org ([203.0.113.9])\n"
     "\tby imap.example.org with LMTP\n\tid 8Hk2Ld0ZUGeZGQAA\n"
     "\t(envelope-from <a@example.org>)\n\tfor <tenure@example.org>; "
     "Thu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Dovecot LMTP: the address counts",
     "Received: from mx.example.org ([192.0.2.25])\n"
     "\tby imap.example.org with LMTP\n\tid 8Hk2Ld0ZUGeZGQAA\n"
     "\t(envelope-from <a@example.org>)\n\tfor <tenure@example.org>; "
     "Thu, 03 Dec 2026 10:00:00 +0000\n",
     "192.0.2.25", TRUE, NULL},
    {"a server's name in the sender's envelope-from does not count",
     "Received: from bendel.debian.org ([203.0.113.9])\n"
     "\tby imap.example.org with LMTP\n\tid 8Hk2Ld0ZUGeZGQAA\n"
     "\t(envelope-from <\"(Exim 4.96)\"@evil.example>)\n"
     "\tfor <tenure@example.org>; Thu, 03 Dec 2026 10:00:00 +0000\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Google: the reverse name does not count",
     "Received: from bendel.debian.org (bendel.debian.org. [203.0.113.9])\n"
     "        by mx.google.com with ESMTPS id "
     "a1si1234567wrb.123.2026.12.03.02.00.00\n"
     "        for <tenure@example.org>\n"
     "        (version=TLS1_3 cipher=TLS_AES_256_GCM_SHA384 bits=256/256);\n"
     "        Thu, 03 Dec 2026 02:00:00 -0800 (PST)\n",
     "bendel.debian.org", FALSE, "203.0.113.9"},
    {"Google: the address counts",
     "Received: from bendel.debian.org (bendel.debian.org. [82.195.75.100])\n"
     "        by mx.google.com with ESMTPS id "
     "a1si1234567wrb.123.2026.12.03.02.00.00\n"
     "        for <tenure@example.org>\n"
     "        (version=TLS1_3 cipher=TLS_AES_256_GCM_SHA384 bits=256/256);\n"
     "        Thu, 03 Dec 2026 02:00:00 -0800 (PST)\n",
     "82.195.75.100", TRUE, NULL},
    {"Microsoft: the HELO does not count, nor the server's own address",
     "Received: from bendel.debian.org (203.0.113.9) by\n"
     " DB5EUR03FT012.mail.protection.outlook.com (10.152.20.123) with "
     "Microsoft SMTP\n"
     " Server (version=TLS1_2, "
     "cipher=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) id\n"
     " 15.20.5144.13 via Frontend Transport; Thu, 3 Dec 2026 10:00:00 "
     "+0000\n",
     "bendel.debian.org; 10.152.20.123", FALSE, "203.0.113.9"},
    {"Microsoft: the address counts",
     "Received: from bendel.debian.org (82.195.75.100) by\n"
     " DB5EUR03FT012.mail.protection.outlook.com (10.152.20.123) with "
     "Microsoft SMTP\n"
     " Server id 15.20.5144.13 via Frontend Transport; Thu, 3 Dec 2026 "
     "10:00:00 +0000\n",
     "82.195.75.100", TRUE, NULL},
};

static void
test_case(gconstpointer data)
{
	const RelayCase *row = data;
	g_autofree char *text = g_strdup_printf(
	    "%sFrom: a@example.org\nTo: b@example.org\nSubject: x\n"
	    "Message-ID: <x@example.org>\n\nbody\n",
	    row->headers);
	g_autoptr(GMimeStream) stream =
	    g_mime_stream_mem_new_with_buffer(text, strlen(text));
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	g_autoptr(GMimeMessage) message =
	    g_mime_parser_construct_message(parser, NULL);
	g_assert_nonnull(message);
	g_autofree char *seen = NULL;
	g_assert_cmpint(relay_handed_over(message, row->relays, &seen), ==,
	                row->handed_over);
	g_assert_cmpstr(seen, ==, row->seen);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_mime_init();
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		    g_strdup_printf("/relay/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	int status = g_test_run();
	g_mime_shutdown();
	return status;
}
