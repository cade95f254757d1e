/* Calls every function of rtlat.h and checks the exact figures of a known schedule.
 * Prints "ok" and exits 0, or names the first failed check and exits 1. */
#include "rtlat.h"
#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond)                                                         \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);        \
            failures++;                                                      \
        }                                                                    \
    } while (0)

/* A static: zeroed, never initialised. */
static rtlat_jitter_monitor never_initialised;

int main(void) {
    rtlat_jitter_monitor servo;
    rtlat_jitter_tick_result tick;
    rtlat_jitter_report report;
    const uint64_t t0 = 1000000000u; /* 1 s: a nanosecond clock */

    memset(&servo, 0xa5, sizeof servo); /* uninitialised memory is fine for init */
    EXPECT(rtlat_jitter_init(&servo, 1000000, 1000000000) == RTLAT_OK);

    /* Nothing seen yet. */
    EXPECT(rtlat_jitter_get_report(&servo, &report) == RTLAT_OK);
    EXPECT(report.period_ns == 1000000 && report.ticks == 0 && report.has_intervals == 0);
    EXPECT(report.has_lateness == 0);
    EXPECT(report.max_jitter_ns == 0 && report.lateness_count == 0 && report.overruns == 0);

    EXPECT(rtlat_jitter_tick(&servo, t0, &tick) == RTLAT_OK);
    EXPECT(tick.has_interval == 0 && tick.interval_ns == 0 && tick.jitter_ns == 0);
    EXPECT(tick.has_lateness == 0 && tick.overruns == 0); /* no deadline yet */

    EXPECT(rtlat_jitter_tick(&servo, t0 + 1000000, &tick) == RTLAT_OK);
    EXPECT(tick.has_interval == 1 && tick.interval_ns == 1000000 && tick.jitter_ns == 0);
    EXPECT(tick.has_lateness == 1 && tick.lateness_ns == 0);

    EXPECT(rtlat_jitter_tick(&servo, t0 + 2000150, &tick) == RTLAT_OK);
    EXPECT(tick.interval_ns == 1000150 && tick.jitter_ns == 150 && tick.lateness_ns == 150);

    EXPECT(rtlat_jitter_tick(&servo, t0 + 2999900, NULL) == RTLAT_OK); /* early by 100 ns */

    /* A stall: the deadlines at 4 and 5 ms pass; the tick at 6 ms + 200 ns is for 6 ms. */
    EXPECT(rtlat_jitter_tick(&servo, t0 + 6000200, &tick) == RTLAT_OK);
    EXPECT(tick.interval_ns == 3000300 && tick.jitter_ns == 2000300);
    EXPECT(tick.lateness_ns == 200 && tick.overruns == 2);

    EXPECT(rtlat_jitter_get_report(&servo, &report) == RTLAT_OK);
    printf("ticks %llu min %llu max %llu jitter %llu lateness %lld/%lld/%lld "
           "(%llu) overruns %llu\n",
           (unsigned long long)report.ticks,
           (unsigned long long)report.min_interval_ns,
           (unsigned long long)report.max_interval_ns,
           (unsigned long long)report.max_jitter_ns, (long long)report.lateness_min_ns,
           (long long)report.lateness_mean_ns, (long long)report.lateness_max_ns,
           (unsigned long long)report.lateness_count, (unsigned long long)report.overruns);
    EXPECT(report.period_ns == 1000000 && report.ticks == 5 && report.has_intervals == 1);
    EXPECT(report.min_interval_ns == 999750 && report.max_interval_ns == 3000300);
    EXPECT(report.max_jitter_ns == 2000300);
    /* Lateness 0, 150, -100, 200 (the first tick had none): sum 250 over 4. */
    EXPECT(report.has_lateness == 1 && report.lateness_count == 4);
    EXPECT(report.lateness_min_ns == -100);
    EXPECT(report.lateness_max_ns == 200 && report.lateness_mean_ns == 62);
    EXPECT(report.last_lateness_ns == 200);
    EXPECT(report.overruns == 2);

    /* Reset: a fresh schedule, the same period. */
    EXPECT(rtlat_jitter_reset(&servo) == RTLAT_OK);
    EXPECT(rtlat_jitter_get_report(&servo, &report) == RTLAT_OK);
    EXPECT(report.period_ns == 1000000 && report.ticks == 0 && report.overruns == 0);
    EXPECT(report.lateness_count == 0 && report.last_lateness_ns == 0);
    EXPECT(rtlat_jitter_tick(&servo, t0 + 9000000, &tick) == RTLAT_OK && tick.has_interval == 0);

    /* The caller's deadlines, and a loop that catches up after a stall (as LinuxCNC's
     * threads do): the run due at 2 ms comes at 4 ms + 500 ns, the runs due at 3 and 4 ms
     * follow back to back, then the schedule goes on. */
    {
        rtlat_jitter_monitor loop;
        static const uint64_t runs[][2] = {
            {10, 0},           {1000020, 1000000}, {4000500, 2000000},
            {4000600, 3000000}, {4000700, 4000000}, {5000010, 5000000},
        };
        unsigned i;
        EXPECT(rtlat_jitter_init(&loop, 1000000, 1000000000) == RTLAT_OK);
        for (i = 0; i < sizeof runs / sizeof runs[0]; i++)
            EXPECT(rtlat_jitter_tick_at(&loop, t0 + runs[i][0], t0 + runs[i][1], &tick) ==
                   RTLAT_OK);
        EXPECT(tick.has_lateness == 1 && tick.lateness_ns == 10);
        EXPECT(rtlat_jitter_report_and_reset(&loop, &report) == RTLAT_OK);
        printf("catching up: ticks %llu min %llu max %llu jitter %llu lateness %lld/%lld/%lld "
               "last %lld (%llu) overruns %llu\n",
               (unsigned long long)report.ticks, (unsigned long long)report.min_interval_ns,
               (unsigned long long)report.max_interval_ns,
               (unsigned long long)report.max_jitter_ns, (long long)report.lateness_min_ns,
               (long long)report.lateness_mean_ns, (long long)report.lateness_max_ns,
               (long long)report.last_lateness_ns, (unsigned long long)report.lateness_count,
               (unsigned long long)report.overruns);
        EXPECT(report.ticks == 6 && report.lateness_count == 6);
        EXPECT(report.min_interval_ns == 100 && report.max_interval_ns == 3000480);
        EXPECT(report.max_jitter_ns == 2000480);
        /* 10, 20, 2000500, 1000600, 700, 10: never early, as the loop never was. */
        EXPECT(report.lateness_min_ns == 10 && report.lateness_max_ns == 2000500);
        EXPECT(report.lateness_mean_ns == 500306 && report.last_lateness_ns == 10);
        EXPECT(report.overruns == 2);
        /* The next window: the schedule went on, so its first tick has an interval. */
        EXPECT(rtlat_jitter_tick_at(&loop, t0 + 6000030, t0 + 6000000, NULL) == RTLAT_OK);
        EXPECT(rtlat_jitter_get_report(&loop, &report) == RTLAT_OK);
        EXPECT(report.ticks == 1 && report.has_intervals == 1);
        EXPECT(report.min_interval_ns == 1000020 && report.last_lateness_ns == 30);
        EXPECT(rtlat_jitter_report_and_reset(NULL, &report) == RTLAT_ERR_NULL);
        EXPECT(rtlat_jitter_report_and_reset(&loop, NULL) == RTLAT_ERR_NULL);
        EXPECT(rtlat_jitter_tick_at(&never_initialised, 0, 0, NULL) == RTLAT_ERR_UNINIT);
    }

    /* A 1 MHz clock: ticks in, ns out. */
    {
        rtlat_jitter_monitor micros;
        EXPECT(rtlat_jitter_init(&micros, 1000, 1000000) == RTLAT_OK);
        EXPECT(rtlat_jitter_tick(&micros, 5000, NULL) == RTLAT_OK);
        EXPECT(rtlat_jitter_tick(&micros, 6001, &tick) == RTLAT_OK);
        EXPECT(tick.interval_ns == 1001000 && tick.jitter_ns == 1000);
        EXPECT(rtlat_jitter_get_report(&micros, &report) == RTLAT_OK);
        EXPECT(report.period_ns == 1000000 && report.max_jitter_ns == 1000);
    }

    /* Errors. */
    EXPECT(rtlat_jitter_init(NULL, 1000000, 1000000000) == RTLAT_ERR_NULL);
    EXPECT(rtlat_jitter_init(&servo, 0, 1000000000) == RTLAT_ERR_ZERO);
    EXPECT(rtlat_jitter_init(&servo, 1000000, 0) == RTLAT_ERR_ZERO);
    EXPECT(rtlat_jitter_tick(NULL, 0, NULL) == RTLAT_ERR_NULL);
    EXPECT(rtlat_jitter_get_report(&servo, NULL) == RTLAT_ERR_NULL);
    EXPECT(rtlat_jitter_get_report(NULL, &report) == RTLAT_ERR_NULL);
    EXPECT(rtlat_jitter_reset(NULL) == RTLAT_ERR_NULL);
    EXPECT(rtlat_jitter_tick(&never_initialised, t0, NULL) == RTLAT_ERR_UNINIT);
    EXPECT(rtlat_jitter_get_report(&never_initialised, &report) == RTLAT_ERR_UNINIT);
    EXPECT(rtlat_jitter_reset(&never_initialised) == RTLAT_ERR_UNINIT);
    {
        /* Memory off the declared alignment (a cast a C caller could write). */
        static rtlat_jitter_monitor two[2];
        rtlat_jitter_monitor *off = (rtlat_jitter_monitor *)((char *)two + 8);
        EXPECT(rtlat_jitter_init(off, 1000000, 1000000000) == RTLAT_ERR_ALIGN);
    }
    /* The failed init above left the earlier monitor as it was (errors write nothing). */
    EXPECT(rtlat_jitter_get_report(&servo, &report) == RTLAT_OK && report.ticks == 1);

    if (failures != 0) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
