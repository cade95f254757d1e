/* The shared monitor from C: a writer thread ticks it while reader threads take reports
 * and windows the whole time. Every report must be consistent (no torn figures), and the
 * windows together must hold every tick exactly once. Prints "ok" or the failed checks. */
#include "rtlat.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define TICKS 200000u
#define PERIOD 1000u

static rtlat_shared_jitter_monitor servo;
static atomic_int done;
static atomic_int failures;
static atomic_ullong windowed; /* ticks counted by report_and_reset windows */

static void *writer(void *arg) {
    uint64_t k;
    (void)arg;
    /* On time, except every 1000th tick, 250 late: jitter and lateness are known. */
    for (k = 1; k <= TICKS; k++) {
        uint64_t deadline = k * PERIOD;
        uint64_t now = deadline + (k % 1000 == 0 ? 250 : 0);
        if (rtlat_shared_jitter_tick_at(&servo, now, deadline, NULL) != RTLAT_OK)
            atomic_fetch_add(&failures, 1);
    }
    atomic_store(&done, 1);
    return NULL;
}

/* A report taken at any moment must be one the writer could have produced. */
static int consistent(const rtlat_jitter_report *r) {
    if (r->period_ns != PERIOD) return 0;
    if (r->lateness_count != r->ticks) return 0; /* every tick had a deadline */
    if (r->ticks == 0) return r->has_intervals == 0 && r->has_lateness == 0;
    if (r->lateness_min_ns < 0 || r->lateness_max_ns > 250) return 0;
    if (r->has_intervals &&
        (r->min_interval_ns < PERIOD - 250 || r->max_interval_ns > PERIOD + 250 ||
         r->min_interval_ns > r->max_interval_ns))
        return 0;
    return r->overruns == 0;
}

static void *reader(void *arg) {
    int windows = *(int *)arg;
    rtlat_jitter_report r;
    while (!atomic_load(&done)) {
        int rc = windows ? rtlat_shared_jitter_report_and_reset(&servo, &r)
                         : rtlat_shared_jitter_get_report(&servo, &r);
        if (rc != RTLAT_OK || !consistent(&r)) {
            atomic_fetch_add(&failures, 1);
            printf("torn or wrong report: ticks %llu min %llu max %llu late %lld..%lld\n",
                   (unsigned long long)r.ticks, (unsigned long long)r.min_interval_ns,
                   (unsigned long long)r.max_interval_ns, (long long)r.lateness_min_ns,
                   (long long)r.lateness_max_ns);
            break;
        }
        if (windows) atomic_fetch_add(&windowed, r.ticks);
    }
    return NULL;
}

int main(void) {
    pthread_t w, readers[2];
    int modes[2] = {0, 1};
    rtlat_jitter_report last;
    int i;

    if (rtlat_shared_jitter_init(&servo, PERIOD, 1000000000) != RTLAT_OK) return 1;
    for (i = 0; i < 2; i++) pthread_create(&readers[i], NULL, reader, &modes[i]);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(w, NULL);
    for (i = 0; i < 2; i++) pthread_join(readers[i], NULL);

    if (rtlat_shared_jitter_report_and_reset(&servo, &last) != RTLAT_OK) return 1;
    atomic_fetch_add(&windowed, last.ticks);
    printf("ticks %u, in windows %llu\n", TICKS, (unsigned long long)atomic_load(&windowed));
    if (atomic_load(&windowed) != TICKS) atomic_fetch_add(&failures, 1);

    /* restart: the schedule is forgotten (the next tick is a first tick: no interval, and
     * without a deadline no lateness); the window's figures stay. */
    if (rtlat_shared_jitter_restart(&servo) != RTLAT_OK ||
        rtlat_shared_jitter_tick(&servo, 9000, NULL) != RTLAT_OK ||
        rtlat_shared_jitter_get_report(&servo, &last) != RTLAT_OK || last.ticks != 1 ||
        last.has_intervals != 0 || last.has_lateness != 0)
        atomic_fetch_add(&failures, 1);
    if (rtlat_shared_jitter_tick_at(&servo, 10100, 10000, NULL) != RTLAT_OK ||
        rtlat_shared_jitter_get_report(&servo, &last) != RTLAT_OK || last.ticks != 2 ||
        last.min_interval_ns != 1100 || last.last_lateness_ns != 100)
        atomic_fetch_add(&failures, 1);
    if (rtlat_shared_jitter_get_report(&servo, NULL) != RTLAT_ERR_NULL ||
        rtlat_shared_jitter_init(&servo, 0, 1000000000) != RTLAT_ERR_ZERO)
        atomic_fetch_add(&failures, 1);
    {
        static rtlat_shared_jitter_monitor never_initialised;
        if (rtlat_shared_jitter_tick(&never_initialised, 0, NULL) != RTLAT_ERR_UNINIT)
            atomic_fetch_add(&failures, 1);
    }
    if (atomic_load(&failures) != 0) {
        printf("%d check(s) failed\n", atomic_load(&failures));
        return 1;
    }
    printf("ok\n");
    return 0;
}
