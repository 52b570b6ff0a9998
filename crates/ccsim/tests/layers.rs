//! The core's layers point one way: a module of `crates/ccsim/src` uses (`crate::X`) only
//! its own folder and the folders of lower layers. The order, from the ground up, is the one
//! `docs/architecture.md` ("Layers") draws; a new folder must be placed in it. Comments and
//! test-only code (`#[cfg(test)]` modules, and files that only the tests build) are not
//! read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers from the ground up; folders of one layer may not use each other.
const LAYERS: &[&[&str]] = &[
    &["sim", "stats", "huge_pages"],
    &["settings", "packet"],
    &["signal"],
    &["queue"],
    &["net"],
    &["tcp", "app"],
    &["rdp"],
    &["router", "trace"],
    &["engine"],
    &["scenario"],
    &["report"],
    &["fuzz"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rank(top: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&top))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module files only the tests build: `#[cfg(test)]` on their `mod NAME;` line.
fn test_only(all: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for path in all {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            let Some(rest) = (pair[0] == "#[cfg(test)]").then_some(pair[1]).and_then(|l| l.strip_suffix(';')) else { continue };
            let Some(name) = rest.split_whitespace().last().filter(|_| rest.contains("mod ")) else { continue };
            let dir =
                if path.file_name().is_some_and(|f| f == "mod.rs" || f == "lib.rs") { path.parent().unwrap().to_path_buf() } else { path.with_extension("") };
            out.insert(dir.join(format!("{name}.rs")));
            out.insert(dir.join(name).join("mod.rs"));
        }
    }
    out
}

/// The folder (or file) under `src/` that `path` belongs to.
fn top_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// The `crate::X` the code of `text` uses, comments and test modules left out.
fn uses(text: &str) -> BTreeSet<String> {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = BTreeSet::new();
    for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let names: Vec<&str> =
                if let Some(group) = rest.strip_prefix('{') { group.split('}').next().unwrap_or("").split(',').map(str::trim).collect() } else { vec![rest] };
            for name in names {
                let word: String = name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !word.is_empty() && word.chars().next().unwrap().is_ascii_lowercase() {
                    out.insert(word);
                }
            }
        }
    }
    out
}

#[test]
fn every_folder_has_a_layer_and_uses_only_lower_ones() {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let skip = test_only(&all);
    let mut broken = Vec::new();
    for path in all.iter().filter(|p| !skip.contains(*p) && p.file_name().is_some_and(|f| f != "lib.rs")) {
        let top = top_of(path);
        let Some(own) = rank(&top) else {
            broken.push(format!("{}: folder `{top}` is in no layer (tests/layers.rs, docs/architecture.md)", path.display()));
            continue;
        };
        for used in uses(&std::fs::read_to_string(path).unwrap()) {
            if used == top {
                continue;
            }
            match rank(&used) {
                Some(r) if r < own => {}
                Some(_) => broken.push(format!("{}: `{top}` uses `crate::{used}`, a layer that is not below it", path.display())),
                None => broken.push(format!("{}: uses `crate::{used}`, in no layer", path.display())),
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_reader_sees_uses_and_skips_comments_and_tests() {
    let text = "use crate::{sim::SimTime, packet::Seq};\n/// see crate::engine\nlet x = crate::queue::Limit::Packets(1);\n#[cfg(test)]\nmod tests {\n    use crate::report;\n}\n";
    assert_eq!(uses(text), ["packet", "queue", "sim"].iter().map(|s| s.to_string()).collect());
}
