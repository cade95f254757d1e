//! `rtlat servo`'s base and servo threads: rtlat-engine's, with this program's allocation
//! count (its counting allocator).

use rtlat_engine::OnThread;
use rtlat_engine::servo::{Plan, Report, Shared};

/// Runs one thread until `shared.stop` ([`rtlat_engine::servo::run_thread`]).
pub fn run_thread(plan: &Plan, index: usize, shared: &Shared) -> Result<Report, OnThread> {
    rtlat_engine::servo::run_thread(plan, index, shared, crate::allocations::this_thread)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_engine::servo::{Figures, Plan, Report, Shared};
    use rtlat_engine::setup::Setup;
    use rtlat_linux::Policy;
    use std::sync::atomic::Ordering;

    #[test]
    fn two_threads_measure_intervals_and_allocate_nothing() {
        let shared = Shared::new(2);
        let plans = [
            Plan {
                name: "base",
                period_ns: 200_000,
                setup: Setup {
                    cpu: None,
                    policy: Policy::Other,
                    priority: 0,
                    prefault_stack: 16 * 1024,
                },
            },
            Plan {
                name: "servo",
                period_ns: 1_000_000,
                setup: Setup {
                    cpu: None,
                    policy: Policy::Other,
                    priority: 0,
                    prefault_stack: 16 * 1024,
                },
            },
        ];
        let reports: Vec<Report> = std::thread::scope(|s| {
            let workers: Vec<_> = plans
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let shared = &shared;
                    std::thread::Builder::new()
                        .stack_size(256 * 1024)
                        .spawn_scoped(s, move || run_thread(p, i, shared))
                        .unwrap()
                })
                .collect();
            shared.ready.wait();
            std::thread::sleep(std::time::Duration::from_millis(300));
            shared.stop.store(true, Ordering::Release);
            workers
                .into_iter()
                .map(|w| w.join().unwrap().unwrap())
                .collect()
        });
        for (plan, (r, live)) in plans.iter().zip(reports.iter().zip(&shared.live)) {
            assert_eq!(
                r.allocations, 0,
                "{}: nothing allocated while measuring",
                plan.name
            );
            assert!(r.jitter.ticks > 10, "{}: {r:?}", plan.name);
            let (min, max) = (
                r.jitter.min_interval_ns.unwrap(),
                r.jitter.max_interval_ns.unwrap(),
            );
            assert!(min <= max);
            let p = plan.period_ns;
            assert_eq!(
                r.jitter.max_jitter_ns,
                Some(max.saturating_sub(p).max(p.saturating_sub(min)))
            );
            // Every period run: the intervals add up to the periods plus the difference
            // between the last and the first run's lateness.
            assert_eq!(
                Some(r.cumulative_error_ns),
                r.last_lateness_ns
                    .zip(r.first_lateness_ns)
                    .map(|(last, first)| last - first),
                "{}: {r:?}",
                plan.name
            );
            assert_eq!(r.lateness.count(), r.jitter.ticks);
            // The last published figures are the final ones.
            let f = Figures::from_live(&live.read(), p);
            assert_eq!(f, Figures::from_report(r));
            assert!(live.finished());
        }
        // The worst runs: pushed each time the max jitter grew, the last one's lateness
        // within the thread's lateness range and its tick among those run.
        for (i, r) in reports.iter().enumerate() {
            let mut worst = Vec::new();
            shared.worst[i].drain(|tick, lateness, wake| worst.push((tick, lateness, wake)));
            assert!(!worst.is_empty(), "{}: a first jitter", plans[i].name);
            assert!(
                worst.windows(2).all(|w| w[0].0 < w[1].0 && w[0].2 < w[1].2),
                "{worst:?}"
            );
            let (tick, lateness, _) = *worst.last().unwrap();
            assert!(tick < r.jitter.ticks, "{worst:?} {r:?}");
            assert!(
                (r.lateness.min().unwrap()..=r.lateness.max().unwrap()).contains(&lateness),
                "{worst:?} {r:?}"
            );
        }
    }
}
