//! The kernel's build configuration: `/boot/config-RELEASE`, which distributions install
//! beside the image, else `/proc/config.gz` (`CONFIG_IKCONFIG_PROC`, or the `configs` module),
//! gunzipped. The options that decide real-time behaviour (PREEMPT_RT, NO_HZ_FULL, the debug
//! options that add latency) are read from it by the audit.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::{FactError, Malformed};
use super::root::Facts;

/// The most bytes a configuration may hold once uncompressed (a distribution's is about
/// 300 KB): a larger `config.gz` is refused rather than read into memory whole.
const MAX_CONFIG: u64 = 16 << 20;

/// The most bytes read of `/proc/config.gz` itself.
const MAX_COMPRESSED: u64 = 4 << 20;

/// A kernel configuration: each `CONFIG_NAME=value` line, and each `# CONFIG_NAME is not set`
/// as `n`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelConfig {
    /// Where it was read from (`/boot/config-…` or `/proc/config.gz`, under the root).
    pub source: PathBuf,
    options: BTreeMap<String, String>,
}

impl KernelConfig {
    /// Parses a configuration's text (what `make` writes in `.config`); other lines are
    /// skipped, a value's quotes kept.
    pub fn parse(source: impl Into<PathBuf>, text: &str) -> KernelConfig {
        let mut options = BTreeMap::new();
        for line in text.lines() {
            let line = line.trim();
            if let Some(name) = line
                .strip_prefix("# CONFIG_")
                .and_then(|rest| rest.strip_suffix(" is not set"))
            {
                options.insert(name.to_owned(), "n".to_owned());
            } else if let Some((name, value)) = line
                .strip_prefix("CONFIG_")
                .and_then(|rest| rest.split_once('='))
            {
                options.insert(name.to_owned(), value.to_owned());
            }
        }
        KernelConfig {
            source: source.into(),
            options,
        }
    }

    /// An option's value (`y`, `m`, `n`, a number or a quoted string), by its name without
    /// `CONFIG_`; `None` where the configuration does not mention it (an option this kernel
    /// version does not have, or one hidden by another not set).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.options.get(name).map(String::as_str)
    }

    /// Whether the option is built in (`=y`).
    pub fn built_in(&self, name: &str) -> bool {
        self.get(name) == Some("y")
    }

    /// How many options it mentions.
    pub fn len(&self) -> usize {
        self.options.len()
    }

    /// Whether it mentions none (an empty or foreign file).
    pub fn is_empty(&self) -> bool {
        self.options.is_empty()
    }
}

impl Facts {
    /// The running kernel's configuration: `/boot/config-RELEASE` (`RELEASE` from
    /// `/proc/sys/kernel/osrelease`), else `/proc/config.gz`. Absent when neither exists
    /// (the error names `/proc/config.gz`, the one `modprobe configs` can add).
    pub fn kernel_config(&self) -> Result<KernelConfig, FactError> {
        if let Ok(release) = self.os_release()
            && !release.contains('/')
        {
            let boot = self.path(&format!("boot/config-{release}"));
            match std::fs::read(&boot) {
                Ok(bytes) => {
                    return Ok(KernelConfig::parse(boot, &String::from_utf8_lossy(&bytes)));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(FactError::from_io(&boot, &e)),
            }
        }
        let proc = self.path("proc/config.gz");
        let text = gunzip(&proc)?;
        Ok(KernelConfig::parse(proc, &text))
    }
}

/// The text of the gzip file at `path`, bounded before and after decompression.
fn gunzip(path: &Path) -> Result<String, FactError> {
    let file = std::fs::File::open(path).map_err(|e| FactError::from_io(path, &e))?;
    let mut compressed = Vec::new();
    file.take(MAX_COMPRESSED)
        .read_to_end(&mut compressed)
        .map_err(|e| FactError::from_io(path, &e))?;
    let mut text = Vec::new();
    let read = flate2::read::GzDecoder::new(compressed.as_slice())
        .take(MAX_CONFIG + 1)
        .read_to_end(&mut text);
    let malformed = |found: &str| {
        FactError::malformed(
            path,
            Malformed::new("a gzip-compressed kernel configuration", found),
        )
    };
    match read {
        Err(e) => Err(malformed(&e.to_string())),
        Ok(n) if n as u64 > MAX_CONFIG => Err(malformed("more than 16 MiB uncompressed")),
        Ok(_) => Ok(String::from_utf8_lossy(&text).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const CONFIG: &str = "\
#
# Automatically generated file; DO NOT EDIT.
#
CONFIG_PREEMPT_RT=y
CONFIG_HZ_250=y
CONFIG_HZ=250
# CONFIG_NO_HZ_FULL is not set
CONFIG_DEFAULT_HOSTNAME=\"(none)\"
CONFIG_CONFIGS=m
";

    #[test]
    fn options_are_read_with_their_values_and_unset_ones_as_n() {
        let config = KernelConfig::parse("/boot/config-x", CONFIG);
        assert_eq!(config.len(), 6);
        assert!(config.built_in("PREEMPT_RT"));
        assert_eq!(config.get("HZ"), Some("250"));
        assert_eq!(config.get("NO_HZ_FULL"), Some("n"));
        assert!(!config.built_in("NO_HZ_FULL"));
        assert_eq!(config.get("CONFIGS"), Some("m"));
        assert_eq!(config.get("DEFAULT_HOSTNAME"), Some("\"(none)\""));
        assert_eq!(config.get("KASAN"), None);
        assert!(KernelConfig::parse("x", "no config here\n").is_empty());
    }

    /// A root holding `proc/sys/kernel/osrelease` and, as asked, the two files.
    fn root(boot: Option<&str>, gz: Option<&[u8]>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proc/sys/kernel")).unwrap();
        std::fs::create_dir_all(dir.path().join("boot")).unwrap();
        std::fs::write(dir.path().join("proc/sys/kernel/osrelease"), "6.1.0-rt\n").unwrap();
        if let Some(text) = boot {
            std::fs::write(dir.path().join("boot/config-6.1.0-rt"), text).unwrap();
        }
        if let Some(bytes) = gz {
            std::fs::write(dir.path().join("proc/config.gz"), bytes).unwrap();
        }
        dir
    }

    fn gzip(text: &str) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn boot_config_first_then_proc_config_gz() {
        let both = root(Some("CONFIG_HZ=1000\n"), Some(&gzip(CONFIG)));
        let config = Facts::at(both.path()).kernel_config().unwrap();
        assert_eq!(config.get("HZ"), Some("1000"));
        assert!(config.source.ends_with("boot/config-6.1.0-rt"));
        let gz = root(None, Some(&gzip(CONFIG)));
        let config = Facts::at(gz.path()).kernel_config().unwrap();
        assert_eq!(config.get("HZ"), Some("250"));
        assert!(config.source.ends_with("proc/config.gz"));
        let neither = root(None, None);
        let absent = Facts::at(neither.path()).kernel_config().unwrap_err();
        assert!(absent.is_absent(), "{absent}");
        assert!(absent.to_string().contains("config.gz"), "{absent}");
        let broken = root(None, Some(b"not gzip at all"));
        let malformed = Facts::at(broken.path()).kernel_config().unwrap_err();
        assert!(
            malformed
                .to_string()
                .contains("gzip-compressed kernel configuration"),
            "{malformed}"
        );
    }

    /// The real thing: the running kernel's configuration where it has one (this
    /// development machine's kernel has `/proc/config.gz`); said plainly where it has not.
    #[test]
    fn the_running_kernels_configuration_is_read() {
        match Facts::at("/").kernel_config() {
            Ok(config) => {
                assert!(config.len() > 100, "{}", config.source.display());
                assert!(config.get("HZ").is_some_and(|hz| hz.parse::<u32>().is_ok()));
            }
            Err(e) if e.is_absent() => {
                eprintln!(
                    "NOT RUN: this kernel has neither /boot/config-RELEASE nor /proc/config.gz"
                )
            }
            Err(e) => panic!("{e}"),
        }
    }
}
