/* test-relay.c: which host handed a mail over, as a table of the
 * Received headers the common servers write (src/relay.c). */
#include "config.h"

#include <string.h>

#include "mime.h"
#include "relay.h"

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
    {"a from clause with no comment: its name",
     "Received: from bendel.debian.org by mx.example.org; Thu, 03 Dec 2026\n",
     "bendel.debian.org", TRUE, NULL},
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
