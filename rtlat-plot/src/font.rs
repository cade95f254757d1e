//! The font a PNG's text is drawn with, found on the machine at run time (rtlat ships none):
//! the file named by `RTLAT_FONT`, else the best sans-serif TrueType/OpenType font under the
//! usual font folders (`RTLAT_FONT_DIRS`, colon-separated, replaces those folders).

use std::path::{Path, PathBuf};

use ab_glyph::{Font, FontArc};

/// The Debian package that provides the preferred font, for the error message.
pub const FONT_PACKAGE: &str = "fonts-dejavu-core";

/// File names in order of preference: DejaVu Sans (Debian's fonts-dejavu-core, present on
/// most Linux systems), then Liberation Sans, FreeSans, Noto Sans, Arial.
const PREFERRED: [&str; 6] = [
    "DejaVuSans.ttf",
    "LiberationSans-Regular.ttf",
    "FreeSans.ttf",
    "NotoSans-Regular.ttf",
    "Arial.ttf",
    "arial.ttf",
];

/// Characters every text of the plot uses; a font without them is passed over.
const NEEDED: &str = "0123456789µsTCPUmaxLtency";

/// How deep the search descends below a font folder.
const MAX_DEPTH: usize = 5;

/// The regular and the bold face to draw with (the bold one is the regular where the family
/// has no bold file).
pub struct Fonts {
    /// For everything but the title.
    pub regular: FontArc,
    /// For the title's first line.
    pub bold: FontArc,
}

/// Finds and loads the fonts; the error is one line that says what to install.
pub fn find() -> Result<Fonts, String> {
    if let Some(path) = std::env::var_os("RTLAT_FONT").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        let regular = load(&path).map_err(|e| format!("RTLAT_FONT={}: {e}", path.display()))?;
        return Ok(Fonts {
            bold: regular.clone(),
            regular,
        });
    }
    let folders: Vec<PathBuf> = match std::env::var_os("RTLAT_FONT_DIRS") {
        Some(dirs) => std::env::split_paths(&dirs).collect(),
        None => default_folders(),
    };
    let mut candidates = Vec::new();
    for folder in &folders {
        collect(folder, 0, &mut candidates);
    }
    candidates.sort_by_key(|p| (rank(p), p.clone()));
    for path in candidates {
        if let Ok(regular) = load(&path) {
            let bold = bold_sibling(&path)
                .and_then(|b| load(&b).ok())
                .unwrap_or_else(|| regular.clone());
            return Ok(Fonts { regular, bold });
        }
    }
    Err(format!(
        "PNG output needs a TrueType font and none was found in {}: install {FONT_PACKAGE} \
         (Debian/Ubuntu; dejavu-sans-fonts on Fedora), set RTLAT_FONT=/path/to/font.ttf, \
         or write .svg",
        folders
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn default_folders() -> Vec<PathBuf> {
    let mut folders = vec![
        PathBuf::from("/usr/share/fonts"),
        PathBuf::from("/usr/local/share/fonts"),
    ];
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        folders.push(home.join(".local/share/fonts"));
        folders.push(home.join(".fonts"));
    }
    folders
}

/// Font files under `folder`.
fn collect(folder: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if depth < MAX_DEPTH {
                collect(&path, depth + 1, found);
            }
        } else if rank(&path) < usize::MAX {
            found.push(path);
        }
    }
}

/// Lower is better; `usize::MAX` for files that are not a usable upright sans-serif font.
fn rank(path: &Path) -> usize {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return usize::MAX;
    };
    if let Some(i) = PREFERRED.iter().position(|p| *p == name) {
        return i;
    }
    let lower = name.to_ascii_lowercase();
    let is_font = lower.ends_with(".ttf") || lower.ends_with(".otf");
    let unwanted = [
        "bold",
        "italic",
        "oblique",
        "mono",
        "serif",
        "light",
        "thin",
        "condensed",
        "math",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if !is_font || unwanted {
        return usize::MAX;
    }
    if lower.contains("sans") {
        PREFERRED.len()
    } else {
        PREFERRED.len() + 1
    }
}

/// `DejaVuSans.ttf` → `DejaVuSans-Bold.ttf`, `…-Regular.ttf` → `…-Bold.ttf`.
fn bold_sibling(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?;
    let extension = path.extension()?.to_str()?;
    let bold = match stem.strip_suffix("-Regular") {
        Some(family) => format!("{family}-Bold.{extension}"),
        None => format!("{stem}-Bold.{extension}"),
    };
    Some(path.with_file_name(bold))
}

/// Reads a font file and checks that it draws the characters the plot needs.
fn load(path: &Path) -> Result<FontArc, String> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => format!("cannot read: {e}"),
    })?;
    let font = FontArc::try_from_vec(bytes).map_err(|_| "not a TrueType/OpenType font")?;
    if let Some(c) = NEEDED.chars().find(|&c| font.glyph_id(c).0 == 0) {
        return Err(format!("the font has no '{c}'"));
    }
    Ok(font)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dejavu_first_then_other_upright_sans_fonts() {
        let r = |n: &str| rank(Path::new(n));
        assert_eq!(r("/x/DejaVuSans.ttf"), 0);
        assert_eq!(r("/x/LiberationSans-Regular.ttf"), 1);
        assert!(r("/x/SomeSans-Regular.otf") < r("/x/Cantarell-Regular.otf"));
        assert!(r("/x/Cantarell-Regular.otf") < usize::MAX);
        for unwanted in [
            "DejaVuSans-Bold.ttf",
            "DejaVuSansMono.ttf",
            "DejaVuSerif.ttf",
            "DejaVuSans-Oblique.ttf",
            "DejaVuSansCondensed.ttf",
            "fonts.dir",
            "NotoSans-Regular.woff2",
        ] {
            assert_eq!(r(unwanted), usize::MAX, "{unwanted}");
        }
    }

    #[test]
    fn bold_faces_sit_beside_the_regular_ones() {
        assert_eq!(
            bold_sibling(Path::new("/f/DejaVuSans.ttf")),
            Some(PathBuf::from("/f/DejaVuSans-Bold.ttf"))
        );
        assert_eq!(
            bold_sibling(Path::new("/f/LiberationSans-Regular.ttf")),
            Some(PathBuf::from("/f/LiberationSans-Bold.ttf"))
        );
    }

    #[test]
    fn a_file_that_is_not_a_font_is_refused() {
        let e = load(Path::new("/nonexistent-rtlat/font.ttf"))
            .err()
            .unwrap();
        assert_eq!(e, "no such file");
        let e = load(Path::new("Cargo.toml")).err().unwrap();
        assert_eq!(e, "not a TrueType/OpenType font");
    }
}
