//! The SMI counter: `MSR_SMI_COUNT` (0x34), which Intel CPUs of family 6 (Nehalem and later)
//! count every System Management Interrupt in, read through the `msr` driver's
//! `/dev/cpu/N/msr` (an 8-byte `pread` at the register's number). SMIs run firmware with every
//! CPU taken from Linux; Linux cannot see them except through this counter (hwlatdetect reads
//! it with `rdmsr -a -d 0x34`; cyclictest's `--smi` too).
//!
//! [`smi_support`] says, from `/proc/cpuinfo`, whether the CPU has the counter;
//! [`SmiCounter::open`] opens one CPU's register file (the driver must be loaded:
//! `modprobe msr`, and root). Neither changes the system.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The register's number.
pub const MSR_SMI_COUNT: u64 = 0x34;

/// Why the SMI counter cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SmiError {
    /// The CPU has no such counter.
    #[error("this CPU has no SMI counter ({0}; MSR_SMI_COUNT is Intel's, family 6)")]
    NoCounter(String),
    /// The driver's file cannot be opened or read.
    #[error("cannot read {path}: {reason}")]
    Unreadable {
        /// `/dev/cpu/N/msr`.
        path: PathBuf,
        /// The system's reason, with a hint.
        reason: String,
    },
}

/// Whether the CPU `cpuinfo` (the text of `/proc/cpuinfo`) describes has `MSR_SMI_COUNT`:
/// `GenuineIntel`, family 6, with the `msr` flag. The first processor's entry decides (all
/// are alike on the machines this is for).
pub fn smi_support(cpuinfo: &str) -> Result<(), SmiError> {
    let field = |name: &str| {
        cpuinfo.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim().to_string())
        })
    };
    let vendor = field("vendor_id").unwrap_or_default();
    if vendor != "GenuineIntel" {
        let named = if vendor.is_empty() {
            "no vendor_id in /proc/cpuinfo".to_string()
        } else {
            format!("vendor {vendor}")
        };
        return Err(SmiError::NoCounter(named));
    }
    let family = field("cpu family").unwrap_or_default();
    if family != "6" {
        return Err(SmiError::NoCounter(format!("Intel family {family}")));
    }
    let flags = field("flags").unwrap_or_default();
    if !flags.split_whitespace().any(|f| f == "msr") {
        return Err(SmiError::NoCounter(
            "the msr flag is missing from /proc/cpuinfo (a hypervisor hides it)".into(),
        ));
    }
    Ok(())
}

/// One CPU's `MSR_SMI_COUNT`, open for reading.
#[derive(Debug)]
pub struct SmiCounter {
    file: File,
    path: PathBuf,
}

impl SmiCounter {
    /// Opens `dev/cpu/<cpu>/msr` under `root` (`/` on a live system), read-only.
    pub fn open(root: &Path, cpu: usize) -> Result<SmiCounter, SmiError> {
        let path = root.join(format!("dev/cpu/{cpu}/msr"));
        let file = File::open(&path).map_err(|e| SmiError::Unreadable {
            reason: match e.kind() {
                std::io::ErrorKind::NotFound => {
                    format!("{e} (load the msr driver: modprobe msr)")
                }
                std::io::ErrorKind::PermissionDenied => format!("{e} (run as root)"),
                _ => e.to_string(),
            },
            path: path.clone(),
        })?;
        Ok(SmiCounter { file, path })
    }

    /// The count now (its low 32 bits are the counter).
    pub fn read(&self) -> Result<u64, SmiError> {
        let mut bytes = [0u8; 8];
        match self.file.read_at(&mut bytes, MSR_SMI_COUNT) {
            Ok(8) => Ok(u64::from_le_bytes(bytes) & 0xffff_ffff),
            Ok(n) => Err(SmiError::Unreadable {
                path: self.path.clone(),
                reason: format!("read {n} of 8 bytes"),
            }),
            Err(e) => Err(SmiError::Unreadable {
                path: self.path.clone(),
                reason: format!("{e} (the CPU refused register {MSR_SMI_COUNT:#x})"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTEL: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nflags\t\t: fpu vme de pse tsc msr pae mce\n\nprocessor\t: 1\n";

    #[test]
    fn only_intel_family_6_with_the_msr_flag_has_the_counter() {
        assert_eq!(smi_support(INTEL), Ok(()));
        let amd = INTEL
            .replace("GenuineIntel", "AuthenticAMD")
            .replace(": 6\n", ": 25\n");
        assert!(
            matches!(smi_support(&amd), Err(SmiError::NoCounter(why)) if why.contains("AuthenticAMD"))
        );
        let family = INTEL.replace("cpu family\t: 6", "cpu family\t: 15");
        assert!(
            matches!(smi_support(&family), Err(SmiError::NoCounter(why)) if why.contains("family 15"))
        );
        let hidden = INTEL.replace(" msr ", " ");
        assert!(
            matches!(smi_support(&hidden), Err(SmiError::NoCounter(why)) if why.contains("msr flag"))
        );
        assert!(matches!(smi_support(""), Err(SmiError::NoCounter(_))));
    }

    #[test]
    fn the_register_is_read_at_its_number() {
        // A file laid out as the driver's: the 8 bytes at offset 0x34 are the register.
        // Made exclusively, under an unpredictable name (tests run as root).
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        std::fs::create_dir_all(dir.join("dev/cpu/3")).unwrap();
        let mut bytes = vec![0xffu8; 0x34];
        bytes.extend_from_slice(&0x0000_0007_0000_002au64.to_le_bytes());
        std::fs::write(dir.join("dev/cpu/3/msr"), bytes).unwrap();
        let counter = SmiCounter::open(dir, 3).unwrap();
        let read = counter.read();
        let missing = SmiCounter::open(dir, 4).unwrap_err();
        assert_eq!(read, Ok(42), "the low 32 bits");
        assert!(missing.to_string().contains("modprobe msr"), "{missing}");
    }

    #[test]
    fn this_machine_says_whether_it_has_the_counter() {
        // Live: the counter is read where the CPU has it and the driver is loaded; otherwise
        // the reason names what is missing.
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        match smi_support(&cpuinfo).and_then(|()| SmiCounter::open(Path::new("/"), 0)) {
            Ok(counter) => match counter.read() {
                Ok(count) => assert!(count <= u64::from(u32::MAX)),
                Err(e) => assert!(e.to_string().contains("msr"), "{e}"),
            },
            Err(SmiError::NoCounter(why)) => assert!(!why.is_empty()),
            Err(e @ SmiError::Unreadable { .. }) => {
                assert!(e.to_string().contains("/dev/cpu/0/msr"), "{e}")
            }
        }
    }
}
