//! `/proc/interrupts`: per-CPU counts of every interrupt, with its chip and handlers.
//!
//! The first line names the online CPUs (`CPU0 CPU1 …`, offline ones skipped); every other
//! line is a label (`24:`, `NMI:`), one count per CPU column (fewer for `ERR:`/`MIS:`), then a
//! description. For numbered IRQs the description is the chip, the hardware IRQ number with
//! the trigger or flow type (`5-edge`, `27 Level`), then the handlers ("actions") separated by
//! `, `, e.g. `IO-APIC   5-edge      ACPI:Ged` or `GICv3  27 Level     arch_timer`. The split of
//! the description is best-effort across architectures; [`InterruptLine::description`] keeps
//! it whole.

use super::error::{FactError, Malformed};
use super::read;
use super::root::Facts;

/// `/proc/interrupts`, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupts {
    /// The CPU of each count column (`CPU0 CPU2` gives `[0, 2]`).
    pub cpus: Vec<usize>,
    /// Every line after the header, in order.
    pub lines: Vec<InterruptLine>,
}

/// One line of `/proc/interrupts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptLine {
    /// The label before `:` (`24`, `NMI`, `LOC`).
    pub label: String,
    /// The IRQ number, for a numbered line.
    pub irq: Option<u32>,
    /// The counts, one per entry of [`Interrupts::cpus`] (a single total for `ERR`/`MIS`).
    pub counts: Vec<u64>,
    /// Everything after the counts, trimmed (e.g. `IO-APIC   5-edge      ACPI:Ged`, or
    /// `Local timer interrupts`).
    pub description: String,
    /// The interrupt chip (numbered lines), e.g. `IO-APIC`, `PCI-MSIX-0000:00:01.0`, `GICv3`.
    pub chip: Option<String>,
    /// The hardware IRQ with its type (numbered lines), e.g. `5-edge`, `27 Level`.
    pub hwirq: Option<String>,
    /// The handlers (numbered lines), e.g. `["ehci_hcd:usb1", "uhci_hcd:usb2"]`; empty when
    /// none is registered.
    pub actions: Vec<String>,
}

impl InterruptLine {
    /// A name for the interrupt: its handlers joined by `, `, else its description.
    pub fn name(&self) -> String {
        if self.actions.is_empty() {
            self.description.clone()
        } else {
            self.actions.join(", ")
        }
    }

    /// The sum of the counts.
    pub fn total(&self) -> u64 {
        self.counts
            .iter()
            .fold(0u64, |sum, n| sum.saturating_add(*n))
    }
}

const HEADER: &str = "a header of CPU columns (CPU0 CPU1 …)";
const LINE: &str = "a line `LABEL: COUNT… DESCRIPTION`";

impl Interrupts {
    /// Parses the text of `/proc/interrupts`.
    pub fn parse(text: &str) -> Result<Interrupts, Malformed> {
        let mut lines = text.lines().filter(|line| !line.trim().is_empty());
        let header = lines.next().ok_or_else(|| Malformed::new(HEADER, ""))?;
        let cpus = header
            .split_whitespace()
            .map(|column| {
                column
                    .strip_prefix("CPU")
                    .and_then(read::number_of)
                    .map(|cpu| cpu as usize)
                    .ok_or_else(|| Malformed::new(HEADER, header))
            })
            .collect::<Result<Vec<usize>, Malformed>>()?;
        if cpus.is_empty() {
            return Err(Malformed::new(HEADER, header));
        }
        let lines = lines
            .map(|line| parse_line(line, cpus.len()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Interrupts { cpus, lines })
    }

    /// The line of IRQ `irq`.
    pub fn irq(&self, irq: u32) -> Option<&InterruptLine> {
        self.lines.iter().find(|line| line.irq == Some(irq))
    }

    /// The line labelled `label` (`LOC`, `NMI`, `24`).
    pub fn label(&self, label: &str) -> Option<&InterruptLine> {
        self.lines.iter().find(|line| line.label == label)
    }

    /// The count of `line` on `cpu` (`None` if `cpu` has no column or the line no count there).
    pub fn count_on(&self, line: &InterruptLine, cpu: usize) -> Option<u64> {
        let column = self.cpus.iter().position(|&c| c == cpu)?;
        line.counts.get(column).copied()
    }
}

/// The words of `text` with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_ascii_whitespace()
        .map(move |word| (word.as_ptr() as usize - text.as_ptr() as usize, word))
}

fn parse_line(line: &str, columns: usize) -> Result<InterruptLine, Malformed> {
    let bad = || Malformed::new(LINE, line);
    let (label, rest) = line.split_once(':').ok_or_else(bad)?;
    let label = label.trim();
    if label.is_empty() || label.contains(char::is_whitespace) {
        return Err(bad());
    }
    let mut counts = Vec::new();
    let mut description_start = rest.len();
    for (offset, word) in words(rest) {
        if counts.len() < columns && word.bytes().all(|b| b.is_ascii_digit()) {
            counts.push(word.parse::<u64>().map_err(|_| bad())?);
        } else {
            description_start = offset;
            break;
        }
    }
    let description = rest[description_start..].trim();
    let irq = read::number_of(label);
    let (chip, hwirq, actions) = match irq {
        Some(_) => split_description(description),
        None => (None, None, Vec::new()),
    };
    Ok(InterruptLine {
        label: label.to_owned(),
        irq,
        counts,
        description: description.to_owned(),
        chip,
        hwirq,
        actions,
    })
}

/// Chip, hardware IRQ with type, and actions of a numbered line's description.
fn split_description(description: &str) -> (Option<String>, Option<String>, Vec<String>) {
    let mut words = words(description).peekable();
    let chip = words.next().map(|(_, word)| word.to_owned());
    let mut hwirq: Vec<&str> = Vec::new();
    if let Some((_, word)) =
        words.next_if(|(_, w)| w.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
    {
        hwirq.push(word);
    }
    let is_trigger = |w: &str| {
        ["Level", "Edge"]
            .iter()
            .any(|t| w == *t || w.strip_prefix(t).is_some_and(|r| r.starts_with('-')))
    };
    if let Some((_, word)) = words.next_if(|(_, w)| is_trigger(w)) {
        hwirq.push(word);
    }
    let actions = match words.next() {
        Some((offset, _)) => description[offset..]
            .split(", ")
            .map(str::trim)
            .filter(|action| !action.is_empty())
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    };
    let hwirq = (!hwirq.is_empty()).then(|| hwirq.join(" "));
    (chip, hwirq, actions)
}

impl Facts {
    /// `/proc/interrupts`, parsed.
    pub fn interrupts(&self) -> Result<Interrupts, FactError> {
        let path = self.path("proc/interrupts");
        Interrupts::parse(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const X86: &str = "           CPU0       CPU1       \n\
  0:         44          0   IO-APIC   2-edge      timer\n\
 16:          0       1234   IO-APIC  16-fasteoi   ehci_hcd:usb1, uhci_hcd:usb2\n\
 28:          0          0 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n\
 29:          3          0  IR-PCI-MSI 524288-edge      iwlwifi: default queue\n\
 30:          0          0   IO-APIC   7-fasteoi\n\
NMI:          0          0   Non-maskable interrupts\n\
LOC:    1835432    1064898   Local timer interrupts\n\
ERR:          0\n\
MIS:          0\n";

    #[test]
    fn parses_x86() {
        let ints = Interrupts::parse(X86).unwrap();
        assert_eq!(ints.cpus, [0, 1]);
        assert_eq!(ints.lines.len(), 9);
        let timer = ints.irq(0).unwrap();
        assert_eq!(timer.counts, [44, 0]);
        assert_eq!(timer.chip.as_deref(), Some("IO-APIC"));
        assert_eq!(timer.hwirq.as_deref(), Some("2-edge"));
        assert_eq!(timer.actions, ["timer"]);
        let usb = ints.irq(16).unwrap();
        assert_eq!(usb.actions, ["ehci_hcd:usb1", "uhci_hcd:usb2"]);
        assert_eq!(usb.name(), "ehci_hcd:usb1, uhci_hcd:usb2");
        assert_eq!(ints.count_on(usb, 1), Some(1234));
        assert_eq!(ints.count_on(usb, 2), None);
        assert_eq!(
            ints.irq(28).unwrap().chip.as_deref(),
            Some("PCI-MSIX-0000:00:01.0")
        );
        assert_eq!(ints.irq(29).unwrap().actions, ["iwlwifi: default queue"]);
        let bare = ints.irq(30).unwrap();
        assert!(bare.actions.is_empty());
        assert_eq!(bare.name(), "IO-APIC   7-fasteoi");
        let loc = ints.label("LOC").unwrap();
        assert_eq!(loc.irq, None);
        assert_eq!(loc.total(), 1835432 + 1064898);
        assert_eq!(loc.description, "Local timer interrupts");
        assert_eq!(ints.label("ERR").unwrap().counts, [0]);
    }

    #[test]
    fn parses_arm_and_offline_columns() {
        let text = "           CPU0       CPU2\n\
 11:      12345      67890     GICv3  27 Level     arch_timer\n\
 49:          0          0     GICv3  62 Edge      xhci-hcd:usb1\n\
IPI0:        10         20       Rescheduling interrupts\n";
        let ints = Interrupts::parse(text).unwrap();
        assert_eq!(ints.cpus, [0, 2]);
        let timer = ints.irq(11).unwrap();
        assert_eq!(timer.chip.as_deref(), Some("GICv3"));
        assert_eq!(timer.hwirq.as_deref(), Some("27 Level"));
        assert_eq!(timer.actions, ["arch_timer"]);
        assert_eq!(ints.count_on(timer, 2), Some(67890));
        assert_eq!(ints.label("IPI0").unwrap().counts, [10, 20]);
    }

    #[test]
    fn refuses_what_is_not_proc_interrupts() {
        for bad in [
            "",
            "\n\n",
            "CPU0 CPUx\n",
            "hello\n",
            "  CPU0\n no colon here\n",
            "  CPU0\n : 1 label missing\n",
            "  CPU0\n 1: 99999999999999999999999 too big\n",
        ] {
            let err = Interrupts::parse(bad).unwrap_err();
            assert!(!err.expected.is_empty(), "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(text in "( *CPU[0-9]){1,3}\n([ 0-9A-Za-z:,-]{0,30}\n){0,5}") {
            let _ = Interrupts::parse(&text);
        }

        #[test]
        fn never_panics_on_any_text(text in ".{0,80}") {
            let _ = Interrupts::parse(&text);
        }
    }
}
