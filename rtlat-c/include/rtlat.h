/*
 * rtlat.h: the C API of rtlat's jitter monitor (the rtlat-c crate, librtlat_c.a).
 *
 * A jitter monitor measures code that already runs periodically (a servo thread, a timer
 * interrupt): call rtlat_jitter_tick_at() with the time at the top of each period and the
 * deadline it was due at (or rtlat_jitter_tick() with the time alone). It keeps
 *   - interval jitter, LinuxCNC's definition: max(max_interval - period, period - min_interval);
 *   - lateness: now - deadline, signed, against the caller's deadlines (tick_at) or the
 *     monitor's own schedule first + k * period (tick), with deadlines already passed when
 *     a tick comes counted as overruns.
 * Times go in as ticks of the caller's clock (the rate is given once, to rtlat_jitter_init);
 * figures come out in nanoseconds. No allocation, no locks, no system calls: every function
 * is safe to call from a real-time thread or an interrupt handler.
 *
 * The monitor lives in the caller's memory (a static, a component's instance data). One
 * rtlat_jitter_monitor is used by one thread at a time; the caller serialises tick, report
 * and reset. rtlat_shared_jitter_monitor (below) is ticked by one writer while any thread
 * reads it.
 *
 * Every function returns RTLAT_OK (0) or a negative RTLAT_ERR_* code.
 *
 * Hand-written; rtlat-c's tests check every size, offset and constant here against the Rust
 * definitions (src/jitter.rs, src/shared.rs) by compiling a probe with the C compiler.
 */
#ifndef RTLAT_H
#define RTLAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised when a declaration below changes incompatibly. */
#define RTLAT_C_API_VERSION 1

#define RTLAT_OK 0
/* A pointer argument was NULL. */
#define RTLAT_ERR_NULL (-1)
/* The monitor's memory is not aligned to RTLAT_JITTER_MONITOR_ALIGN. */
#define RTLAT_ERR_ALIGN (-2)
/* A period or tick rate of zero (or a period under 1 ns). */
#define RTLAT_ERR_ZERO (-3)
/* The monitor was never given to rtlat_jitter_init (zeroed memory is detected). */
#define RTLAT_ERR_UNINIT (-4)

#define RTLAT_JITTER_MONITOR_SIZE 256
#define RTLAT_JITTER_MONITOR_ALIGN 16

/* One jitter monitor: opaque, of fixed size and alignment, in the caller's memory. */
typedef struct rtlat_jitter_monitor {
#ifdef __cplusplus
    alignas(RTLAT_JITTER_MONITOR_ALIGN) unsigned char opaque[RTLAT_JITTER_MONITOR_SIZE];
#else
    _Alignas(RTLAT_JITTER_MONITOR_ALIGN) unsigned char opaque[RTLAT_JITTER_MONITOR_SIZE];
#endif
} rtlat_jitter_monitor;

/* What one tick measured. */
typedef struct rtlat_jitter_tick_result {
    uint64_t interval_ns;  /* time since the previous tick (0 without has_interval) */
    int64_t jitter_ns;     /* interval - period (0 without has_interval) */
    int64_t lateness_ns;   /* this tick - its deadline (0 without has_lateness) */
    uint64_t overruns;     /* deadlines this tick found passed, not charged before */
    uint32_t has_interval; /* 0 on the first tick after init or reset, else 1 */
    uint32_t has_lateness; /* 1 when the tick had a deadline to be late against */
} rtlat_jitter_tick_result;

/* Everything the monitor saw since init or reset, in ns. The interval fields are 0 while
 * has_intervals is 0, the lateness fields while has_lateness is 0. */
typedef struct rtlat_jitter_report {
    uint64_t period_ns;
    uint64_t ticks;
    uint64_t min_interval_ns;
    uint64_t max_interval_ns;
    uint64_t max_jitter_ns;   /* max(max_interval - period, period - min_interval) */
    uint64_t lateness_count;
    int64_t lateness_min_ns;  /* most negative: the earliest tick */
    int64_t lateness_max_ns;
    int64_t lateness_mean_ns; /* truncated toward zero */
    int64_t last_lateness_ns; /* the latest tick's */
    uint64_t overruns;        /* deadlines already passed when a tick came */
    uint32_t has_intervals;   /* 1 once an interval was measured */
    uint32_t has_lateness;    /* 1 once a lateness was measured (lateness_count > 0) */
} rtlat_jitter_report;

/* Makes *monitor a fresh monitor for activity with period period_ticks of a clock counting
 * tick_rate_hz ticks per second (1000000000 for a nanosecond clock such as
 * clock_gettime(CLOCK_MONOTONIC) or LinuxCNC's rtapi_get_time()). The memory may be
 * uninitialised. */
int rtlat_jitter_init(rtlat_jitter_monitor *monitor, uint64_t period_ticks,
                      uint64_t tick_rate_hz);

/* Records a tick at now_ticks, the time at the top of the period, against the monitor's own
 * schedule: the first tick after init or reset fixes it (and has no lateness); a tick more
 * than a period late skips the deadlines passed. result may be NULL. */
int rtlat_jitter_tick(rtlat_jitter_monitor *monitor, uint64_t now_ticks,
                      rtlat_jitter_tick_result *result);

/* Records a tick at now_ticks that was due at deadline_ticks, the caller's own deadline:
 * exact whatever the loop does after a stall (runs the missed periods back to back, or
 * skips them). result may be NULL. */
int rtlat_jitter_tick_at(rtlat_jitter_monitor *monitor, uint64_t now_ticks,
                         uint64_t deadline_ticks, rtlat_jitter_tick_result *result);

/* Fills *report with everything measured since init or reset. */
int rtlat_jitter_get_report(const rtlat_jitter_monitor *monitor, rtlat_jitter_report *report);

/* Fills *report with the window that ends here and starts a new one; the schedule goes on,
 * so the next tick's interval and lateness count in the next window (per-window lines). */
int rtlat_jitter_report_and_reset(rtlat_jitter_monitor *monitor, rtlat_jitter_report *report);

/* Forgets everything measured; the next tick fixes a new schedule. Period and rate stay. */
int rtlat_jitter_reset(rtlat_jitter_monitor *monitor);

/* ---- The shared monitor: one writer ticks, any thread reads, nobody waits ----
 *
 * For a monitor ticked by an interrupt handler or a realtime thread (the one writer) and
 * read by the main loop or other threads: the writer never waits for a reader, never takes
 * a lock and never masks interrupts; a reader gets a consistent report (it retries only
 * while a tick is being stored). Initialise it before sharing it. Figures and results as
 * for the plain monitor. */

#define RTLAT_SHARED_JITTER_MONITOR_SIZE 512
#define RTLAT_SHARED_JITTER_MONITOR_ALIGN 16

typedef struct rtlat_shared_jitter_monitor {
#ifdef __cplusplus
    alignas(RTLAT_SHARED_JITTER_MONITOR_ALIGN)
        unsigned char opaque[RTLAT_SHARED_JITTER_MONITOR_SIZE];
#else
    _Alignas(RTLAT_SHARED_JITTER_MONITOR_ALIGN)
        unsigned char opaque[RTLAT_SHARED_JITTER_MONITOR_SIZE];
#endif
} rtlat_shared_jitter_monitor;

int rtlat_shared_jitter_init(rtlat_shared_jitter_monitor *monitor, uint64_t period_ticks,
                             uint64_t tick_rate_hz);

/* The writer only (one at a time). */
int rtlat_shared_jitter_tick(rtlat_shared_jitter_monitor *monitor, uint64_t now_ticks,
                             rtlat_jitter_tick_result *result);
int rtlat_shared_jitter_tick_at(rtlat_shared_jitter_monitor *monitor, uint64_t now_ticks,
                                uint64_t deadline_ticks, rtlat_jitter_tick_result *result);
/* Forgets the schedule: the next tick is a first tick again. The figures stay. */
int rtlat_shared_jitter_restart(rtlat_shared_jitter_monitor *monitor);

/* Any thread, any time. */
int rtlat_shared_jitter_get_report(const rtlat_shared_jitter_monitor *monitor,
                                   rtlat_jitter_report *report);
/* The window that ends here, and a new one: every tick lands in exactly one window. */
int rtlat_shared_jitter_report_and_reset(rtlat_shared_jitter_monitor *monitor,
                                         rtlat_jitter_report *report);

#ifdef __cplusplus
}
#endif

#endif /* RTLAT_H */
