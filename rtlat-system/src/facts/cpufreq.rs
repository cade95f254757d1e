//! CPU frequency scaling of one CPU: `/sys/devices/system/cpu/cpuN/cpufreq/` (absent on
//! machines without a cpufreq driver, most VMs among them). Frequencies are in kHz, as the
//! kernel writes them.

use std::path::{Path, PathBuf};

use super::error::{FactError, FactResultExt, Malformed};
use super::read;
use super::root::Facts;
use rtlat_linux::cpuset::CpuSet;

/// The cpufreq directory of one CPU; each method reads one file when called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuFreq {
    cpu: usize,
    dir: PathBuf,
}

/// A snapshot of one CPU's cpufreq files (see [`CpuFreq::read`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuFreqPolicy {
    /// The CPU.
    pub cpu: usize,
    /// `scaling_driver`, e.g. `acpi-cpufreq`, `intel_pstate`.
    pub driver: String,
    /// `scaling_governor`, e.g. `ondemand`, `performance`.
    pub governor: String,
    /// `scaling_available_governors` (empty if the file is absent).
    pub available_governors: Vec<String>,
    /// `scaling_min_freq` (kHz): the lowest frequency the governor may pick.
    pub scaling_min_khz: u64,
    /// `scaling_max_freq` (kHz): the highest frequency the governor may pick.
    pub scaling_max_khz: u64,
    /// `scaling_cur_freq` (kHz), if the driver provides it.
    pub scaling_cur_khz: Option<u64>,
    /// `cpuinfo_min_freq` (kHz): the hardware's lowest frequency.
    pub cpuinfo_min_khz: u64,
    /// `cpuinfo_max_freq` (kHz): the hardware's highest frequency.
    pub cpuinfo_max_khz: u64,
    /// `scaling_available_frequencies` (kHz, as listed), if the driver has a table
    /// (`acpi-cpufreq` does, `intel_pstate` does not).
    pub available_frequencies_khz: Option<Vec<u64>>,
}

impl CpuFreqPolicy {
    /// Whether the frequency is pinned at the hardware maximum (min = max = cpuinfo max), as a
    /// real-time CPU wants it.
    pub fn is_pinned_at_max(&self) -> bool {
        self.scaling_min_khz == self.cpuinfo_max_khz && self.scaling_max_khz == self.cpuinfo_max_khz
    }
}

impl Facts {
    /// The cpufreq directory of `cpu` (no file is read until a method is called).
    pub fn cpufreq(&self, cpu: usize) -> CpuFreq {
        CpuFreq {
            cpu,
            dir: self.path(&format!("sys/devices/system/cpu/cpu{cpu}/cpufreq")),
        }
    }
}

impl CpuFreq {
    /// The CPU.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    /// The directory (`…/cpuN/cpufreq` under the root), for the commands that write it.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the CPU has a cpufreq directory.
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    fn word(&self, file: &str) -> Result<String, FactError> {
        let path = self.dir.join(file);
        let word = read::trimmed(&path)?;
        if word.is_empty() || word.contains(char::is_whitespace) {
            return Err(FactError::malformed(
                &path,
                Malformed::new("one word", &word),
            ));
        }
        Ok(word)
    }

    fn words(&self, file: &str) -> Result<Vec<String>, FactError> {
        let text = read::text(&self.dir.join(file))?;
        Ok(text.split_whitespace().map(str::to_owned).collect())
    }

    fn khz(&self, file: &str) -> Result<u64, FactError> {
        read::value(&self.dir.join(file), "a frequency in kHz")
    }

    /// `scaling_governor`.
    pub fn governor(&self) -> Result<String, FactError> {
        self.word("scaling_governor")
    }

    /// `scaling_available_governors`.
    pub fn available_governors(&self) -> Result<Vec<String>, FactError> {
        self.words("scaling_available_governors")
    }

    /// `scaling_driver`.
    pub fn driver(&self) -> Result<String, FactError> {
        self.word("scaling_driver")
    }

    /// `scaling_min_freq` (kHz).
    pub fn scaling_min_khz(&self) -> Result<u64, FactError> {
        self.khz("scaling_min_freq")
    }

    /// `scaling_max_freq` (kHz).
    pub fn scaling_max_khz(&self) -> Result<u64, FactError> {
        self.khz("scaling_max_freq")
    }

    /// `scaling_cur_freq` (kHz).
    pub fn scaling_cur_khz(&self) -> Result<u64, FactError> {
        self.khz("scaling_cur_freq")
    }

    /// `cpuinfo_min_freq` (kHz).
    pub fn cpuinfo_min_khz(&self) -> Result<u64, FactError> {
        self.khz("cpuinfo_min_freq")
    }

    /// `cpuinfo_max_freq` (kHz).
    pub fn cpuinfo_max_khz(&self) -> Result<u64, FactError> {
        self.khz("cpuinfo_max_freq")
    }

    /// `scaling_available_frequencies` (kHz, in the driver's order, usually descending).
    pub fn available_frequencies_khz(&self) -> Result<Vec<u64>, FactError> {
        let path = self.dir.join("scaling_available_frequencies");
        let text = read::text(&path)?;
        text.split_whitespace()
            .map(|word| {
                word.parse().map_err(|_| {
                    FactError::malformed(&path, Malformed::new("frequencies in kHz", word))
                })
            })
            .collect()
    }

    /// `related_cpus`: every CPU of this CPU's policy (setting one sets them all).
    pub fn related_cpus(&self) -> Result<CpuSet, FactError> {
        let path = self.dir.join("related_cpus");
        let text = read::text(&path)?;
        let mut set = CpuSet::new();
        for word in text.split_whitespace() {
            let inserted = read::number_of(word).map(|cpu| set.insert(cpu as usize));
            if !matches!(inserted, Some(Ok(_))) {
                return Err(FactError::malformed(
                    &path,
                    Malformed::new("CPU numbers separated by spaces", word),
                ));
            }
        }
        Ok(set)
    }

    /// Every file at once; absent optional files (`scaling_cur_freq`,
    /// `scaling_available_governors`, `scaling_available_frequencies`) give `None` or empty.
    /// [`FactError::Absent`] (for `scaling_driver`) when the CPU has no cpufreq directory.
    pub fn read(&self) -> Result<CpuFreqPolicy, FactError> {
        Ok(CpuFreqPolicy {
            cpu: self.cpu,
            driver: self.driver()?,
            governor: self.governor()?,
            available_governors: self.available_governors().optional()?.unwrap_or_default(),
            scaling_min_khz: self.scaling_min_khz()?,
            scaling_max_khz: self.scaling_max_khz()?,
            scaling_cur_khz: self.scaling_cur_khz().optional()?,
            cpuinfo_min_khz: self.cpuinfo_min_khz()?,
            cpuinfo_max_khz: self.cpuinfo_max_khz()?,
            available_frequencies_khz: self.available_frequencies_khz().optional()?,
        })
    }
}
