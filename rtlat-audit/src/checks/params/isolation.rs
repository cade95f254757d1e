//! The isolation parameters: `isolcpus=`, `nohz_full=`, `rcu_nocbs`, `rcu_nocb_poll`,
//! `irqaffinity=`, and `nohz=`, which can defeat them.

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::cmdline::Isolcpus;

use super::Params;
use crate::context::{cpus_phrase, cpus_verb};
use crate::finding::{Finding, Severity};
use crate::isolation::RcuNocbs;

impl Params<'_> {
    pub(super) fn isolcpus(&self) -> Option<Finding> {
        const ID: &str = "cmdline.isolcpus";
        let Some(isolcpus) = &self.c.isolation.isolcpus else {
            if let Some(cpus) = self.c.isolation.nohz_full_cpus() {
                return Some(
                    self.absent(ID, Severity::Info, format!(
                        "isolcpus= is absent: the scheduler still balances tasks onto the tickless {}",
                        cpus_phrase(cpus)
                    ), "isolcpus=")
                    .remedy(format!("add isolcpus=managed_irq,domain,{cpus}")),
                );
            }
            let online = self.ctx.online.as_ref();
            let remedy = match online
                .and_then(CpuSet::last)
                .filter(|_| online.is_some_and(|o| o.len() > 1))
            {
                Some(last) => format!(
                    "choose the CPUs for real-time work and let rtlat write the command line, e.g. rtlat audit --suggest --isolate {last}"
                ),
                None => "a machine with one CPU cannot isolate one: use a machine with two or more"
                    .to_owned(),
            };
            return Some(
                self.absent(ID, Severity::Info,
                    "No CPU is isolated: real-time threads share every CPU with the rest of the system".to_owned(),
                    "isolcpus=")
                .remedy(remedy),
            );
        };
        let param = &isolcpus.param;
        let iso = match &isolcpus.value {
            Err(e) => {
                return Some(
                    self.finding(ID, Severity::Fail, format!("The kernel ignores `{param}`: {e}"), param)
                        .remedy("write isolcpus=managed_irq,domain,CPUS (rtlat audit --suggest --isolate CPUS writes the whole line)"),
                );
            }
            Ok(iso) => iso,
        };
        let cpus = &iso.cpus;
        if !iso.unknown_flags.is_empty() {
            let fixed = Isolcpus {
                unknown_flags: Vec::new(),
                ..iso.clone()
            };
            return Some(
                self.finding(
                    ID,
                    Severity::Warn,
                    format!(
                        "`{param}` has flags the kernel does not know and skips: {}",
                        iso.unknown_flags.join(", ")
                    ),
                    param,
                )
                .remedy(format!(
                    "write isolcpus={fixed} (known flags: nohz, domain, managed_irq)"
                )),
            );
        }
        let flags = iso.effective_flags();
        let with_flags = |nohz: bool| {
            format!(
                "isolcpus=managed_irq,domain,{}{cpus}",
                if nohz { "nohz," } else { "" }
            )
        };
        let finding = if !flags.domain {
            self.finding(
                ID,
                Severity::Info,
                format!(
                    "`{param}` has no domain flag: the scheduler still balances tasks onto {}",
                    cpus_phrase(cpus)
                ),
                param,
            )
            .remedy(format!(
                "write {} if the scheduler should leave them alone",
                with_flags(flags.nohz)
            ))
        } else if !flags.managed_irq {
            self.finding(ID, Severity::Warn, format!(
                "{} out of the scheduler's load balancing, but managed interrupts (multi-queue NICs, NVMe queues) may still be delivered there, and those cannot be moved by hand",
                cpus_verb(cpus, "is", "are")
            ), param)
            .remedy(format!("write {}", with_flags(flags.nohz)))
        } else {
            self.finding(ID, Severity::Ok, format!(
                "{} isolated: out of the scheduler's load balancing (domain) and away from managed interrupts (managed_irq)",
                cpus_verb(cpus, "is", "are")
            ), param)
        };
        Some(finding)
    }

    pub(super) fn nohz_full(&self) -> Option<Finding> {
        const ID: &str = "cmdline.nohz_full";
        let Some(nohz) = &self.c.isolation.nohz_full else {
            let isolated = self.c.isolation.isolcpus_cpus()?;
            if !self.c.isolation.tickless_cpus().is_empty() {
                return None; // isolcpus=nohz,… does it.
            }
            return Some(
                self.absent(ID, Severity::Info, format!(
                    "The periodic tick keeps running on the isolated {}: an interrupt every 1 to 4 ms while a task runs there",
                    cpus_phrase(isolated)
                ), "nohz_full=")
                .remedy(format!("add nohz_full={isolated} (the tick then stops while one task runs; needs CONFIG_NO_HZ_FULL)")),
            );
        };
        let param = &nohz.param;
        Some(match &nohz.value {
            Err(e) => self.finding(ID, Severity::Fail, format!("The kernel ignores `{param}`: {e}"), param)
                .remedy("write nohz_full=CPUS with the isolated CPUs"),
            Ok(cpus) => self.finding(ID, Severity::Ok, format!(
                "Tickless {}: the tick stops while one task runs there, and RCU callbacks, unbound timers and kernel threads go to the housekeeping CPUs (nohz_full)",
                cpus_phrase(cpus)
            ), param),
        })
    }

    pub(super) fn rcu_nocbs(&self) -> Option<Finding> {
        const ID: &str = "cmdline.rcu_nocbs";
        let tickless = self.c.isolation.tickless_cpus();
        let Some(nocbs) = &self.c.isolation.rcu_nocbs else {
            if !tickless.is_empty() {
                return Some(
                    self.absent(ID, Severity::Info, format!(
                        "rcu_nocbs= is absent, but nohz_full= offloads the RCU callbacks of {} anyway",
                        cpus_phrase(&tickless)
                    ), "rcu_nocbs=")
                    .remedy(format!("add rcu_nocbs={tickless} to say so explicitly (and for the rare kernel built without that implication)")),
                );
            }
            let isolated = self.c.isolation.isolcpus_cpus()?;
            return Some(
                self.absent(ID, Severity::Warn, format!(
                    "RCU callbacks still run on the isolated {} (softirq work at unpredictable times)",
                    cpus_phrase(isolated)
                ), "rcu_nocbs=")
                .remedy(format!("add rcu_nocbs={isolated} rcu_nocb_poll")),
            );
        };
        let param = &nocbs.param;
        let wanted = self.isolated();
        let list = if wanted.is_empty() {
            "CPUS".to_owned()
        } else {
            wanted.to_string()
        };
        Some(match &nocbs.value {
            Ok(RcuNocbs::Cpus(cpus)) => self.finding(ID, Severity::Ok, format!(
                "The RCU callbacks of {} run in rcuo kernel threads, which can live on housekeeping CPUs",
                cpus_phrase(cpus)
            ), param),
            Ok(RcuNocbs::NoneAtBoot) => self.finding(ID, Severity::Info,
                "A bare rcu_nocbs offloads no CPU at boot (it only lets cpusets offload CPUs later)".to_owned(), param)
                .remedy(format!("write rcu_nocbs={list}")),
            Ok(RcuNocbs::All) | Err(_) => self.finding(ID, Severity::Warn, format!(
                "The kernel cannot read the CPU list of `{param}`, so it offloads the RCU callbacks of every CPU"
            ), param)
            .remedy(format!("write rcu_nocbs={list}")),
        })
    }

    pub(super) fn rcu_nocb_poll(&self) -> Option<Finding> {
        const ID: &str = "cmdline.rcu_nocb_poll";
        let offloaded = self.c.isolation.offloaded_cpus();
        let any_offloaded = offloaded.as_ref().is_none_or(|set| !set.is_empty());
        match self.c.line.last("rcu_nocb_poll") {
            Some(param) if any_offloaded => Some(self.finding(ID, Severity::Ok,
                "rcu_nocb_poll: the RCU offload threads poll for callbacks, so the offloaded CPUs never have to wake them".to_owned(), param)),
            Some(param) => Some(
                self.finding(ID, Severity::Warn,
                    "rcu_nocb_poll only changes offloaded CPUs, and this line offloads none (no rcu_nocbs=, no nohz_full=)".to_owned(), param)
                .remedy("add rcu_nocbs=CPUS with the isolated CPUs, or remove rcu_nocb_poll"),
            ),
            None if any_offloaded => Some(
                self.absent(ID, Severity::Info,
                    "The offloaded CPUs wake the RCU offload threads whenever callbacks arrive (rcu_nocb_poll absent)".to_owned(),
                    "rcu_nocb_poll")
                .remedy("add rcu_nocb_poll (the offload threads then poll, using some housekeeping CPU time instead)"),
            ),
            None => None,
        }
    }

    pub(super) fn irqaffinity(&self) -> Option<Finding> {
        const ID: &str = "cmdline.irqaffinity";
        let isolated = self.isolated();
        let housekeeping = self.housekeeping();
        let Some(affinity) = &self.c.isolation.irqaffinity else {
            if isolated.is_empty() {
                return None;
            }
            return Some(
                self.absent(ID, Severity::Warn, format!(
                    "The interrupts of devices set up at boot may target the isolated {}: irqaffinity= is absent, so the default IRQ affinity is every CPU",
                    cpus_phrase(&isolated)
                ), "irqaffinity=")
                .remedy(format!("add irqaffinity={housekeeping}")),
            );
        };
        let param = &affinity.param;
        Some(match &affinity.value {
            Err(e) => self.finding(ID, Severity::Warn, format!(
                "The kernel cannot read `{param}` ({e}): it keeps what it could parse, plus the boot CPU"
            ), param)
            .remedy(format!("write irqaffinity={housekeeping}")),
            Ok(cpus) if !cpus.intersection(&isolated).is_empty() => self.finding(ID, Severity::Warn, format!(
                "`{param}` lets interrupts target the isolated {}",
                cpus_phrase(&cpus.intersection(&isolated))
            ), param)
            .remedy(format!("write irqaffinity={housekeeping}")),
            Ok(cpus) if isolated.is_empty() => self.finding(ID, Severity::Info, format!(
                "Interrupts default to {} (no CPU is isolated)", cpus_phrase(cpus)
            ), param),
            Ok(cpus) => self.finding(ID, Severity::Ok, format!(
                "Interrupts default to the housekeeping {}", cpus_phrase(cpus)
            ), param),
        })
    }

    pub(super) fn nohz(&self) -> Option<Finding> {
        const ID: &str = "cmdline.nohz";
        let param = self.c.line.last("nohz")?;
        Some(match param.value() {
            Some("on") => self.finding(
                ID,
                Severity::Info,
                "nohz=on is the default (harmless)".to_owned(),
                param,
            ),
            Some("off") => {
                let tickless = self.c.isolation.tickless_cpus();
                let title = if tickless.is_empty() {
                    "nohz=off keeps the periodic tick running on every CPU, idle ones included"
                        .to_owned()
                } else {
                    format!(
                        "nohz=off keeps the periodic tick running on every CPU, so the tickless {} of nohz_full= never stop theirs",
                        cpus_phrase(&tickless)
                    )
                };
                self.finding(ID, Severity::Warn, title, param)
                    .remedy("remove nohz=off")
            }
            _ => self.malformed(ID, param, "on or off", "on"),
        })
    }
}
