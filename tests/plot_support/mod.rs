//! Helpers of the `rtlat plot` tests: running it, the sample files, a strict XML reader for
//! the SVG output and a PNG decoder's view of the PNG output.

#![allow(dead_code)] // Each test file uses its own subset.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// A fresh folder for one test's files, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// Creates `rtlat-plot-TAG-PID` in the temporary folder.
    pub fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("rtlat-plot-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    /// A path in it, as a string.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
    /// Whether nothing is in it.
    pub fn is_empty(&self) -> bool {
        std::fs::read_dir(&self.0).unwrap().next().is_none()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a run of `rtlat plot` did.
pub struct Plotted {
    /// Exit status (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// `tests/data/plot/NAME` as a string.
pub fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/plot")
        .join(name)
        .display()
        .to_string()
}

/// Runs `rtlat plot ARGS` with the environment changed by `env` (`None` removes a variable).
pub fn plot(args: &[&str], env: &[(&str, Option<&str>)]) -> Plotted {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rtlat"));
    command.arg("plot").args(args);
    for (key, value) in env {
        match value {
            Some(v) => command.env(key, v),
            None => command.env_remove(key),
        };
    }
    let out = command.output().expect("run rtlat plot");
    Plotted {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `rtlat plot ARGS` and expects success.
pub fn plot_ok(args: &[&str]) {
    let out = plot(args, &[]);
    assert_eq!(out.code, 0, "rtlat plot {args:?}: {}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

/// An XML element: its name, attributes and the text directly inside it (trimmed).
#[derive(Debug, Clone)]
pub struct Element {
    pub name: String,
    pub attributes: BTreeMap<String, String>,
    pub text: String,
}

/// Reads `text` as XML, strictly: one root, every tag closed in order, attributes quoted and
/// not repeated, `<` and `&` only as markup or entities. Returns the elements in document
/// order, or what is wrong and where.
pub fn parse_xml(text: &str) -> Result<Vec<Element>, String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut elements: Vec<Element> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut roots = 0;
    let at = |i: usize| format!("at byte {i}");
    while i < bytes.len() {
        if text[i..].starts_with("<?") {
            let end = text[i..]
                .find("?>")
                .ok_or(format!("unclosed <? {}", at(i)))?;
            i += end + 2;
        } else if text[i..].starts_with("<!--") {
            let end = text[i..]
                .find("-->")
                .ok_or(format!("unclosed comment {}", at(i)))?;
            i += end + 3;
        } else if text[i..].starts_with("</") {
            let end = text[i..]
                .find('>')
                .ok_or(format!("unclosed end tag {}", at(i)))?;
            let name = text[i + 2..i + end].trim();
            let top = open
                .pop()
                .ok_or(format!("</{name}> without a start {}", at(i)))?;
            if elements[top].name != name {
                return Err(format!(
                    "</{name}> closes <{}> {}",
                    elements[top].name,
                    at(i)
                ));
            }
            i += end + 1;
        } else if bytes[i] == b'<' {
            let (element, length, closed) =
                start_tag(&text[i..]).map_err(|e| format!("{e} {}", at(i)))?;
            if open.is_empty() {
                roots += 1;
            }
            elements.push(element);
            if !closed {
                open.push(elements.len() - 1);
            }
            i += length;
        } else {
            let end = text[i..].find('<').map_or(text.len(), |e| i + e);
            let content = unescape(&text[i..end]).map_err(|e| format!("{e} {}", at(i)))?;
            match open.last() {
                Some(&top) => elements[top].text.push_str(content.trim()),
                None if content.trim().is_empty() => {}
                None => return Err(format!("text outside the root {}", at(i))),
            }
            i = end;
        }
    }
    if let Some(&top) = open.last() {
        return Err(format!("<{}> is never closed", elements[top].name));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(elements)
}

/// Reads `<name attr="v" …>` or `<… />`: the element, its length, whether it closed itself.
fn start_tag(text: &str) -> Result<(Element, usize, bool), String> {
    let mut chars = text.char_indices().skip(1).peekable();
    let mut name = String::new();
    while let Some(&(_, c)) = chars.peek() {
        if c.is_whitespace() || c == '>' || c == '/' {
            break;
        }
        name.push(c);
        chars.next();
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || ":-_.".contains(c))
    {
        return Err(format!("bad element name '{name}'"));
    }
    let mut attributes = BTreeMap::new();
    loop {
        while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            Some((i, '>')) => {
                return Ok((
                    Element {
                        name,
                        attributes,
                        text: String::new(),
                    },
                    i + 1,
                    false,
                ));
            }
            Some((_, '/')) => match chars.next() {
                Some((i, '>')) => {
                    return Ok((
                        Element {
                            name,
                            attributes,
                            text: String::new(),
                        },
                        i + 1,
                        true,
                    ));
                }
                _ => return Err(format!("'/' not followed by '>' in <{name}>")),
            },
            Some((_, c)) => {
                let mut key = c.to_string();
                while let Some(&(_, c)) = chars.peek() {
                    if c == '=' || c.is_whitespace() {
                        break;
                    }
                    key.push(c);
                    chars.next();
                }
                if chars.next().map(|(_, c)| c) != Some('=') {
                    return Err(format!("attribute '{key}' of <{name}> has no value"));
                }
                let quote = match chars.next() {
                    Some((_, q)) if q == '"' || q == '\'' => q,
                    _ => return Err(format!("attribute '{key}' of <{name}> is not quoted")),
                };
                let mut raw = String::new();
                loop {
                    match chars.next() {
                        Some((_, c)) if c == quote => break,
                        Some((_, '<')) => return Err(format!("'<' in attribute '{key}'")),
                        Some((_, c)) => raw.push(c),
                        None => return Err(format!("attribute '{key}' is never closed")),
                    }
                }
                let value = unescape(&raw)?;
                if attributes.insert(key.clone(), value).is_some() {
                    return Err(format!("attribute '{key}' twice in <{name}>"));
                }
            }
            None => return Err(format!("<{name} is never closed")),
        }
    }
}

/// Replaces the five named entities and numeric references; a bare `&` is an error.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';').ok_or("'&' without ';'")?;
        let entity = &rest[i + 1..i + end];
        let c = match entity {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ if entity.starts_with("#x") => u32::from_str_radix(&entity[2..], 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("bad reference &{entity};"))?,
            _ if entity.starts_with('#') => entity[1..]
                .parse()
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("bad reference &{entity};"))?,
            _ => return Err(format!("unknown entity &{entity};")),
        };
        out.push(c);
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// An SVG written by `rtlat plot`, read.
pub struct Svg {
    pub elements: Vec<Element>,
}

impl Svg {
    /// Reads the file, failing the test if it is not well-formed SVG.
    pub fn read(path: &std::path::Path) -> Svg {
        let text = std::fs::read_to_string(path).expect("read the SVG");
        let elements =
            parse_xml(&text).unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
        assert_eq!(elements[0].name, "svg", "the root is <svg>");
        Svg { elements }
    }

    /// The texts drawn, in order.
    pub fn texts(&self) -> Vec<String> {
        self.named("text").map(|e| e.text.clone()).collect()
    }

    /// Whether some text is exactly `text` (spaces collapsed as SVG shows them).
    pub fn has_text(&self, text: &str) -> bool {
        let collapse = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        self.texts().iter().any(|t| collapse(t) == collapse(text))
    }

    /// The elements called `name`.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.elements.iter().filter(move |e| e.name == name)
    }

    /// The root's width and height.
    pub fn size(&self) -> (u32, u32) {
        let number = |k: &str| self.elements[0].attributes[k].parse().unwrap();
        (number("width"), number("height"))
    }
}

/// A PNG written by `rtlat plot`, decoded.
pub struct Png {
    pub width: u32,
    pub height: u32,
    /// RGB, row by row.
    pub rgb: Vec<u8>,
}

impl Png {
    /// Decodes the file, failing the test if it is not an 8-bit RGB PNG.
    pub fn read(path: &std::path::Path) -> Png {
        let bytes = std::fs::read(path).expect("read the PNG");
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut rgb = vec![0; reader.output_buffer_size().expect("a sane size")];
        let info = reader.next_frame(&mut rgb).expect("PNG image data");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        rgb.truncate(info.buffer_size());
        Png {
            width: info.width,
            height: info.height,
            rgb,
        }
    }

    /// The pixel at `(x, y)`.
    pub fn pixel(&self, x: u32, y: u32) -> (u8, u8, u8) {
        let i = (y as usize * self.width as usize + x as usize) * 3;
        (self.rgb[i], self.rgb[i + 1], self.rgb[i + 2])
    }

    /// Pixels in rows `rows` darker than mid-grey (text, axes, curves).
    pub fn dark_pixels(&self, rows: std::ops::Range<u32>) -> usize {
        rows.flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let (r, g, b) = self.pixel(x, y);
                u32::from(r) + u32::from(g) + u32::from(b) < 3 * 100
            })
            .count()
    }

    /// Whether some pixel has the colour `rgb` (give or take `tolerance` per channel).
    pub fn has_colour(&self, rgb: (u8, u8, u8), tolerance: u8) -> bool {
        self.rgb.chunks(3).any(|p| {
            p[0].abs_diff(rgb.0) <= tolerance
                && p[1].abs_diff(rgb.1) <= tolerance
                && p[2].abs_diff(rgb.2) <= tolerance
        })
    }
}
