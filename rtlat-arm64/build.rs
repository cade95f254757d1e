//! Registers the board profiles: every `src/profile/boards/<board>.rs` becomes a module whose
//! `pub const <BOARD>: BoardProfile` (the file name in upper case) is re-exported and listed
//! in `profile::ALL`, in file-name order. Adding a board is adding its file.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("src/profile/boards");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut boards: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    boards.sort();
    let mut code = String::new();
    for board in &boards {
        assert!(
            board
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
                && board.starts_with(|c: char| c.is_ascii_lowercase()),
            "src/profile/boards/{board}.rs: board files are named in lower case (a Rust module name)"
        );
        let path = dir.join(format!("{board}.rs"));
        writeln!(
            code,
            "#[path = {:?}]\nmod {board};",
            path.display().to_string()
        )
        .unwrap();
        writeln!(code, "pub use {board}::{};", board.to_uppercase()).unwrap();
    }
    let all: Vec<String> = boards
        .iter()
        .map(|b| format!("&{}", b.to_uppercase()))
        .collect();
    writeln!(
        code,
        "/// Every board profile (one per file in `src/profile/boards/`), in file-name order.\n\
         pub const ALL: &[&BoardProfile] = &[{}];",
        all.join(", ")
    )
    .unwrap();
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("boards.rs");
    fs::write(out, code).unwrap();
}
