/* fuzz-packets.c: the OpenPGP packet reader that bounds gpg's work.
 *
 * The input is a signature as a PGP/MIME signature part or the end of a
 * clearsigned block carries it: armoured or binary, hostile either way.
 * packets_check_signature must decide, with a reason exactly when it
 * refuses; what it lets through is, walked again, one signature packet
 * of version 3 or 4 and nothing else.  The same bytes are also walked
 * raw and searched for a clearsigned block's signature, whose span must
 * lie within the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "verify/packets.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	g_autofree char *reason = NULL;
	gboolean ok = packets_check_signature(text, size, &reason);
	FUZZ_ASSERT(ok == (reason == NULL),
	            "a refusal and only a refusal has a reason");
	FUZZ_ASSERT(ok || *reason != '\0', "a refusal says why");
	if (ok) {
		g_autofree char *again = NULL;
		g_autoptr(GBytes) packets =
		    packets_dearmor(text, size, "SIGNATURE", &again);
		FUZZ_ASSERT(packets != NULL, "what was let through dearmours");
		gsize len = 0;
		const guchar *bytes = g_bytes_get_data(packets, &len);
		PacketsSummary summary;
		FUZZ_ASSERT(packets_walk(bytes, len, &summary, &again),
		            "what was let through walks");
		FUZZ_ASSERT(summary.packets == 1 && summary.signatures == 1 &&
		                summary.compressed == 0 && !summary.partial &&
		                (summary.version == 3 || summary.version == 4),
		            "what was let through is one signature packet");
		FUZZ_ASSERT(size <= PACKETS_MAX_SIGNATURE_BYTES, "it is small");
	}

	PacketsSummary raw;
	g_autofree char *raw_reason = NULL;
	gboolean walked = packets_walk(data, size, &raw, &raw_reason);
	FUZZ_ASSERT(walked == (raw_reason == NULL),
	            "a walk fails with a reason");
	FUZZ_ASSERT(raw.packets <= size, "no packet without an octet");
	FUZZ_ASSERT(raw.signatures + raw.compressed <= raw.packets,
	            "the counts add up");

	gsize signature_len = 0;
	const char *signature =
	    packets_clearsigned_signature(text, size, &signature_len);
	FUZZ_ASSERT(
	    signature == NULL ||
	        (signature >= text && signature + signature_len == text + size),
	    "the clearsigned signature is the input's end");
	return 0;
}
