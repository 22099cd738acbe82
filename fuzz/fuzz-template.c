/* fuzz-template.c: the template renderer and the message it composes.
 *
 * The input is a template file, optionally followed by a NUL byte and a
 * value for {{member}}, so both what an admin writes in
 * /etc/tenure/templates and what a sender puts in a name are exercised.
 * The composed message must parse as a message again, and a value can
 * never add a header: whatever {{member}} holds, the message has no
 * header named "Injected".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gmime/gmime.h>

#include "conf/conf.h"
#include "fuzz.h"
#include "out/mailout.h"
#include "base/mime.h"
#include "verify/signed_part.h"

static char *scratch;

static void
remove_scratch(void)
{
	g_autofree char *file = g_build_filename(scratch, "fuzz.txt", NULL);
	unlink(file);
	rmdir(scratch);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (scratch == NULL) {
		g_mime_init();
		scratch = g_dir_make_tmp("tn.XXXXXX", NULL);
		FUZZ_ASSERT(scratch != NULL, "a scratch directory");
		atexit(remove_scratch);
	}
	const uint8_t *nul = memchr(data, '\0', size);
	size_t template_len = nul ? (size_t)(nul - data) : size;
	g_autofree char *member =
	    nul ? g_strndup((const char *)nul + 1, size - template_len - 1)
	        : g_strdup("Jane Doe <jane@example.org>\nInjected: yes");

	g_autofree char *file = g_build_filename(scratch, "fuzz.txt", NULL);
	FUZZ_ASSERT(g_file_set_contents(file, (const char *)data,
	                                template_len, NULL),
	            "the template is written");

	g_autoptr(Conf) conf = conf_new_default();
	g_free(conf->templates_dir);
	conf->templates_dir = g_strdup(scratch);
	g_free(conf->list);
	conf->list = g_strdup("ctte@lists.example.org");
	g_free(conf->sink_from);
	conf->sink_from = g_strdup("tenure@example.org");

	g_autoptr(GHashTable) vars =
	    g_hash_table_new(g_str_hash, g_str_equal);
	/* Every placeholder the shipped templates use, so that they
	 * render; {{member}} carries the input's value. */
	static const char *const values[][2] = {
	    {"date", "2026-12-31"},
	    {"days_left", "30"},
	    {"eligible_from", "2028-01-01"},
	    {"email", "jane@example.org"},
	    {"fingerprint", "89ABCDEF0123456789ABCDEF0123456789ABCDEF"},
	    {"in_reply_to", "<x@example.org>"},
	    {"late", ""},
	    {"late_subject", " (announced late)"},
	    {"name", "Jane Doe"},
	    {"old_fingerprint", "0123456789ABCDEF0123456789ABCDEF01234567"},
	    {"previous", "John Doe <john@example.org>"},
	    {"reason", "a vote is under way"},
	    {"role", "chair"},
	    {"rule", "debian"},
	    {"signed_by", "0123456789ABCDEF0123456789ABCDEF01234567"},
	    {"signer", "Jane Doe <jane@example.org>"},
	    {"source", "<x@example.org>"},
	    {"subject", "Re: command"},
	    {"term_end", "2027-12-31"},
	    {"to", "jane@example.org"},
	    {"transcript", "> Tenure: resign\nresign: done"},
	    {"until", "2027-03-31"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(values); i++)
		g_hash_table_insert(vars, (char *)values[i][0],
		                    (char *)values[i][1]);
	g_hash_table_insert(vars, "member", member);

	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) mail = mailout_compose(
	    conf, "fuzz", vars, "<tenure.fuzz@example.org>", &error);
	if (mail == NULL) {
		FUZZ_ASSERT(error != NULL, "a refused template says why");
		return 0;
	}
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) message = signed_part_parse(mail, &reason);
	FUZZ_ASSERT(message != NULL, "tenure's own mail parses");
	FUZZ_ASSERT(g_mime_object_get_header(GMIME_OBJECT(message),
	                                     "Injected") == NULL ||
	                strstr((const char *)data, "Injected") != NULL,
	            "a placeholder value adds no header");
	return 0;
}
