/*
 * rtlat_jitter: a LinuxCNC HAL realtime component that measures the thread it is added to
 * with rtlat's jitter monitor (rtlat.h, librtlat_c.a). Add its function at the head of a
 * thread (`addf rtlat-jitter.0 servo-thread 1`) and read its pins:
 *
 *   rtlat-jitter.N.max-jitter    s32 out  max(max-interval - period, period - min-interval), ns
 *   rtlat-jitter.N.max-interval  s32 out  longest time between two runs, ns
 *   rtlat-jitter.N.min-interval  s32 out  shortest time between two runs, ns
 *   rtlat-jitter.N.interval      s32 out  time since the previous run, ns
 *   rtlat-jitter.N.lateness      s32 out  this run minus the deadline the thread slept
 *                                         until (rtapi_task_pll_get_reference()), ns
 *   rtlat-jitter.N.lateness-min  s32 out  smallest lateness, ns
 *   rtlat-jitter.N.lateness-max  s32 out  largest lateness, ns
 *   rtlat-jitter.N.ticks         u32 out  runs measured
 *   rtlat-jitter.N.overruns      u32 out  deadlines already passed when a run came
 *   rtlat-jitter.N.period        s32 out  the thread's period, ns
 *   rtlat-jitter.N.reset         bit in   while TRUE, forget everything; measuring starts
 *                                         again (a new schedule) at the first run after it
 *
 * Interval jitter is what LinuxCNC's latency test and `timedelta` report; lateness is
 * against the thread's own deadlines, exact when LinuxCNC runs missed periods back to back
 * after a stall. ns figures beyond the s32 range saturate.
 *
 * Module parameter: count=N monitors (default 1), rtlat-jitter.0 ... rtlat-jitter.N-1.
 * Written for rtlat (MIT OR Apache-2.0); uses only LinuxCNC's public HAL/RTAPI headers.
 */
#include "rtapi.h"
#include "rtapi_app.h"
#include "hal.h"
#include "rtlat.h"

MODULE_AUTHOR("rtlat contributors");
MODULE_DESCRIPTION("Interval jitter, lateness and overruns of the HAL thread it runs on");
/* rtlat is MIT OR Apache-2.0; MIT is offered here, in the kernel's spelling of a
 * GPL-compatible licence. */
MODULE_LICENSE("Dual MIT/GPL");

#define MAX_MONITORS 16

static int count = 1;
RTAPI_MP_INT(count, "number of monitors, rtlat-jitter.0 ... (at most 16)");

/* Pins live in HAL shared memory; `period` is the thread period the monitor was
 * initialised with (0: not yet, or reset). */
struct instance {
    hal_s32_t *max_jitter;
    hal_s32_t *max_interval;
    hal_s32_t *min_interval;
    hal_s32_t *interval;
    hal_s32_t *lateness;
    hal_s32_t *lateness_min;
    hal_s32_t *lateness_max;
    hal_u32_t *ticks;
    hal_u32_t *overruns;
    hal_s32_t *period_pin;
    hal_bit_t *reset;
    long period;
    int index;
};

static int comp_id;
static struct instance *instances;
/* The monitors, in this module's memory: only the realtime function touches them. */
static rtlat_jitter_monitor monitors[MAX_MONITORS];

static hal_s32_t saturate_s32(int64_t ns) {
    if (ns > 2147483647) return 2147483647;
    if (ns < -2147483647 - 1) return -2147483647 - 1;
    return (hal_s32_t)ns;
}

static hal_s32_t saturate_u_s32(uint64_t ns) {
    return ns > 2147483647u ? 2147483647 : (hal_s32_t)ns;
}

static void publish(struct instance *in, const rtlat_jitter_report *r,
                    const rtlat_jitter_tick_result *t) {
    *in->max_jitter = saturate_u_s32(r->max_jitter_ns);
    *in->max_interval = saturate_u_s32(r->max_interval_ns);
    *in->min_interval = saturate_u_s32(r->min_interval_ns);
    *in->interval = saturate_u_s32(t->interval_ns);
    *in->lateness = saturate_s32(r->last_lateness_ns);
    *in->lateness_min = saturate_s32(r->lateness_min_ns);
    *in->lateness_max = saturate_s32(r->lateness_max_ns);
    *in->ticks = (hal_u32_t)r->ticks;
    *in->overruns = (hal_u32_t)r->overruns;
}

/* The realtime function: one tick per run of the thread. */
static void measure(void *arg, long period) {
    long long now = rtapi_get_time(); /* first, as close to the thread's wake-up as can be */
    /* The time this run of the thread was due: the deadline it slept until, on the same
     * clock (CLOCK_MONOTONIC in uspace). */
    long long deadline = rtapi_task_pll_get_reference();
    struct instance *in = arg;
    rtlat_jitter_monitor *monitor = &monitors[in->index];
    rtlat_jitter_tick_result tick = {0};
    rtlat_jitter_report report = {0};

    if (*in->reset) {
        in->period = 0;
        publish(in, &report, &tick);
        return;
    }
    if (in->period != period) { /* the first run, after a reset, or a new period */
        if (period <= 0 || rtlat_jitter_init(monitor, (uint64_t)period, 1000000000) != RTLAT_OK)
            return;
        in->period = period;
        *in->period_pin = saturate_s32(period);
    }
    if (rtlat_jitter_tick_at(monitor, (uint64_t)now, (uint64_t)deadline, &tick) != RTLAT_OK ||
        rtlat_jitter_get_report(monitor, &report) != RTLAT_OK)
        return;
    publish(in, &report, &tick);
}

static int export_instance(struct instance *in, int index) {
    const char *p = "rtlat-jitter";
    char name[HAL_NAME_LEN + 1];
    int r = 0;

    in->index = index;
    in->period = 0;
    r |= hal_pin_s32_newf(HAL_OUT, &in->max_jitter, comp_id, "%s.%d.max-jitter", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->max_interval, comp_id, "%s.%d.max-interval", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->min_interval, comp_id, "%s.%d.min-interval", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->interval, comp_id, "%s.%d.interval", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->lateness, comp_id, "%s.%d.lateness", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->lateness_min, comp_id, "%s.%d.lateness-min", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->lateness_max, comp_id, "%s.%d.lateness-max", p, index);
    r |= hal_pin_u32_newf(HAL_OUT, &in->ticks, comp_id, "%s.%d.ticks", p, index);
    r |= hal_pin_u32_newf(HAL_OUT, &in->overruns, comp_id, "%s.%d.overruns", p, index);
    r |= hal_pin_s32_newf(HAL_OUT, &in->period_pin, comp_id, "%s.%d.period", p, index);
    r |= hal_pin_bit_newf(HAL_IN, &in->reset, comp_id, "%s.%d.reset", p, index);
    if (r != 0) return -1;
    *in->max_jitter = *in->max_interval = *in->min_interval = *in->interval = 0;
    *in->lateness = *in->lateness_min = *in->lateness_max = *in->period_pin = 0;
    *in->ticks = *in->overruns = 0;
    *in->reset = 0;
    rtapi_snprintf(name, sizeof name, "%s.%d", p, index);
    /* No floating point, not reentrant. */
    return hal_export_funct(name, measure, in, 0, 0, comp_id);
}

int rtapi_app_main(void) {
    int i;

    if (count < 1 || count > MAX_MONITORS) {
        rtapi_print_msg(RTAPI_MSG_ERR, "rtlat_jitter: count=%d, must be 1 to %d\n", count,
                        MAX_MONITORS);
        return -EINVAL;
    }
    comp_id = hal_init("rtlat_jitter");
    if (comp_id < 0) return comp_id;
    instances = hal_malloc(count * sizeof *instances);
    if (instances == NULL) {
        hal_exit(comp_id);
        return -ENOMEM;
    }
    for (i = 0; i < count; i++) {
        if (export_instance(&instances[i], i) != 0) {
            rtapi_print_msg(RTAPI_MSG_ERR, "rtlat_jitter: cannot export rtlat-jitter.%d\n", i);
            hal_exit(comp_id);
            return -EINVAL;
        }
    }
    hal_ready(comp_id);
    return 0;
}

void rtapi_app_exit(void) { hal_exit(comp_id); }
