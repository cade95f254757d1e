//! Comparing cyclictest-style output lines by shape: the same text and field widths, whatever
//! the measured numbers.

/// One piece of an output line: literal text, or a number with its printf padding.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// Leading spaces or zeros included: `"     12"`, `"000098"`, `"1000"`.
    Number(String),
}

/// Rewrites the parts of a line whose text legitimately differs between two runs into fixed
/// markers: the load average of the live header and the cycle list of an overflow line.
fn canonical(line: &str) -> String {
    // `policy: fifo: loadavg: 0.42 0.63 0.89 2/83 32493          `
    if let Some(at) = line.find("loadavg: ") {
        let head = &line[..at + "loadavg: ".len()];
        let rest = &line[head.len()..];
        let body = rest.trim_end_matches(' ');
        let trailing = rest.len() - body.len();
        let fields: Vec<&str> = body.split(' ').collect();
        let looks_like_loadavg = fields.len() == 5
            && fields[..3].iter().all(|f| f.parse::<f64>().is_ok())
            && fields[3].contains('/');
        if looks_like_loadavg {
            return format!("{head}<loadavg>{}", " ".repeat(trailing));
        }
    }
    // `# Thread 0: 00367 00368 # 00012 others`: how many overflows is timing.
    if let Some(rest) = line.strip_prefix("# Thread ")
        && let Some((n, list)) = rest.split_once(':')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        let list = match list.split_once(" # ") {
            Some((cycles, others)) => {
                let ok = others
                    .strip_suffix(" others")
                    .is_some_and(|c| c.len() >= 5 && c.bytes().all(|b| b.is_ascii_digit()));
                if !ok {
                    return line.to_string();
                }
                cycles
            }
            None => list,
        };
        let ok = list.is_empty()
            || (list.starts_with(' ')
                && list[1..]
                    .split(' ')
                    .all(|c| c.len() >= 5 && c.bytes().all(|b| b.is_ascii_digit())));
        if ok {
            return format!("# Thread {n}: <overflow cycles>");
        }
    }
    line.to_string()
}

fn pieces(line: &str) -> Vec<Piece> {
    let line = canonical(line);
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == 0x1b {
            // An escape sequence (`ESC[3A`) is literal text, its digits included.
            let mut j = i + 1;
            while j < b.len() && !b[j].is_ascii_alphabetic() {
                j += 1;
            }
            j = (j + 1).min(b.len());
            text.push_str(&line[i..j]);
            i = j;
            continue;
        }
        if b[i] == b' ' || b[i].is_ascii_digit() {
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_digit() {
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Number(line[i..j].to_string()));
                i = j;
                continue;
            }
            text.push_str(&line[i..j.max(i + 1)]);
            i = j.max(i + 1);
            continue;
        }
        let ch = line[i..].chars().next().unwrap_or(' ');
        text.push(ch);
        i += ch.len_utf8();
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// A printed number: its leading spaces, and its digits (zero-padded if they start with 0).
fn split_number(n: &str) -> (usize, &str) {
    let digits = n.trim_start_matches(' ');
    (n.len() - digits.len(), digits)
}

fn zero_padded(digits: &str) -> bool {
    digits.len() > 1 && digits.starts_with('0')
}

/// Whether two numbers could come from the same printf conversion (`%5ld`, `%05lu`, `%ld`)
/// after the same literal text. The leading spaces of a number are the literal separator
/// plus the field's space padding, so: zero-padded fields have the same spaces before them
/// and digits of the same width, unless one value overflowed the width; space-padded fields
/// have the same total width, unless one value overflowed it (then that one has only the
/// separator's spaces before it).
fn same_conversion(a: &str, b: &str) -> bool {
    let ((sa, da), (sb, db)) = (split_number(a), split_number(b));
    match (zero_padded(da), zero_padded(db)) {
        (true, true) => sa == sb && da.len() == db.len(),
        (true, false) => sa == sb && db.len() >= da.len(),
        (false, true) => sa == sb && da.len() >= db.len(),
        (false, false) => {
            a.len() == b.len()
                || if a.len() > b.len() {
                    sa <= sb
                } else {
                    sb <= sa
                }
        }
    }
}

/// Whether two lines have the same shape: same literal text, numbers of the same printf
/// conversion in the same places.
pub fn same_shape(a: &str, b: &str) -> bool {
    let (pa, pb) = (pieces(a), pieces(b));
    pa.len() == pb.len()
        && pa.iter().zip(&pb).all(|(x, y)| match (x, y) {
            (Piece::Text(x), Piece::Text(y)) => x == y,
            (Piece::Number(x), Piece::Number(y)) => same_conversion(x, y),
            _ => false,
        })
}

/// A line with its numbers replaced by `<width>` (for messages and de-duplication).
pub fn shape(line: &str) -> String {
    pieces(line)
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.escape_debug().to_string(),
            Piece::Number(n) => {
                let (spaces, digits) = split_number(n);
                let zeros = if zero_padded(digits) { "0" } else { "" };
                format!("<{spaces}:{zeros}{}>", digits.len())
            }
        })
        .collect()
}

fn show(line: &str) -> String {
    format!("{line:?}")
}

/// Line-by-line comparison: same number of lines, each of the same shape.
pub fn compare_lines(what: &str, real: &str, ours: &str) -> Result<(), String> {
    let (r, o): (Vec<&str>, Vec<&str>) = (real.split('\n').collect(), ours.split('\n').collect());
    let mut problems = Vec::new();
    if r.len() != o.len() {
        problems.push(format!(
            "{what}: cyclictest wrote {} lines, rtlat {}",
            r.len(),
            o.len()
        ));
    }
    for (i, (a, b)) in r.iter().zip(&o).enumerate() {
        if !same_shape(a, b) {
            problems.push(format!(
                "{what}: line {} differs\n  cyclictest: {}\n  rtlat:      {}",
                i + 1,
                show(a),
                show(b)
            ));
        }
    }
    if r.len() != o.len() {
        let n = r.len().min(o.len());
        for extra in &r[n..] {
            problems.push(format!("  only cyclictest: {}", show(extra)));
        }
        for extra in &o[n..] {
            problems.push(format!("  only rtlat:      {}", show(extra)));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Comparison of the distinct line shapes (for outputs whose line count is timing): every
/// line of each output has the shape of some line of the other.
pub fn compare_line_sets(what: &str, real: &str, ours: &str) -> Result<(), String> {
    let distinct = |text: &str| {
        let mut seen = std::collections::BTreeMap::new();
        for line in text.split('\n') {
            seen.entry(shape(line)).or_insert_with(|| line.to_string());
        }
        seen.into_values().collect::<Vec<String>>()
    };
    let (r, o) = (distinct(real), distinct(ours));
    let mut problems = Vec::new();
    for line in &o {
        if !r.iter().any(|x| same_shape(x, line)) {
            problems.push(format!(
                "{what}: rtlat wrote a line of a shape cyclictest never writes: {}",
                show(line)
            ));
        }
    }
    for line in &r {
        if !o.iter().any(|x| same_shape(x, line)) {
            problems.push(format!(
                "{what}: cyclictest wrote a line of a shape rtlat never writes: {}",
                show(line)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(same_shape(
            "T: 0 (31999) P:80 I:1000 C:    200 Min:     12 Act:   13 Avg:   14 Max:      28",
            "T: 0 (  522) P:80 I:1000 C:     10 Min:   1234 Act:  100 Avg:   14 Max:12345678",
        ));
        assert!(!same_shape("Min:     12", "Min:      12"));
        assert!(!same_shape("Min:     12", "Min:12"));
        assert!(!same_shape("I:1000", "I: 1000"));
        assert!(same_shape("I:1000", "I:500"));
        assert!(!same_shape("x 000012", "x     12"));
        assert!(!same_shape(
            "# Max Latencies: 00098",
            "# Max Latencies:    98"
        ));
        assert!(same_shape(
            "# Max Latencies: 00098",
            "# Max Latencies: 123456"
        ));
        assert!(same_shape("# Thread 0: 00367 00368", "# Thread 0:"));
        assert!(same_shape(
            "# Thread 1:",
            "# Thread 1: 00001 # 00004 others"
        ));
        assert!(!same_shape("# Thread 1:", "# Thread 1: 1"));
        assert!(same_shape(
            "\x1b[3Apolicy: fifo: loadavg: 0.42 0.63 0.89 2/83 32493          ",
            "\x1b[3Apolicy: fifo: loadavg: 10.42 0.63 0.89 12/183 3          ",
        ));
        assert!(!same_shape("\x1b[3Apolicy: fifo:", "\x1b[4Apolicy: fifo:"));
        assert!(!same_shape("000001 000000\t000000", "000001 000000 000000"));
    }
}
