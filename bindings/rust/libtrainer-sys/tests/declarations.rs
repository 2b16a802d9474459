// SPDX-License-Identifier: Apache-2.0
//! Drift check without bindgen: the functions and constants declared by hand in src/lib.rs must
//! be exactly the `TRAINER_API` functions and the `TRAINER_*` integer macros of trainer.h and of
//! the section headers this crate binds (trainer/cluster.h), and the layout of transparent
//! structs must match what the library writes.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn header_path() -> PathBuf {
    let dir = std::env::var_os("TRAINER_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include"));
    dir.join("trainer.h")
}

/// The section headers declared here besides trainer.h (trainer.h includes them).
const SECTIONS: &[&str] = &["trainer/cluster.h"];

fn read(path: &PathBuf) -> String {
    let mut text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    if path.ends_with("trainer.h") {
        for section in SECTIONS {
            text.push('\n');
            text.push_str(&read(&path.with_file_name(section)));
        }
    }
    text
}

/// Joins the header into one line per declaration, then picks `TRAINER_API ... name(`.
fn header_functions(header: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let flat = header.replace('\n', " ");
    for decl in flat.split("TRAINER_API").skip(1) {
        // Skip the macro definitions themselves (`#define TRAINER_API ...`).
        let Some(paren) = decl.find('(') else { continue };
        let head = decl[..paren].trim_end();
        if head.contains('#') || head.is_empty() {
            continue;
        }
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        if name.starts_with("trainer_") {
            out.insert(name);
        }
    }
    out
}

fn rust_functions(src: &str) -> BTreeSet<String> {
    src.lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .map(|rest| rest[..rest.find('(').unwrap()].to_string())
        .collect()
}

/// `#define TRAINER_X (-3)` / `#define TRAINER_X 0` / `(1u << 2)` -> value.
fn header_int_macros(header: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in header.lines() {
        let Some(rest) = line.trim().strip_prefix("#define ") else { continue };
        let mut it = rest.splitn(2, char::is_whitespace);
        let (Some(name), Some(value)) = (it.next(), it.next()) else { continue };
        if !name.starts_with("TRAINER_") || name.contains('(') {
            continue;
        }
        let value = value.split("/*").next().unwrap().trim();
        if let Some(v) = eval_int(value) {
            out.insert(name.to_string(), v);
        }
    }
    out
}

fn eval_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let t = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')).unwrap_or(t).trim();
    if let Some((a, b)) = t.split_once("<<") {
        return Some(eval_int(a)? << eval_int(b)?);
    }
    let t = t.trim_end_matches(['u', 'U']);
    t.parse::<i64>().ok()
}

/// `pub const TRAINER_X: type = value;` in src/lib.rs -> value.
fn rust_int_consts(src: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in src.lines() {
        let Some(rest) = line.trim().strip_prefix("pub const ") else { continue };
        let Some((name, rest)) = rest.split_once(':') else { continue };
        let Some((_, value)) = rest.split_once('=') else { continue };
        if let Some(v) = eval_int(value.trim().trim_end_matches(';')) {
            out.insert(name.trim().to_string(), v);
        }
    }
    out
}

#[test]
fn every_header_function_is_declared_and_nothing_else() {
    let header = read(&header_path());
    let src = read(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"));
    let want = header_functions(&header);
    let have = rust_functions(&src);
    assert!(want.contains("trainer_version_number"), "header parse found {want:?}");
    let missing: Vec<_> = want.difference(&have).collect();
    let extra: Vec<_> = have.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "libtrainer-sys drifted from trainer.h: missing {missing:?}, not in header {extra:?}"
    );
}

#[test]
fn integer_constants_match_the_header() {
    let header = header_int_macros(&read(&header_path()));
    let rust =
        rust_int_consts(&read(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")));
    assert!(header.contains_key("TRAINER_E_INVALID"), "header parse found {header:?}");
    for (name, value) in &header {
        match rust.get(name) {
            Some(v) => assert_eq!(v, value, "{name}: Rust {v}, header {value}"),
            None => panic!("{name} = {value} is in trainer.h but not in libtrainer-sys"),
        }
    }
    // The version constants are what the header says (TRAINER_VERSION_NUMBER is computed).
    assert_eq!(header["TRAINER_VERSION_MAJOR"], i64::from(libtrainer_sys::TRAINER_VERSION_MAJOR));
    assert_eq!(header["TRAINER_VERSION_MINOR"], i64::from(libtrainer_sys::TRAINER_VERSION_MINOR));
    assert_eq!(header["TRAINER_VERSION_PATCH"], i64::from(libtrainer_sys::TRAINER_VERSION_PATCH));
}

#[test]
fn version_string_matches_the_header() {
    let header = read(&header_path());
    let line = header
        .lines()
        .find(|l| l.starts_with("#define TRAINER_VERSION_STRING"))
        .expect("TRAINER_VERSION_STRING in trainer.h");
    assert_eq!(line.split('"').nth(1), Some(libtrainer_sys::TRAINER_VERSION_STRING));
}

/// Field names, in order, of every `typedef struct name { ... } name;` of the header.
fn header_structs(header: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut rest = header;
    while let Some(start) = rest.find("typedef struct ") {
        rest = &rest[start + "typedef struct ".len()..];
        let Some(open) = rest.find(['{', ';']) else { break };
        if rest.as_bytes()[open] == b';' {
            continue; // an opaque handle: `typedef struct x x;`
        }
        let name = rest[..open].trim().to_string();
        let Some(close) = rest.find('}') else { break };
        let mut body = rest[open + 1..close].to_string();
        // Drop comments, then take the last identifier of each `type name;` declaration, or the
        // name of a function pointer, `void (*name)(void*)`.
        while let Some(c) = body.find("/*") {
            let end = body[c..].find("*/").map_or(body.len(), |e| c + e + 2);
            body.replace_range(c..end, " ");
        }
        let fields = body
            .split(';')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| {
                let d = match d.find("(*") {
                    Some(p) => &d[..p + 2 + d[p + 2..].find(')').unwrap()],
                    None => d,
                };
                d.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        out.insert(name, fields);
        rest = &rest[close..];
    }
    out
}

/// Field names, in order, of every `pub struct name { pub field: type, ... }` of src/lib.rs.
fn rust_structs(src: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in src.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("pub struct ") {
            if let Some(name) = rest.strip_suffix('{') {
                current = Some((name.trim().to_string(), Vec::new()));
            }
        } else if line == "}" {
            if let Some((name, fields)) = current.take() {
                out.insert(name, fields);
            }
        } else if let Some((_, fields)) = current.as_mut() {
            if let Some((field, _)) = line.strip_prefix("pub ").and_then(|f| f.split_once(':')) {
                fields.push(field.trim().to_string());
            }
        }
    }
    out
}

#[test]
fn transparent_structs_have_the_header_fields_in_order() {
    let header = header_structs(&read(&header_path()));
    let rust = rust_structs(&read(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")));
    assert!(header.contains_key("trainer_parse_options"), "header parse found {header:?}");
    assert_eq!(
        header["trainer_client_options"].last().map(String::as_str),
        Some("warning_user_data_free"),
        "function pointer fields are parsed"
    );
    for (name, fields) in &header {
        match rust.get(name) {
            Some(have) => {
                assert_eq!(have, fields, "fields of {name}: Rust {have:?}, header {fields:?}")
            }
            None => panic!("struct {name} is in trainer.h but not in libtrainer-sys"),
        }
    }
}

#[test]
fn parse_options_init_writes_the_declared_struct() {
    use core::mem::{offset_of, size_of};
    use libtrainer_sys::{trainer_parse_options, TRAINER_OK, TRAINER_PARSE_OPTIONS_VERSION};
    // Version 2 appended `max_alias_bytes` after the version-1 fields.
    assert_eq!(TRAINER_PARSE_OPTIONS_VERSION, 2);
    assert_eq!(offset_of!(trainer_parse_options, max_alias_bytes), 6 * size_of::<usize>());
    let mut opts = trainer_parse_options {
        version: u32::MAX,
        max_document_bytes: usize::MAX,
        max_depth: usize::MAX,
        max_documents: usize::MAX,
        max_nodes: usize::MAX,
        max_aliases: usize::MAX,
        max_alias_bytes: usize::MAX,
    };
    // SAFETY: `opts` is a writable struct of the current version.
    let st = unsafe {
        libtrainer_sys::trainer_parse_options_init(&mut opts, TRAINER_PARSE_OPTIONS_VERSION)
    };
    assert_eq!(st, TRAINER_OK);
    assert_eq!(opts.version, TRAINER_PARSE_OPTIONS_VERSION);
    assert_eq!(opts.max_alias_bytes, 0);
    assert_eq!(opts.max_aliases, 0);
    assert_eq!(opts.max_document_bytes, 0);
}

#[test]
fn buffer_layout_is_pointer_then_size() {
    use core::mem::{align_of, offset_of, size_of};
    use libtrainer_sys::trainer_buffer;
    assert_eq!(offset_of!(trainer_buffer, data), 0);
    assert_eq!(offset_of!(trainer_buffer, len), size_of::<*mut u8>());
    assert_eq!(size_of::<trainer_buffer>(), 2 * size_of::<usize>());
    assert_eq!(align_of::<trainer_buffer>(), align_of::<usize>());
}

#[test]
fn library_reports_the_declared_version() {
    let n = unsafe { libtrainer_sys::trainer_version_number() };
    assert_eq!(n, libtrainer_sys::TRAINER_VERSION_NUMBER);
    let s = unsafe { core::ffi::CStr::from_ptr(libtrainer_sys::trainer_version_string()) };
    assert_eq!(s.to_str().unwrap(), libtrainer_sys::TRAINER_VERSION_STRING);
}

#[test]
fn cluster_options_init_write_the_declared_structs() {
    use libtrainer_sys::*;
    // SAFETY: every struct is writable and of the current version; the library writes INIT.
    unsafe {
        let mut logs = trainer_cluster_logs_options {
            node: 7,
            tail_lines: 7,
            since_seconds: 7,
            timeout_ms: 7,
            ..trainer_cluster_logs_options::INIT
        };
        let st = trainer_cluster_logs_options_init(&mut logs, TRAINER_CLUSTER_LOGS_OPTIONS_VERSION);
        assert_eq!(st, TRAINER_OK);
        assert_eq!((logs.node, logs.tail_lines, logs.since_seconds), (-1, -1, -1));
        assert_eq!(logs.timeout_ms, 0);

        let mut client =
            trainer_client_options { burst: 3, qps: 2.5, ..trainer_client_options::INIT };
        let st = trainer_client_options_init(&mut client, TRAINER_CLIENT_OPTIONS_VERSION);
        assert_eq!(st, TRAINER_OK);
        assert_eq!((client.burst, client.qps), (0, 0.0));
        assert!(client.on_warning.is_none() && client.warning_user_data_free.is_none());

        let mut delete = trainer_cluster_delete_options {
            propagation: TRAINER_PROPAGATION_ORPHAN,
            dry_run: 1,
            ..trainer_cluster_delete_options::INIT
        };
        let st = trainer_cluster_delete_options_init(
            &mut delete,
            TRAINER_CLUSTER_DELETE_OPTIONS_VERSION,
        );
        assert_eq!(st, TRAINER_OK);
        assert_eq!((delete.propagation, delete.dry_run), (TRAINER_PROPAGATION_BACKGROUND, 0));
        assert_eq!(trainer_cluster_delete_options_init(&mut delete, 2), TRAINER_E_INVALID_ARGUMENT);
    }
}
