//! [`Guest`]: whether the audited machine is a virtual machine, and under which hypervisor,
//! from what the guest kernel shows: the x86 `hypervisor` CPU flag, a paravirtual clocksource
//! (`kvm-clock`, `xen`, `hyperv_clocksource_tsc_page`), Xen's `/sys/hypervisor/type`, and the
//! DMI vendor and product the virtual firmware reports (`QEMU`, `Standard PC (Q35 + ICH9, 2009)`).

use rtlat_system::facts::{CpuInfo, FactResultExt, Facts};

use crate::paths::system_path;

/// A virtual machine, as the guest sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guest {
    /// The hypervisor, where the guest can tell: `KVM`, `Xen`, `Hyper-V`, `VMware`, …
    pub hypervisor: Option<&'static str>,
    /// The DMI vendor and product (`QEMU Standard PC (Q35 + ICH9, 2009)`), if any.
    pub platform: Option<String>,
    /// What said so: (source, value) pairs for evidence.
    pub evidence: Vec<(String, String)>,
}

impl Guest {
    /// `KVM, QEMU Standard PC (Q35 + ICH9, 2009)`, `KVM`, or `hypervisor not named`.
    pub fn description(&self) -> String {
        match (self.hypervisor, &self.platform) {
            (Some(h), Some(p)) => format!("{h}, {p}"),
            (Some(h), None) => h.to_owned(),
            (None, Some(p)) => p.clone(),
            (None, None) => "the hypervisor does not name itself".to_owned(),
        }
    }

    /// Whether the hypervisor is KVM (which `halt_poll_ns`, `cpuidle_haltpoll` and QEMU's
    /// vCPU threads belong to).
    pub fn is_kvm(&self) -> bool {
        self.hypervisor == Some("KVM")
    }
}

/// The hypervisor a paravirtual clocksource belongs to.
fn clocksource_hypervisor(name: &str) -> Option<&'static str> {
    match name {
        "kvm-clock" => Some("KVM"),
        "xen" => Some("Xen"),
        n if n.starts_with("hyperv_clocksource") => Some("Hyper-V"),
        _ => None,
    }
}

/// The hypervisor a DMI vendor and product name belong to, and whether they name a virtual
/// machine at all.
fn dmi_hypervisor(vendor: &str, product: &str) -> Option<Option<&'static str>> {
    let v = vendor.to_ascii_lowercase();
    let p = product.to_ascii_lowercase();
    Some(if v.contains("qemu") || p.contains("kvm") {
        // QEMU runs guests on KVM or emulates them (TCG); a clocksource tells which.
        if p.contains("kvm") { Some("KVM") } else { None }
    } else if v.contains("vmware") {
        Some("VMware")
    } else if v.contains("xen") {
        Some("Xen")
    } else if v.contains("microsoft") && p.contains("virtual machine") {
        Some("Hyper-V")
    } else if v.contains("innotek") || p.contains("virtualbox") {
        Some("VirtualBox")
    } else if v.contains("parallels") {
        Some("Parallels")
    } else if v.contains("amazon ec2") || p.contains("google compute engine") {
        Some("KVM")
    } else if v.contains("bochs") || p.contains("bhyve") {
        None
    } else {
        return None;
    })
}

/// The guest, if the facts under the root say it is one; `None` on bare metal (and where
/// nothing can be read).
pub fn detect(facts: &Facts, cpuinfo: Option<&CpuInfo>) -> Option<Guest> {
    let mut guest = Guest {
        hypervisor: None,
        platform: None,
        evidence: Vec::new(),
    };
    let mut is_guest = false;
    if let Some(info) = cpuinfo
        && info.has("hypervisor")
    {
        is_guest = true;
        guest
            .evidence
            .push((system_path("proc/cpuinfo"), "flags: hypervisor".to_owned()));
    }
    if let Ok(Some(kind)) = facts.hypervisor_type().optional() {
        is_guest = true;
        if kind.eq_ignore_ascii_case("xen") {
            guest.hypervisor = Some("Xen");
        }
        guest
            .evidence
            .push((system_path("sys/hypervisor/type"), kind));
    }
    if let Ok(Some(available)) = facts.available_clocksources().optional()
        && let Some((name, hypervisor)) = available
            .iter()
            .find_map(|c| clocksource_hypervisor(c).map(|h| (c, h)))
    {
        is_guest = true;
        guest.hypervisor = guest.hypervisor.or(Some(hypervisor));
        guest.evidence.push((
            system_path("sys/devices/system/clocksource/clocksource0/available_clocksource"),
            format!("{name} (registered only under {hypervisor})"),
        ));
    }
    let vendor = facts.dmi_sys_vendor().ok().filter(|v| !v.is_empty());
    let product = facts.dmi_product_name().ok().filter(|p| !p.is_empty());
    if vendor.is_some() || product.is_some() {
        let (v, p) = (
            vendor.clone().unwrap_or_default(),
            product.clone().unwrap_or_default(),
        );
        if let Some(hypervisor) = dmi_hypervisor(&v, &p) {
            is_guest = true;
            guest.hypervisor = guest.hypervisor.or(hypervisor);
        }
        if is_guest {
            let platform = [v.as_str(), p.as_str()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            guest.platform = Some(platform);
            if let Some(v) = vendor {
                guest
                    .evidence
                    .push((system_path("sys/class/dmi/id/sys_vendor"), v));
            }
            if let Some(p) = product {
                guest
                    .evidence
                    .push((system_path("sys/class/dmi/id/product_name"), p));
            }
        }
    }
    is_guest.then_some(guest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn guest_of(files: &[(&str, &str)]) -> Option<Guest> {
        let dir = tree(files);
        let facts = Facts::at(dir.path());
        let info = facts.cpuinfo().ok();
        detect(&facts, info.as_ref())
    }

    const FLAGS: &str = "processor\t: 0\nflags\t\t: fpu tsc hypervisor\n";
    const CLOCKS: &str = "sys/devices/system/clocksource/clocksource0/available_clocksource";

    #[test]
    fn qemu_on_kvm_is_named_with_its_platform() {
        let guest = guest_of(&[
            ("proc/cpuinfo", FLAGS),
            (CLOCKS, "kvm-clock tsc acpi_pm \n"),
            ("sys/class/dmi/id/sys_vendor", "QEMU\n"),
            (
                "sys/class/dmi/id/product_name",
                "Standard PC (Q35 + ICH9, 2009)\n",
            ),
        ])
        .unwrap();
        assert_eq!(
            guest.description(),
            "KVM, QEMU Standard PC (Q35 + ICH9, 2009)"
        );
        assert!(guest.is_kvm());
        assert_eq!(guest.evidence.len(), 4, "{guest:?}");
    }

    #[test]
    fn xen_hyperv_vmware_and_a_bare_flag() {
        let xen = guest_of(&[("sys/hypervisor/type", "xen\n")]).unwrap();
        assert_eq!(xen.description(), "Xen");
        let hyperv = guest_of(&[
            (CLOCKS, "hyperv_clocksource_tsc_page acpi_pm\n"),
            ("sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n"),
            ("sys/class/dmi/id/product_name", "Virtual Machine\n"),
        ])
        .unwrap();
        assert_eq!(
            hyperv.description(),
            "Hyper-V, Microsoft Corporation Virtual Machine"
        );
        let vmware = guest_of(&[
            ("sys/class/dmi/id/sys_vendor", "VMware, Inc.\n"),
            ("sys/class/dmi/id/product_name", "VMware Virtual Platform\n"),
        ])
        .unwrap();
        assert_eq!(vmware.hypervisor, Some("VMware"));
        let flag_only = guest_of(&[("proc/cpuinfo", FLAGS)]).unwrap();
        assert_eq!(
            flag_only.description(),
            "the hypervisor does not name itself"
        );
    }

    #[test]
    fn bare_metal_is_no_guest() {
        assert_eq!(guest_of(&[]), None);
        assert_eq!(
            guest_of(&[
                (
                    "proc/cpuinfo",
                    "processor\t: 0\nflags\t\t: fpu tsc constant_tsc\n"
                ),
                (CLOCKS, "tsc hpet acpi_pm\n"),
                ("sys/class/dmi/id/sys_vendor", "Dell Inc.\n"),
                ("sys/class/dmi/id/product_name", "OptiPlex 755\n"),
            ]),
            None
        );
    }
}
