//! Property test: no reader panics, whatever the input. Each parser (and detection) gets
//! arbitrary bytes, strings made of the formats' own tokens, and the real fixtures mutated
//! (cut, spliced, numbers replaced by extreme ones, lines repeated or dropped); every result
//! must be `Ok` or a typed error. Deterministic (a fixed-seed xorshift generator), so a failure
//! reproduces; the cargo-fuzz targets in fuzz/ explore further.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use rtlat_formats::{
    Format, cyclictest_hist, cyclictest_json, jitterdebugger, rtlat_json, xenomai_gnuplot,
    xenomai_latency,
};

/// xorshift64*: small, deterministic, good enough to drive mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Pieces of the formats, so random strings reach past the first check.
const TOKENS: &[&str] = &[
    "# Histogram\n",
    "# /dev/cpu_dma_latency set to 0us\n",
    "# Total: ",
    "# Min Latencies: ",
    "# Avg Latencies: ",
    "# Max Latencies: ",
    "# Histogram Overflows: ",
    "# Histogram Overflow at cycle number:\n",
    "# Thread 0: ",
    "# rtlat Overruns: ",
    "# rtlat Early wake-ups (counted in the overflows): ",
    "# rtlat P99 Latencies (ns): ",
    "000000 ",
    "000001\t",
    "RTD|",
    "RTS|",
    "RTT|",
    "HSD|    avg|",
    "HSS|    avg|",
    "== Sampling period: 100 us\n",
    " - ",
    "|",
    "# ----lat min|----lat avg|\n",
    "#      18.180|     32.053|    195.041|       0|     0|\n",
    "# Linux vm 6.1 #1\n",
    "18 1\n",
    "18.5 4\n",
    "{",
    "}",
    "[",
    "]",
    "\"rtlat\"",
    "\"rt_test_version:\"",
    "\"cmdline:\": \"cyclictest -h 5\"",
    "\"thread\"",
    "\"cpu\"",
    "\"version\": 3",
    "\"histogram\"",
    "\"cycles\"",
    "\"count\"",
    "\"min\"",
    "\"max\"",
    "\"avg\"",
    "\"buckets\"",
    "\"low\"",
    "\"high\"",
    "\"layout\"",
    "\"kind\": \"log-linear\"",
    "\"kind\": \"linear\"",
    "\"precision\"",
    "\"width\"",
    "\"underflow\"",
    "\"overflow\"",
    "\"unit\": \"ns\"",
    "\"resolution_in_ns\"",
    ": ",
    ", ",
    "\"0\"",
    "\n",
    "\t",
    " ",
    "-",
    ".",
];

/// Numbers that break naive arithmetic.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999999",
    "1e308",
    "-1e308",
    "1e-308",
    "0.5",
    "NaN",
    "inf",
    "-0",
    "000000",
    "4294967295",
    "2.5e+06",
];

fn fixtures() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/peers");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/peers")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("fixture"))
        .collect()
}

/// Every reader on `text`; a panic fails the test with the input.
fn check(text: &str) {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let detected = rtlat_formats::detect(text);
        if let Ok(run) = rtlat_formats::parse(text) {
            // Detection and parsing see the same text.
            assert_eq!(detected, Ok(run.format));
        }
        let _ = cyclictest_json::parse(text);
        let _ = rtlat_json::parse(text);
        let _ = cyclictest_hist::parse(text);
        let _ = jitterdebugger::parse(text);
        let _ = xenomai_latency::parse(text);
        let _ = xenomai_gnuplot::parse(text);
        // Whatever parses must also answer every question without panicking.
        for format in Format::ALL {
            if let Ok(run) = rtlat_formats::parse_as(format, text) {
                let _ = run.worst_case();
                for s in &run.series {
                    for p in [0.0, 50.0, 99.0, 99.9, 100.0] {
                        let _ = s.percentile(p);
                    }
                    if let Some(h) = &s.histogram {
                        let _ = (h.count(), h.in_range(), h.resolution().to_string());
                    }
                }
            }
        }
    }));
    if outcome.is_err() {
        let shown: String = text.chars().take(2000).collect();
        panic!(
            "a reader panicked on this input ({} bytes):\n{shown:?}",
            text.len()
        );
    }
}

/// `text` mutated once.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut s = text.to_string();
    let boundary = |s: &str, at: usize| {
        let mut at = at.min(s.len());
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match rng.below(7) {
        0 => {
            // Cut at a random place.
            let at = boundary(&s, rng.below(s.len() + 1));
            s.truncate(at);
        }
        1 => {
            // Replace a number with an extreme one.
            let digits: Vec<usize> = s
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            if !digits.is_empty() {
                let start = digits[rng.below(digits.len())];
                let end = s[start..]
                    .find(|c: char| !c.is_ascii_digit() && c != '.')
                    .map_or(s.len(), |n| start + n);
                s.replace_range(start..end, rng.pick(NUMBERS));
            }
        }
        2 => {
            // Insert a token.
            let at = boundary(&s, rng.below(s.len() + 1));
            s.insert_str(at, rng.pick(TOKENS));
        }
        3 => {
            // Delete a span.
            let a = boundary(&s, rng.below(s.len() + 1));
            let b = boundary(&s, a + rng.below(64));
            s.replace_range(a..b.max(a), "");
        }
        4 => {
            // Repeat or drop a line.
            let mut lines: Vec<&str> = s.lines().collect();
            if !lines.is_empty() {
                let i = rng.below(lines.len());
                if rng.below(2) == 0 {
                    lines.insert(i, lines[i]);
                } else {
                    lines.remove(i);
                }
            }
            s = lines.join("\n");
        }
        5 => {
            // Flip a byte to another ASCII character.
            if !s.is_empty() {
                let at = boundary(&s, rng.below(s.len()));
                let end =
                    boundary(&s, at + 1).max(at + s[at..].chars().next().map_or(0, char::len_utf8));
                let c = char::from(b' ' + (rng.below(95) as u8));
                s.replace_range(at..end.min(s.len()), &c.to_string());
            }
        }
        _ => {
            // Splice in a piece of another line.
            let a = boundary(&s, rng.below(s.len() + 1));
            let b = boundary(&s, rng.below(s.len() + 1));
            let piece = s[a.min(b)..a.max(b)].chars().take(80).collect::<String>();
            let at = boundary(&s, rng.below(s.len() + 1));
            s.insert_str(at, &piece);
        }
    }
    s
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let n = rng.below(300);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn strings_of_format_tokens_never_panic() {
    let mut rng = Rng(0xd1b5_4a32_d192_ed03);
    for _ in 0..6000 {
        let mut s = String::new();
        for _ in 0..rng.below(40) {
            if rng.below(3) == 0 {
                s.push_str(rng.pick(NUMBERS));
            } else {
                s.push_str(rng.pick(TOKENS));
            }
        }
        check(&s);
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    let fixtures = fixtures();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..300 {
        for text in &fixtures {
            let mut s = text.clone();
            for _ in 0..=rng.below(4) {
                s = mutate(&mut rng, &s);
            }
            check(&s);
        }
        // Every so often, the unmutated fixtures too.
        if round % 200 == 0 {
            for text in &fixtures {
                check(text);
            }
        }
    }
}
