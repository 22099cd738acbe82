/* keyblocks.h: which packets of the configured keyring files make the
 * committee keyring, HOME/committee.gpg (keyring.c reads the files and
 * writes what is chosen here; see "The committee's keyring" there).
 *
 * The wanted keys (by primary fingerprint) and the keys that carry a
 * wanted address are chosen from each file in turn, a key found in two
 * files merged into one, packet by packet; keyblocks_committee then
 * leaves out the subkeys that are no one's to sign with alone.  All of
 * it is work on bytes: nothing here runs gpg, reads a keyring file or
 * judges a signature.  Returned memory belongs to the caller.
 */
#ifndef TENURE_KEYBLOCKS_H
#define TENURE_KEYBLOCKS_H

#include <glib.h>

/* Where one keyblock lies in the keyring files: the I-th file
 * (KeyblockSelection.file when it was read), and its bytes there. */
typedef struct {
	guint file;
	guint64 offset;
	gsize len;
} KeyblockPlace;

/* What has been chosen so far, and what the files held. */
typedef struct {
	GHashTable *fingerprints; /* wanted primary keys */
	GHashTable *emails;       /* wanted addresses on a user ID */
	guint keys;               /* keyblocks seen */
	GHashTable *anywhere;     /* every fingerprint seen */
	GHashTable *primaries;    /* every primary key's fingerprint seen */
	GHashTable *chosen;       /* primary fingerprint -> CommitteeKey */
	GPtrArray *order;         /* the chosen keys' fingerprints, as first
	                             seen (borrowed from CHOSEN) */
	guint file;               /* the file being read, set by the caller */
	GArray *places;           /* KeyblockPlace: every keyblock seen, in
	                             the order read */
	GHashTable *located;      /* every fingerprint seen (primary or
	                             subkey) -> GArray of the guint indices
	                             in PLACES of the keyblocks carrying it */
} KeyblockSelection;

/* Starts SEL for the wanted FINGERPRINTS (upper case) and EMAILS
 * (lower case), sets of strings that SEL borrows. */
void keyblocks_selection_init(KeyblockSelection *sel,
                              GHashTable *fingerprints, GHashTable *emails);
void keyblocks_selection_clear(KeyblockSelection *sel);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(KeyblockSelection, keyblocks_selection_clear)

/* Chooses from one keyring file's bytes, DATA (a keybox, gpg's .kbx, or
 * a run of OpenPGP packets), adding to SEL->keys the keyblocks it
 * holds.  FALSE with *REASON when DATA is not whole. */
gboolean keyblocks_select(KeyblockSelection *sel, const guchar *data,
                          gsize len, char **reason);

/* The same for a file read in pieces, so that a keyring of 28 MB is
 * never in memory whole: DATA is the file's bytes from offset BASE
 * (where a keyblock, or a keybox record, starts), KEYBOX says which
 * form the file has (its first 12 bytes tell), END whether DATA runs
 * to the end of the file.  Chooses from the keyblocks DATA holds whole
 * and sets *CONSUMED to the bytes they take: the caller keeps the
 * rest, adds the next piece after it, and calls again from BASE +
 * *CONSUMED.  With END, all of DATA is consumed or FALSE is returned
 * with *REASON, as keyblocks_select. */
gboolean keyblocks_select_part(KeyblockSelection *sel, const guchar *data,
                               gsize len, guint64 base, gboolean keybox,
                               gboolean end, gsize *consumed, char **reason);

/* A map of fingerprints to sets of fingerprints: a subkey's to the
 * primary keys that carry it. */
GHashTable *keyblocks_carriers_new(void);

/* The committee keyring: the chosen keys in the order first seen, their
 * parts as part_admitted (keyblocks.c) says.  A subkey that more than
 * one of them carries, or that one carries and REMEMBERED
 * (HOME/committee.subkeys as last written) has seen under a wanted key
 * no file holds any more, is left out of every one: a signing subkey
 * counts only under its own primary key, with its back-signature (a
 * signature of the subkey's over its primary key, which no one else can
 * make), and gpgv takes the first key that carries it, whoever's it is.
 * Only gpg can tell which binding is good (tenure judges no signature),
 * and only with a signature made by the subkey: each key that carries
 * such a subkey now is put in CLAIMANTS (subkey -> GPtrArray of its
 * keyblocks, whole, as GBytes), for gpgv to try alone when the subkey
 * signs (keyring_read_claimant).  CARRIERS gets every admitted subkey's
 * primary keys, those REMEMBERED included, for HOME/committee.subkeys. */
GByteArray *keyblocks_committee(KeyblockSelection *sel,
                                GHashTable *remembered,
                                GHashTable *carriers,
                                GHashTable *claimants);

/* HOME/committee.subkeys: "SUBKEY PRIMARY" lines, each subkey of a
 * committee key with a primary key that carried it, so that a wanted
 * key the files no longer hold is still known by its subkeys.  Read
 * into CARRIERS; a line that is not two fingerprints is skipped (the
 * file is tenure's own, written whole). */
void keyblocks_carriers_read(const char *path, GHashTable *carriers);

/* CARRIERS as HOME/committee.subkeys holds them, sorted. */
char *keyblocks_carriers_text(GHashTable *carriers);

#endif
