/* tsan-glib.c: GLib's locks as ThreadSanitizer sees them, for .ci/run's
 * ThreadSanitizer build only (linked into its programs, never into
 * tenure).
 *
 * GLib's GMutex is a futex and its GRecMutex, when static, is allocated
 * on first use behind an atomic GLib itself does: code outside
 * ThreadSanitizer's sight.  Without this, every datum tenure guards
 * with one of them is reported as a race.  The program's own
 * g_mutex_lock, g_rec_mutex_lock and the rest call GLib's, with their
 * inner accesses ignored, and tell ThreadSanitizer the acquire and
 * release they are; GLib's calls to itself do not come here (it binds
 * them within the library), and .ci/tsan.supp names what of GLib's
 * inside remains.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <glib.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

#define REAL(name, type)                                                       \
	static type real;                                                      \
	if (real == NULL)                                                      \
		real = (type)dlsym(RTLD_NEXT, #name)

typedef void (*Lock)(gpointer);
typedef gboolean (*TryLock)(gpointer);
typedef void (*Wait)(GCond *, GMutex *);
typedef gboolean (*WaitUntil)(GCond *, GMutex *, gint64);

#define LOCKING(name, type)                                                    \
	void name(type *m)                                                     \
	{                                                                      \
		REAL(name, Lock);                                              \
		__tsan_ignore_thread_begin();                                  \
		real(m);                                                       \
		__tsan_ignore_thread_end();                                    \
		__tsan_acquire(m);                                             \
	}
#define UNLOCKING(name, type)                                                  \
	void name(type *m)                                                     \
	{                                                                      \
		REAL(name, Lock);                                              \
		__tsan_release(m);                                             \
		__tsan_ignore_thread_begin();                                  \
		real(m);                                                       \
		__tsan_ignore_thread_end();                                    \
	}
#define TRYING(name, type)                                                     \
	gboolean name(type *m)                                                 \
	{                                                                      \
		REAL(name, TryLock);                                           \
		__tsan_ignore_thread_begin();                                  \
		gboolean got = real(m);                                        \
		__tsan_ignore_thread_end();                                    \
		if (got)                                                       \
			__tsan_acquire(m);                                     \
		return got;                                                    \
	}

LOCKING(g_mutex_lock, GMutex)
UNLOCKING(g_mutex_unlock, GMutex)
TRYING(g_mutex_trylock, GMutex)
LOCKING(g_rec_mutex_lock, GRecMutex)
UNLOCKING(g_rec_mutex_unlock, GRecMutex)
TRYING(g_rec_mutex_trylock, GRecMutex)
LOCKING(g_rw_lock_writer_lock, GRWLock)
UNLOCKING(g_rw_lock_writer_unlock, GRWLock)
LOCKING(g_rw_lock_reader_lock, GRWLock)
UNLOCKING(g_rw_lock_reader_unlock, GRWLock)

void
g_cond_wait(GCond *cond, GMutex *m)
{
	REAL(g_cond_wait, Wait);
	__tsan_release(m);
	__tsan_ignore_thread_begin();
	real(cond, m);
	__tsan_ignore_thread_end();
	__tsan_acquire(m);
}

gboolean
g_cond_wait_until(GCond *cond, GMutex *m, gint64 end_time)
{
	REAL(g_cond_wait_until, WaitUntil);
	__tsan_release(m);
	__tsan_ignore_thread_begin();
	gboolean woken = real(cond, m, end_time);
	__tsan_ignore_thread_end();
	__tsan_acquire(m);
	return woken;
}
