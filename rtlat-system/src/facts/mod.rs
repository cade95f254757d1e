//! System facts read through a root path: everything the tuning audit and the tuning commands
//! look at, read from `/` on a live system or from a tree captured from another machine
//! (`tests/data/` holds some).
//!
//! [`Facts`] holds only the root; every fact is a method that reads its file when called and
//! returns `Result<T, FactError>`. A file that does not exist is [`FactError::Absent`] (many
//! exist only on some kernels: `/sys/kernel/realtime` on PREEMPT_RT, `cpufreq/` on machines
//! with frequency scaling, `nohz_full` with `CONFIG_NO_HZ_FULL`); [`FactResultExt::optional`]
//! turns that into `None`. Content not in the kernel's format is a typed error
//! ([`FactError::Malformed`], [`FactError::CpuList`]), never a panic.
//!
//! | idea                         | methods (on [`Facts`] unless said)                        |
//! |------------------------------|-----------------------------------------------------------|
//! | kernel ([`kernel`])          | `cmdline`, `os_release`, `kernel_version`, `proc_version`, `realtime`, `preempt_rt` |
//! | its build ([`kconfig`])      | `kernel_config` → [`KernelConfig`] (`/boot/config-RELEASE` or `/proc/config.gz`) |
//! | CPUs ([`cpus`])              | `online_cpus`, `possible_cpus`, `isolated_cpus`, `nohz_full_cpus` |
//! | frequency ([`cpufreq`])      | `cpufreq(cpu)` → [`CpuFreq`]: `governor`, `scaling_min_khz`, …, `read` |
//! | idle states ([`cpuidle`])    | `cpuidle_states(cpu)`, `cpuidle_driver`, `cpuidle_governor`, `guest_halt_poll_ns` |
//! | interrupts ([`irq`], [`interrupts`]) | `irq_numbers`, `irq_affinity`, `irq_effective_affinity`, `irqs`, `interrupts`, `default_smp_affinity` |
//! | CPU masks ([`cpumask`])      | [`parse_cpu_mask`], [`format_cpu_mask`]                    |
//! | threads ([`stat`], [`status`], [`tasks`]) | `pids`, `tids`, `task_stat`, `task_status`, `threads_of`, `all_threads`, `process_running`, `irqbalance_running` |
//! | sysctls ([`sysctl`])         | `sysctl`, `sched_rt_runtime_us`, `sched_rt_period_us`, `timer_migration`, `nmi_watchdog`, `watchdog`, `soft_watchdog`, `watchdog_cpumask` |
//! | memory ([`mm`])              | `transparent_hugepage`, `transparent_hugepage_defrag`, `swaps`, `ksm_run` |
//! | housekeeping ([`workqueue`], [`clocksource`]) | `workqueue_cpumask`, `current_clocksource`, `available_clocksources` |
//! | the CPU ([`cpuinfo`], [`cpu_times`]) | `cpuinfo` (flags, model, packages), `cpu_times` (`/proc/stat`: steal time) |
//! | a hypervisor ([`hypervisor`]) | `dmi_sys_vendor`, `dmi_product_name`, `hypervisor_type` |
//! | open files ([`holders`])     | `holders_of` (`/proc/*/fd` links to a file) |
//!
//! # Example
//!
//! ```
//! use rtlat_system::facts::{FactResultExt, Facts};
//!
//! let facts = Facts::live(); // the same as Facts::at("/")
//! let online = facts.online_cpus()?;
//! assert!(!online.is_empty());
//! // Absent on most VMs: no frequency scaling.
//! if let Some(governor) = facts.cpufreq(0).governor().optional()? {
//!     println!("CPU 0 runs the {governor} governor");
//! }
//! # Ok::<(), rtlat_system::facts::FactError>(())
//! ```

pub mod clocksource;
pub mod cpu_times;
pub mod cpufreq;
pub mod cpuidle;
pub mod cpuinfo;
pub mod cpumask;
pub mod cpus;
pub mod error;
pub mod holders;
pub mod hypervisor;
pub mod interrupts;
pub mod irq;
pub mod kconfig;
pub mod kernel;
pub mod mm;
mod read;
pub mod root;
pub mod stat;
pub mod status;
pub mod sysctl;
pub mod tasks;
pub mod workqueue;

pub use cpu_times::{CpuTimes, SystemCpuTimes};
pub use cpufreq::{CpuFreq, CpuFreqPolicy};
pub use cpuidle::IdleState;
pub use cpuinfo::CpuInfo;
pub use cpumask::{format_cpu_mask, parse_cpu_mask};
pub use error::{FactError, FactResultExt, Malformed};
pub use holders::Holders;
pub use interrupts::{InterruptLine, Interrupts};
pub use irq::Irq;
pub use kconfig::KernelConfig;
pub use kernel::{PreemptModel, PreemptRt};
pub use mm::{Choice, KsmRun, Swap};
pub use root::Facts;
pub use stat::{PF_KTHREAD, TaskStat};
pub use status::TaskStatus;
pub use tasks::ThreadInfo;
