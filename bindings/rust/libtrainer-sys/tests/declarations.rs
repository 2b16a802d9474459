// SPDX-License-Identifier: Apache-2.0
//! Drift check without bindgen: what src/lib.rs declares by hand must be exactly what the public
//! C headers declare: `include/trainer.h` and EVERY `include/trainer/*.h` (found by listing the
//! folder, so a new section header is covered the day it is added). Checked: the `TRAINER_API`
//! functions (names and parameter counts), the `TRAINER_*` integer macros, the fields (names, in
//! order) of every transparent struct, the opaque handles and the callback typedefs; and the
//! layout of some structs against what the library writes.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn include_dir() -> PathBuf {
    std::env::var_os("TRAINER_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include"))
}

fn header_path() -> PathBuf {
    include_dir().join("trainer.h")
}

/// Every public C header: trainer.h, then include/trainer/*.h in name order.
fn header_files() -> Vec<PathBuf> {
    let dir = include_dir().join("trainer");
    let mut sections: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    sections.sort();
    let mut all = vec![header_path()];
    all.extend(sections);
    all
}

fn read_file(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The text of `path`; for trainer.h, the text of every public C header, with `\`-continued
/// lines joined (a macro value may sit on the next line).
fn read(path: &PathBuf) -> String {
    if !path.ends_with("trainer.h") {
        return read_file(path);
    }
    let mut text = String::new();
    for file in header_files() {
        text.push_str(&read_file(&file).replace("\\\n", " "));
        text.push('\n');
    }
    text
}

#[test]
fn every_public_header_is_read() {
    let files = header_files();
    let names: Vec<String> =
        files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for want in ["trainer.h", "cluster.h", "collectives.h", "controller.h", "local.h", "plugin.h"] {
        assert!(names.iter().any(|n| n == want), "{want} not among {names:?}");
    }
}

/// `text` without its `/* ... */` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.find("/*") {
        out.push_str(&rest[..c]);
        out.push(' ');
        rest = rest[c..].find("*/").map_or("", |e| &rest[c + e + 2..]);
    }
    out.push_str(rest);
    out
}

/// The text between the parenthesis that `text` starts with and its match.
fn parenthesized(text: &str) -> &str {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &text[1..i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses in {text:?}")
}

/// Number of parameters of a parameter list: top-level commas, with `()`/`(void)` none.
fn parameter_count(list: &str) -> usize {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return 0;
    }
    let (mut depth, mut commas) = (0i32, 0usize);
    for c in list.chars() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => commas += 1,
            _ => {}
        }
    }
    // Rust allows a trailing comma.
    if list.ends_with(',') {
        commas
    } else {
        commas + 1
    }
}

/// The trailing identifier of `head` (`const char* trainer_x` -> `trainer_x`).
fn last_identifier(head: &str) -> String {
    let head = head.trim_end();
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map_or(head.len(), |(i, _)| i);
    head[start..].to_string()
}

/// Every `TRAINER_API ... name(params)` of the headers: name -> parameter count.
fn header_functions(header: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let flat = strip_comments(header).replace('\n', " ");
    for decl in flat.split("TRAINER_API").skip(1) {
        // Skip the macro definitions themselves (`#define TRAINER_API ...`).
        let Some(paren) = decl.find('(') else { continue };
        let head = decl[..paren].trim_end();
        if head.contains('#') || head.is_empty() {
            continue;
        }
        let name = last_identifier(head);
        if name.starts_with("trainer_") {
            out.insert(name, parameter_count(parenthesized(&decl[paren..])));
        }
    }
    out
}

/// Every `pub fn name(params)` of src/lib.rs: name -> parameter count.
fn rust_functions(src: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (at, _) in src.match_indices("pub fn ") {
        let rest = &src[at + "pub fn ".len()..];
        let paren = rest.find('(').unwrap();
        out.insert(rest[..paren].to_string(), parameter_count(parenthesized(&rest[paren..])));
    }
    out
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
    // One function of each header, so a parse that silently finds nothing fails.
    for name in [
        "trainer_version_number",
        "trainer_cluster_apply",
        "trainer_comm_all_reduce",
        "trainer_run_start",
        "trainer_controller_new",
        "trainer_plugin_new",
    ] {
        assert!(want.contains_key(name), "header parse did not find {name}: {want:?}");
    }
    assert_eq!(want["trainer_version_number"], 0, "(void) has no parameters");
    assert_eq!(want["trainer_comm_create_nccl"], 10);
    let missing: Vec<_> = want.keys().filter(|n| !have.contains_key(*n)).collect();
    let extra: Vec<_> = have.keys().filter(|n| !want.contains_key(*n)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "libtrainer-sys drifted from the C headers: missing {missing:?}, not in a header {extra:?}"
    );
    let arity: Vec<_> = want
        .iter()
        .filter(|(n, c)| have[*n] != **c)
        .map(|(n, c)| format!("{n}: header {c} parameters, Rust {}", have[n]))
        .collect();
    assert!(arity.is_empty(), "parameter counts differ: {arity:?}");
}

/// `typedef struct x x;` (opaque handles) and `typedef ret (*x)(...)` (callbacks).
fn header_typedefs(header: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut opaque, mut callbacks) = (BTreeSet::new(), BTreeSet::new());
    let flat = strip_comments(header).replace('\n', " ");
    for decl in flat.split("typedef ").skip(1) {
        let decl = decl.split(';').next().unwrap_or("");
        if let Some(rest) = decl.strip_prefix("struct ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            if words.len() == 2 && words[0] == words[1] {
                opaque.insert(words[0].to_string());
            }
        } else if let Some(p) = decl.find("(*") {
            let name = &decl[p + 2..];
            callbacks.insert(name[..name.find(')').unwrap()].trim().to_string());
        }
    }
    (opaque, callbacks)
}

#[test]
fn every_handle_and_callback_type_is_declared() {
    let (opaque, callbacks) = header_typedefs(&read(&header_path()));
    let src = read(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"));
    assert!(opaque.contains("trainer_framework") && opaque.contains("trainer_comm"), "{opaque:?}");
    assert!(callbacks.contains("trainer_plugin_entry_fn"), "{callbacks:?}");
    // Opaque handles are the bare `name;` lines of the `opaque!` blocks.
    let rust_opaque: BTreeSet<String> = src
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_suffix(';'))
        .filter(|l| l.starts_with("trainer_") && l.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .map(str::to_string)
        .collect();
    assert_eq!(rust_opaque, opaque, "opaque handles: Rust vs headers");
    let rust_types: BTreeSet<String> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub type "))
        .map(|r| r[..r.find([' ', '=']).unwrap()].to_string())
        .collect();
    let missing: Vec<_> = callbacks.difference(&rust_types).collect();
    assert!(missing.is_empty(), "callback types not in libtrainer-sys: {missing:?}");
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
    // Computed macros the parser does not evaluate: their formula is checked instead.
    let text = read(&header_path());
    assert!(text.contains(
        "(TRAINER_PLUGIN_ABI_VERSION_MAJOR * 65536u + TRAINER_PLUGIN_ABI_VERSION_MINOR)"
    ));
    assert_eq!(
        i64::from(libtrainer_sys::TRAINER_PLUGIN_ABI_VERSION),
        (header["TRAINER_PLUGIN_ABI_VERSION_MAJOR"] << 16)
            | header["TRAINER_PLUGIN_ABI_VERSION_MINOR"]
    );
    assert_eq!(header["TRAINER_ISOLATION_NAMESPACES"], 1, "continued macro lines are read");
    assert!(text.contains(&format!(
        "#define TRAINER_PLUGIN_ENTRY_SYMBOL \"{}\"",
        libtrainer_sys::TRAINER_PLUGIN_ENTRY_SYMBOL
    )));
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
        Some("log_user_data_free"),
        "fields after documented ones are parsed"
    );
    assert!(
        header["trainer_client_options"].contains(&"warning_user_data_free".to_string()),
        "function pointer fields are parsed"
    );
    // The last field of structs of every header, so a header the parse skipped fails.
    for (name, last) in [
        ("trainer_render_options", "progress_server"),
        ("trainer_cluster_apply_options", "framework"),
        ("trainer_controller_options", "status_server_port"),
        ("trainer_comm_options", "cuda_stream"),
        ("trainer_run_options", "progress_server"),
        ("trainer_plugin_host", "reply_set_error"),
        ("trainer_plugin_descriptor", "status"),
    ] {
        assert_eq!(
            header.get(name).and_then(|f| f.last()).map(String::as_str),
            Some(last),
            "{name}"
        );
    }
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

        let mut client = trainer_client_options {
            burst: 3,
            qps: 2.5,
            max_response_bytes: 7,
            max_watch_event_bytes: 7,
            ..trainer_client_options::INIT
        };
        let st = trainer_client_options_init(&mut client, TRAINER_CLIENT_OPTIONS_VERSION);
        assert_eq!(st, TRAINER_OK);
        assert_eq!((client.burst, client.qps), (0, 0.0));
        assert!(client.on_warning.is_none() && client.warning_user_data_free.is_none());
        assert_eq!((client.max_response_bytes, client.max_watch_event_bytes), (0, 0));
        assert!(client.on_log.is_none() && client.log_user_data_free.is_none());
        // Version 1 ends before the limits: init leaves them alone.
        client.max_response_bytes = 7;
        assert_eq!(trainer_client_options_init(&mut client, 1), TRAINER_OK);
        assert_eq!((client.version, client.max_response_bytes), (1, 7));
        assert_eq!(trainer_client_options_init(&mut client, 3), TRAINER_E_INVALID_ARGUMENT);

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

#[test]
fn version_2_options_init_write_the_framework_field() {
    use libtrainer_sys::*;
    let garbage = core::ptr::NonNull::<trainer_framework>::dangling().as_ptr() as *const _;
    // SAFETY: every struct is writable and of the current version; the library writes INIT.
    unsafe {
        let mut render =
            trainer_render_options { framework: garbage, ..trainer_render_options::INIT };
        assert_eq!(trainer_render_options_init(&mut render, 2), TRAINER_OK);
        assert!(render.framework.is_null() && render.version == 2);

        let mut apply = trainer_cluster_apply_options {
            framework: garbage,
            ..trainer_cluster_apply_options::INIT
        };
        assert_eq!(trainer_cluster_apply_options_init(&mut apply, 2), TRAINER_OK);
        assert!(apply.framework.is_null() && apply.version == 2);

        let mut ctl = trainer_controller_options {
            framework: garbage,
            workers: 9,
            ..trainer_controller_options::INIT
        };
        assert_eq!(trainer_controller_options_init(&mut ctl, 2), TRAINER_OK);
        assert!(ctl.framework.is_null() && ctl.workers == 0 && ctl.on_reconcile.is_none());
        // Version 2 ends before the serving fields of version 3: they are not written.
        ctl.webhook_port = 77;
        assert_eq!(trainer_controller_options_init(&mut ctl, 2), TRAINER_OK);
        assert_eq!(ctl.webhook_port, 77);
        assert_eq!(trainer_controller_options_init(&mut ctl, 3), TRAINER_OK);
        assert!(ctl.webhook_port == 0 && ctl.webhook_cert_hosts.is_null());

        let mut rec = trainer_controller_reconcile_options {
            no_events: 1,
            ..trainer_controller_reconcile_options::INIT
        };
        assert_eq!(
            trainer_controller_reconcile_options_init(
                &mut rec,
                TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION
            ),
            TRAINER_OK
        );
        assert_eq!(rec.no_events, 0);
    }
}

#[test]
fn the_host_table_is_complete() {
    use libtrainer_sys::*;
    // SAFETY: static storage.
    let host = unsafe { &*trainer_plugin_host_table() };
    assert_eq!(host.abi_version >> 16, TRAINER_PLUGIN_ABI_VERSION_MAJOR);
    assert!(host.abi_version >= TRAINER_PLUGIN_ABI_VERSION);
    // Addresses differ from the PLT's, so only presence is checked.
    assert!(host.request_json.is_some() && host.reply_set.is_some());
    assert!(host.request_get.is_some() && host.request_get_string.is_some());
    assert!(host.request_get_int.is_some() && host.reply_set_error.is_some());
}
