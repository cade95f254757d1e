//! The result files to plot, by path: each read by [`rtlat_formats`], with its time series
//! and the name its legend entries carry.

use std::path::Path;

use rtlat_formats::Format;
use rtlat_plot::Input;

/// Reads `files`; the errors are one line each, `FILE: what was wrong`.
pub fn load(files: &[String]) -> Result<Vec<Input>, Vec<String>> {
    let mut inputs = Vec::with_capacity(files.len());
    let mut errors = Vec::new();
    for file in files {
        match load_one(file) {
            Ok(input) => inputs.push(input),
            Err(e) => errors.push(format!("{file}: {e}")),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let base = |f: &str| {
        Path::new(f)
            .file_name()
            .map_or_else(|| f.to_string(), |n| n.to_string_lossy().into_owned())
    };
    for (input, file) in inputs.iter_mut().zip(files) {
        let name = base(file);
        let shared = files.iter().filter(|f| base(f) == name).count() > 1;
        input.name = if shared { file.clone() } else { name };
    }
    Ok(inputs)
}

fn load_one(file: &str) -> Result<Input, String> {
    let run = rtlat_formats::read_file(Path::new(file)).map_err(|e| e.to_string())?;
    let timelines = match run.format {
        Format::RtlatJson => {
            // The readers do not model rtlat's per-second entries: read them here.
            let bytes = rtlat_formats::input::read_bounded(
                Path::new(file),
                rtlat_formats::input::RESULT_FILE_MAX,
            )
            .map_err(|e| e.to_string())?;
            let text = String::from_utf8_lossy(&bytes);
            rtlat_plot::timelines(&run, &text).map_err(|e| e.to_string())?
        }
        _ => rtlat_plot::timelines(&run, "").map_err(|e| e.to_string())?,
    };
    Ok(Input {
        path: file.to_string(),
        name: file.to_string(),
        run,
        timelines,
    })
}
