// SPDX-License-Identifier: Apache-2.0
//! Raw declarations of the libtrainer C ABI (`include/trainer.h` and the section headers it
//! includes, `include/trainer/*.h`), written by hand (no bindgen).
//!
//! Conventions follow the header: functions return a [`trainer_status`] (0 or a negative
//! `TRAINER_E_*`), the optional last parameter receives an owned [`trainer_error`], inputs are
//! borrowed `(ptr, len)` pairs and owned text comes back in a [`trainer_buffer`] released with
//! [`trainer_buffer_free`]. Status codes are integer constants, never a Rust `enum`: a newer
//! library may return a code this crate does not know.
//!
//! `tests/declarations.rs` compares what is declared here with every public C header (functions
//! and their parameter counts, integer macros, struct fields in order, opaque handles and
//! callback types), so the two cannot drift apart silently.
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// Declares an opaque C type: unconstructible, `!Send`, `!Sync`, `!Unpin` (Rustonomicon).
macro_rules! opaque {
    ($($(#[$m:meta])* $name:ident;)*) => {$(
        $(#[$m])*
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: PhantomData<(*mut u8, PhantomPinned)>,
        }
    )*};
}

// ---- Version ----------------------------------------------------------------------------------

/// Header version these declarations were written against.
pub const TRAINER_VERSION_MAJOR: u32 = 0;
pub const TRAINER_VERSION_MINOR: u32 = 1;
pub const TRAINER_VERSION_PATCH: u32 = 0;
pub const TRAINER_VERSION_STRING: &str = "0.1.0";
pub const TRAINER_VERSION_NUMBER: u32 =
    TRAINER_VERSION_MAJOR * 10000 + TRAINER_VERSION_MINOR * 100 + TRAINER_VERSION_PATCH;

// ---- Status codes -----------------------------------------------------------------------------

pub type trainer_status = c_int;

pub const TRAINER_OK: trainer_status = 0;
pub const TRAINER_E_INVALID_ARGUMENT: trainer_status = -1;
pub const TRAINER_E_PARSE: trainer_status = -2;
pub const TRAINER_E_INVALID: trainer_status = -3;
pub const TRAINER_E_LIMIT: trainer_status = -4;
pub const TRAINER_E_NOT_FOUND: trainer_status = -5;
pub const TRAINER_E_UNSUPPORTED: trainer_status = -6;
pub const TRAINER_E_NOMEM: trainer_status = -7;
pub const TRAINER_E_INTERNAL: trainer_status = -8;
pub const TRAINER_E_USER: trainer_status = -9;
pub const TRAINER_E_IO: trainer_status = -10;
pub const TRAINER_E_TIMEOUT: trainer_status = -11;
pub const TRAINER_E_CANCELLED: trainer_status = -12;
pub const TRAINER_E_UNAUTHORIZED: trainer_status = -13;
pub const TRAINER_E_FORBIDDEN: trainer_status = -14;
pub const TRAINER_E_CONFLICT: trainer_status = -15;
pub const TRAINER_E_SERVER: trainer_status = -16;
pub const TRAINER_E_FAILED: trainer_status = -17;

pub const TRAINER_FEATURE_MPI: u32 = 1 << 0;
pub const TRAINER_FEATURE_NCCL: u32 = 1 << 1;

// ---- Buffers ----------------------------------------------------------------------------------

/// Library-allocated bytes; `data` is NUL-terminated, `len` (without the NUL) is authoritative.
#[repr(C)]
#[derive(Debug)]
pub struct trainer_buffer {
    pub data: *mut c_char,
    pub len: usize,
}

impl trainer_buffer {
    /// `TRAINER_BUFFER_INIT`.
    pub const INIT: trainer_buffer = trainer_buffer { data: core::ptr::null_mut(), len: 0 };
}

impl Default for trainer_buffer {
    fn default() -> Self {
        Self::INIT
    }
}

// ---- Documents --------------------------------------------------------------------------------

/// Parse limits; a field left at 0 means the library default. Fields are only ever appended;
/// `version` says which the struct has (1: up to `max_aliases`; 2: `max_alias_bytes` too).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_parse_options {
    pub version: u32,
    pub max_document_bytes: usize,
    pub max_depth: usize,
    pub max_documents: usize,
    pub max_nodes: usize,
    pub max_aliases: usize,
    /// Struct version 2.
    pub max_alias_bytes: usize,
}

pub const TRAINER_PARSE_OPTIONS_VERSION: u32 = 2;

impl trainer_parse_options {
    /// `TRAINER_PARSE_OPTIONS_INIT`.
    pub const INIT: trainer_parse_options = trainer_parse_options {
        version: TRAINER_PARSE_OPTIONS_VERSION,
        max_document_bytes: 0,
        max_depth: 0,
        max_documents: 0,
        max_nodes: 0,
        max_aliases: 0,
        max_alias_bytes: 0,
    };
}

pub type trainer_format = c_int;

pub const TRAINER_FORMAT_JSON: trainer_format = 0;
pub const TRAINER_FORMAT_YAML: trainer_format = 1;
pub const TRAINER_FORMAT_JSON_PRETTY: trainer_format = 2;

// ---- Render -----------------------------------------------------------------------------------

/// Options of `trainer_render`; a NULL pointer means the library default. Every string is
/// borrowed for the call and NUL-terminated. Fields are only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_render_options {
    pub version: u32,
    pub uid: *const c_char,
    pub namespace_name: *const c_char,
    pub feature_gates: *const c_char,
    pub ssh_private_key: *const c_char,
    pub now: *const c_char,
    pub builtin_runtimes: i32,
    pub parse: *const trainer_parse_options,
    /// Struct version 2: the plugins (borrowed for the call); NULL: the built-in plugins of
    /// `feature_gates`. With a framework, `feature_gates` must be NULL or "".
    pub framework: *const trainer_framework,
    /// Struct version 3: a local run's progress server (borrowed for the call): its port and CA
    /// in the render.
    pub progress_server: *const trainer_progress_server,
}

/// Struct versions: 1 ends with `parse`; 2 adds `framework`; 3 adds `progress_server`.
pub const TRAINER_RENDER_OPTIONS_VERSION: u32 = 3;

impl trainer_render_options {
    /// `TRAINER_RENDER_OPTIONS_INIT`.
    pub const INIT: trainer_render_options = trainer_render_options {
        version: TRAINER_RENDER_OPTIONS_VERSION,
        uid: core::ptr::null(),
        namespace_name: core::ptr::null(),
        feature_gates: core::ptr::null(),
        ssh_private_key: core::ptr::null(),
        now: core::ptr::null(),
        builtin_runtimes: 0,
        parse: core::ptr::null(),
        framework: core::ptr::null(),
        progress_server: core::ptr::null(),
    };
}

opaque! {
    /// An error object: code, message and field violations. Movable; owned by the caller.
    trainer_error;
    /// The documents of one YAML stream or JSON text. Movable; owned by the caller.
    trainer_document_list;
    /// One document, borrowed from its list.
    trainer_document;
    /// Admission warnings of one validation. Shareable; owned by the caller.
    trainer_validation;
    /// The objects, warnings and skipped reason of one render. Shareable; owned by the caller.
    trainer_render_result;
}

unsafe extern "C" {
    pub fn trainer_version_number() -> u32;
    pub fn trainer_version_string() -> *const c_char;
    pub fn trainer_features() -> u32;
    pub fn trainer_status_name(status: trainer_status) -> *const c_char;

    pub fn trainer_buffer_free(buf: *mut trainer_buffer);

    pub fn trainer_error_free(err: *mut trainer_error);
    pub fn trainer_error_code(err: *const trainer_error) -> trainer_status;
    pub fn trainer_error_message(err: *const trainer_error) -> *const c_char;
    pub fn trainer_error_field_count(err: *const trainer_error) -> usize;
    pub fn trainer_error_field_path(err: *const trainer_error, i: usize) -> *const c_char;
    pub fn trainer_error_field_type(err: *const trainer_error, i: usize) -> *const c_char;
    pub fn trainer_error_field_value(err: *const trainer_error, i: usize) -> *const c_char;
    pub fn trainer_error_field_detail(err: *const trainer_error, i: usize) -> *const c_char;
    pub fn trainer_error_field_string(err: *const trainer_error, i: usize) -> *const c_char;
    pub fn trainer_error_http_status(err: *const trainer_error) -> i32;
    pub fn trainer_error_reason(err: *const trainer_error) -> *const c_char;

    pub fn trainer_parse_options_init(
        opts: *mut trainer_parse_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_documents_parse(
        data: *const c_char,
        len: usize,
        opts: *const trainer_parse_options,
        out: *mut *mut trainer_document_list,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_document_list_free(list: *mut trainer_document_list);
    pub fn trainer_document_list_count(list: *const trainer_document_list) -> usize;
    pub fn trainer_document_list_get(
        list: *mut trainer_document_list,
        i: usize,
    ) -> *mut trainer_document;
    pub fn trainer_document_kind(doc: *const trainer_document) -> *const c_char;
    pub fn trainer_document_api_version(doc: *const trainer_document) -> *const c_char;
    pub fn trainer_document_name(doc: *const trainer_document) -> *const c_char;
    pub fn trainer_document_namespace(doc: *const trainer_document) -> *const c_char;
    pub fn trainer_document_warning_count(doc: *const trainer_document) -> usize;
    pub fn trainer_document_warning(doc: *const trainer_document, i: usize) -> *const c_char;
    pub fn trainer_document_default(
        doc: *mut trainer_document,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_document_validate(
        doc: *const trainer_document,
        context: *const trainer_document_list,
        out: *mut *mut trainer_validation,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_validation_free(validation: *mut trainer_validation);
    pub fn trainer_validation_warning_count(validation: *const trainer_validation) -> usize;
    pub fn trainer_validation_warning(
        validation: *const trainer_validation,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_document_encode(
        doc: *const trainer_document,
        fmt: trainer_format,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;

    pub fn trainer_render_options_init(
        opts: *mut trainer_render_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_render(
        data: *const c_char,
        len: usize,
        opts: *const trainer_render_options,
        out: *mut *mut trainer_render_result,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_render_result_free(result: *mut trainer_render_result);
    pub fn trainer_render_result_count(result: *const trainer_render_result) -> usize;
    pub fn trainer_render_result_json(
        result: *const trainer_render_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_render_result_kind(
        result: *const trainer_render_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_render_result_api_version(
        result: *const trainer_render_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_render_result_name(
        result: *const trainer_render_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_render_result_namespace(
        result: *const trainer_render_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_render_result_warning_count(result: *const trainer_render_result) -> usize;
    pub fn trainer_render_result_warning(
        result: *const trainer_render_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_render_result_skipped_reason(
        result: *const trainer_render_result,
    ) -> *const c_char;
    pub fn trainer_render_result_encode(
        result: *const trainer_render_result,
        fmt: trainer_format,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
}

// ---- Cluster (trainer/cluster.h) ----------------------------------------------------------------

opaque! {
    /// A cancellation signal. Shareable: cancel from any thread; free after the last call.
    trainer_cancel_token;
    /// A Kubernetes API client. Shareable: any number of threads at once; free last.
    trainer_client;
    /// The objects one `trainer_cluster_apply` applied. Shareable; owned by the caller.
    trainer_cluster_apply_result;
}

/// Receives a warning (`text` is `len` bytes, NUL-terminated too); the return value is ignored.
pub type trainer_warning_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, text: *const c_char, len: usize) -> trainer_status,
>;
/// Receives one retry line of a client (`line` is `len` bytes, NUL-terminated too); the return
/// value is ignored.
pub type trainer_client_log_fn = Option<
    unsafe extern "C" fn(user_data: *mut c_void, line: *const c_char, len: usize) -> trainer_status,
>;
/// Releases the user data of a stored callback.
pub type trainer_user_data_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// Options of `trainer_client_new`; NULL/0 mean the library default. Fields are only appended:
/// `version` says which the struct has (1: up to `warning_user_data_free`; 2: the limits
/// `max_response_bytes` and `max_watch_event_bytes` and the `on_log` callback too).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_client_options {
    pub version: u32,
    pub kubeconfig: *const c_char,
    pub context: *const c_char,
    pub namespace_name: *const c_char,
    pub request_timeout_ms: i64,
    pub qps: f64,
    pub burst: i32,
    pub user_agent: *const c_char,
    pub on_warning: trainer_warning_fn,
    pub warning_user_data: *mut c_void,
    pub warning_user_data_free: trainer_user_data_free_fn,
    /// Bound on one response body [256 MiB]; struct version 2.
    pub max_response_bytes: u64,
    /// Bound on one watch event [16 MiB]; struct version 2.
    pub max_watch_event_bytes: u64,
    /// The client's retry lines; struct version 2.
    pub on_log: trainer_client_log_fn,
    pub log_user_data: *mut c_void,
    pub log_user_data_free: trainer_user_data_free_fn,
}

pub const TRAINER_CLIENT_OPTIONS_VERSION: u32 = 2;

impl trainer_client_options {
    /// `TRAINER_CLIENT_OPTIONS_INIT`.
    pub const INIT: trainer_client_options = trainer_client_options {
        version: TRAINER_CLIENT_OPTIONS_VERSION,
        kubeconfig: core::ptr::null(),
        context: core::ptr::null(),
        namespace_name: core::ptr::null(),
        request_timeout_ms: 0,
        qps: 0.0,
        burst: 0,
        user_agent: core::ptr::null(),
        on_warning: None,
        warning_user_data: core::ptr::null_mut(),
        warning_user_data_free: None,
        max_response_bytes: 0,
        max_watch_event_bytes: 0,
        on_log: None,
        log_user_data: core::ptr::null_mut(),
        log_user_data_free: None,
    };
}

/// Options of `trainer_cluster_apply`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_cluster_apply_options {
    pub version: u32,
    pub namespace_name: *const c_char,
    pub field_manager: *const c_char,
    pub dry_run: i32,
    pub force: i32,
    pub cancel: *mut trainer_cancel_token,
    pub timeout_ms: i64,
    pub parse: *const trainer_parse_options,
    /// Struct version 2: the plugins whose rules admission applies (borrowed for the call).
    pub framework: *const trainer_framework,
}

/// Struct versions: 1 ends with `parse`; 2 adds `framework`.
pub const TRAINER_CLUSTER_APPLY_OPTIONS_VERSION: u32 = 2;

impl trainer_cluster_apply_options {
    /// `TRAINER_CLUSTER_APPLY_OPTIONS_INIT`.
    pub const INIT: trainer_cluster_apply_options = trainer_cluster_apply_options {
        version: TRAINER_CLUSTER_APPLY_OPTIONS_VERSION,
        namespace_name: core::ptr::null(),
        field_manager: core::ptr::null(),
        dry_run: 0,
        force: 0,
        cancel: core::ptr::null_mut(),
        timeout_ms: 0,
        parse: core::ptr::null(),
        framework: core::ptr::null(),
    };
}

/// Options of `trainer_cluster_get` and `trainer_cluster_list`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_cluster_get_options {
    pub version: u32,
    pub label_selector: *const c_char,
    pub all_namespaces: i32,
    pub cancel: *mut trainer_cancel_token,
    pub timeout_ms: i64,
}

pub const TRAINER_CLUSTER_GET_OPTIONS_VERSION: u32 = 1;

impl trainer_cluster_get_options {
    /// `TRAINER_CLUSTER_GET_OPTIONS_INIT`.
    pub const INIT: trainer_cluster_get_options = trainer_cluster_get_options {
        version: TRAINER_CLUSTER_GET_OPTIONS_VERSION,
        label_selector: core::ptr::null(),
        all_namespaces: 0,
        cancel: core::ptr::null_mut(),
        timeout_ms: 0,
    };
}

/// What a watch or logs callback returns.
pub const TRAINER_CALLBACK_CONTINUE: trainer_status = 0;
pub const TRAINER_CALLBACK_STOP: trainer_status = 1;

/// Receives one watch event (`type`, and the object as `len` bytes of JSON).
pub type trainer_cluster_watch_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        event_type: *const c_char,
        object: *const c_char,
        len: usize,
    ) -> trainer_status,
>;

/// Options of `trainer_cluster_watch`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_cluster_watch_options {
    pub version: u32,
    pub name: *const c_char,
    pub label_selector: *const c_char,
    pub all_namespaces: i32,
    pub resource_version: *const c_char,
    pub cancel: *mut trainer_cancel_token,
    pub timeout_ms: i64,
}

pub const TRAINER_CLUSTER_WATCH_OPTIONS_VERSION: u32 = 1;

impl trainer_cluster_watch_options {
    /// `TRAINER_CLUSTER_WATCH_OPTIONS_INIT`.
    pub const INIT: trainer_cluster_watch_options = trainer_cluster_watch_options {
        version: TRAINER_CLUSTER_WATCH_OPTIONS_VERSION,
        name: core::ptr::null(),
        label_selector: core::ptr::null(),
        all_namespaces: 0,
        resource_version: core::ptr::null(),
        cancel: core::ptr::null_mut(),
        timeout_ms: 0,
    };
}

/// Options of `trainer_cluster_wait`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_cluster_wait_options {
    pub version: u32,
    pub status: *const c_char,
    pub cancel: *mut trainer_cancel_token,
    pub timeout_ms: i64,
}

pub const TRAINER_CLUSTER_WAIT_OPTIONS_VERSION: u32 = 1;

impl trainer_cluster_wait_options {
    /// `TRAINER_CLUSTER_WAIT_OPTIONS_INIT`.
    pub const INIT: trainer_cluster_wait_options = trainer_cluster_wait_options {
        version: TRAINER_CLUSTER_WAIT_OPTIONS_VERSION,
        status: core::ptr::null(),
        cancel: core::ptr::null_mut(),
        timeout_ms: 0,
    };
}

/// Receives a chunk of a pod's log (`len` bytes of `data`, not NUL-terminated).
pub type trainer_cluster_logs_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        pod: *const c_char,
        data: *const c_char,
        len: usize,
    ) -> trainer_status,
>;

/// Options of `trainer_cluster_logs`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_cluster_logs_options {
    pub version: u32,
    pub node: i32,
    pub replicated_job: *const c_char,
    pub all: i32,
    pub container: *const c_char,
    pub follow: i32,
    pub tail_lines: i64,
    pub since_seconds: i64,
    pub cancel: *mut trainer_cancel_token,
    pub timeout_ms: i64,
}

pub const TRAINER_CLUSTER_LOGS_OPTIONS_VERSION: u32 = 1;

impl trainer_cluster_logs_options {
    /// `TRAINER_CLUSTER_LOGS_OPTIONS_INIT`.
    pub const INIT: trainer_cluster_logs_options = trainer_cluster_logs_options {
        version: TRAINER_CLUSTER_LOGS_OPTIONS_VERSION,
        node: -1,
        replicated_job: core::ptr::null(),
        all: 0,
        container: core::ptr::null(),
        follow: 0,
        tail_lines: -1,
        since_seconds: -1,
        cancel: core::ptr::null_mut(),
        timeout_ms: 0,
    };
}

pub const TRAINER_PROPAGATION_BACKGROUND: i32 = 0;
pub const TRAINER_PROPAGATION_FOREGROUND: i32 = 1;
pub const TRAINER_PROPAGATION_ORPHAN: i32 = 2;

/// Options of `trainer_cluster_delete`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_cluster_delete_options {
    pub version: u32,
    pub propagation: i32,
    pub dry_run: i32,
    pub cancel: *mut trainer_cancel_token,
    pub timeout_ms: i64,
}

pub const TRAINER_CLUSTER_DELETE_OPTIONS_VERSION: u32 = 1;

impl trainer_cluster_delete_options {
    /// `TRAINER_CLUSTER_DELETE_OPTIONS_INIT`.
    pub const INIT: trainer_cluster_delete_options = trainer_cluster_delete_options {
        version: TRAINER_CLUSTER_DELETE_OPTIONS_VERSION,
        propagation: TRAINER_PROPAGATION_BACKGROUND,
        dry_run: 0,
        cancel: core::ptr::null_mut(),
        timeout_ms: 0,
    };
}

unsafe extern "C" {
    pub fn trainer_cancel_token_new(
        out: *mut *mut trainer_cancel_token,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_cancel_token_cancel(token: *mut trainer_cancel_token);
    pub fn trainer_cancel_token_cancelled(token: *const trainer_cancel_token) -> i32;
    pub fn trainer_cancel_token_free(token: *mut trainer_cancel_token);

    pub fn trainer_client_options_init(
        opts: *mut trainer_client_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_client_new(
        opts: *const trainer_client_options,
        out: *mut *mut trainer_client,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_client_free(client: *mut trainer_client);
    pub fn trainer_client_namespace(client: *const trainer_client) -> *const c_char;
    pub fn trainer_client_server(client: *const trainer_client) -> *const c_char;

    pub fn trainer_cluster_apply_options_init(
        opts: *mut trainer_cluster_apply_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_cluster_apply(
        client: *mut trainer_client,
        data: *const c_char,
        len: usize,
        opts: *const trainer_cluster_apply_options,
        out: *mut *mut trainer_cluster_apply_result,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_cluster_apply_result_free(result: *mut trainer_cluster_apply_result);
    pub fn trainer_cluster_apply_result_count(result: *const trainer_cluster_apply_result)
        -> usize;
    pub fn trainer_cluster_apply_result_ref(
        result: *const trainer_cluster_apply_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_cluster_apply_result_json(
        result: *const trainer_cluster_apply_result,
        i: usize,
    ) -> *const c_char;

    pub fn trainer_cluster_get_options_init(
        opts: *mut trainer_cluster_get_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_cluster_get(
        client: *mut trainer_client,
        kind: *const c_char,
        namespace_name: *const c_char,
        name: *const c_char,
        opts: *const trainer_cluster_get_options,
        fmt: trainer_format,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_cluster_list(
        client: *mut trainer_client,
        kind: *const c_char,
        namespace_name: *const c_char,
        opts: *const trainer_cluster_get_options,
        fmt: trainer_format,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;

    pub fn trainer_cluster_watch_options_init(
        opts: *mut trainer_cluster_watch_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_cluster_watch(
        client: *mut trainer_client,
        namespace_name: *const c_char,
        opts: *const trainer_cluster_watch_options,
        f: trainer_cluster_watch_fn,
        user_data: *mut c_void,
        err: *mut *mut trainer_error,
    ) -> trainer_status;

    pub fn trainer_cluster_wait_options_init(
        opts: *mut trainer_cluster_wait_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_cluster_wait(
        client: *mut trainer_client,
        namespace_name: *const c_char,
        name: *const c_char,
        condition: *const c_char,
        wait_timeout_ms: i64,
        opts: *const trainer_cluster_wait_options,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;

    pub fn trainer_cluster_logs_options_init(
        opts: *mut trainer_cluster_logs_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_cluster_logs(
        client: *mut trainer_client,
        namespace_name: *const c_char,
        name: *const c_char,
        opts: *const trainer_cluster_logs_options,
        f: trainer_cluster_logs_fn,
        user_data: *mut c_void,
        err: *mut *mut trainer_error,
    ) -> trainer_status;

    pub fn trainer_cluster_delete_options_init(
        opts: *mut trainer_cluster_delete_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_cluster_delete(
        client: *mut trainer_client,
        kind: *const c_char,
        namespace_name: *const c_char,
        name: *const c_char,
        opts: *const trainer_cluster_delete_options,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
}

// ---- Collectives (trainer/collectives.h) --------------------------------------------------------

pub const TRAINER_DTYPE_INT8: c_int = 0;
pub const TRAINER_DTYPE_UINT8: c_int = 1;
pub const TRAINER_DTYPE_INT32: c_int = 2;
pub const TRAINER_DTYPE_INT64: c_int = 3;
/// IEEE binary16.
pub const TRAINER_DTYPE_FLOAT16: c_int = 4;
pub const TRAINER_DTYPE_BFLOAT16: c_int = 5;
pub const TRAINER_DTYPE_FLOAT32: c_int = 6;
pub const TRAINER_DTYPE_FLOAT64: c_int = 7;

/// Reductions. AVG = sum / size; integer AVG truncates toward zero.
pub const TRAINER_REDUCE_SUM: c_int = 0;
pub const TRAINER_REDUCE_PROD: c_int = 1;
pub const TRAINER_REDUCE_MIN: c_int = 2;
pub const TRAINER_REDUCE_MAX: c_int = 3;
pub const TRAINER_REDUCE_AVG: c_int = 4;

/// Backends. AUTO: MPI for host memory, NCCL for CUDA memory.
pub const TRAINER_BACKEND_AUTO: i32 = -1;
pub const TRAINER_BACKEND_MPI: i32 = 0;
pub const TRAINER_BACKEND_NCCL: i32 = 1;

/// Buffer memory a communicator accepts.
pub const TRAINER_MEMORY_HOST: i32 = 0;
pub const TRAINER_MEMORY_CUDA: i32 = 1;

/// Options of the creating calls (NULL means `INIT`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_comm_options {
    pub version: u32,
    pub memory: i32,
    pub backend: i32,
    pub timeout_ms: i64,
    pub device: i32,
    pub cuda_stream: *mut c_void,
}

pub const TRAINER_COMM_OPTIONS_VERSION: u32 = 1;

impl trainer_comm_options {
    /// `TRAINER_COMM_OPTIONS_INIT`.
    pub const INIT: trainer_comm_options = trainer_comm_options {
        version: TRAINER_COMM_OPTIONS_VERSION,
        memory: TRAINER_MEMORY_HOST,
        backend: TRAINER_BACKEND_AUTO,
        timeout_ms: 0,
        device: -1,
        cuda_stream: core::ptr::null_mut(),
    };
}

opaque! {
    /// A communicator. Movable: any thread, one at a time.
    trainer_comm;
}

unsafe extern "C" {
    pub fn trainer_comm_init_from_env(
        options: *const trainer_comm_options,
        out: *mut *mut trainer_comm,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_create_mpi(
        options: *const trainer_comm_options,
        out: *mut *mut trainer_comm,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_create_nccl(
        host: *const c_char,
        host_len: usize,
        port: u16,
        rank: c_int,
        size: c_int,
        local_rank: c_int,
        local_size: c_int,
        options: *const trainer_comm_options,
        out: *mut *mut trainer_comm,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_free(comm: *mut trainer_comm);
    pub fn trainer_comm_rank(comm: *const trainer_comm) -> c_int;
    pub fn trainer_comm_size(comm: *const trainer_comm) -> c_int;
    pub fn trainer_comm_local_rank(comm: *const trainer_comm) -> c_int;
    pub fn trainer_comm_local_size(comm: *const trainer_comm) -> c_int;
    pub fn trainer_comm_backend_name(comm: *const trainer_comm) -> *const c_char;
    pub fn trainer_comm_all_reduce(
        comm: *mut trainer_comm,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        dtype: c_int,
        op: c_int,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_broadcast(
        comm: *mut trainer_comm,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        dtype: c_int,
        root: c_int,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_all_gather(
        comm: *mut trainer_comm,
        send: *const c_void,
        recv: *mut c_void,
        send_count: usize,
        dtype: c_int,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_reduce_scatter(
        comm: *mut trainer_comm,
        send: *const c_void,
        recv: *mut c_void,
        recv_count: usize,
        dtype: c_int,
        op: c_int,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_barrier(
        comm: *mut trainer_comm,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_send(
        comm: *mut trainer_comm,
        buf: *const c_void,
        count: usize,
        dtype: c_int,
        peer: c_int,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_recv(
        comm: *mut trainer_comm,
        buf: *mut c_void,
        count: usize,
        dtype: c_int,
        peer: c_int,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_comm_synchronize(
        comm: *mut trainer_comm,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
}

// ---- Local execution (trainer/local.h) ----------------------------------------------------------

/// Namespaces when permitted, else HOST with a warning.
pub const TRAINER_ISOLATION_AUTO: i32 = 0;
/// Own mount/UTS/PID namespaces; else TRAINER_E_UNSUPPORTED.
pub const TRAINER_ISOLATION_NAMESPACES: i32 = 1;
/// No namespaces: hostnames rewritten to 127.0.0.1.
pub const TRAINER_ISOLATION_HOST: i32 = 2;

/// Phases of a run; SUSPENDED, COMPLETE and FAILED are terminal.
pub const TRAINER_RUN_PENDING: i32 = 0;
pub const TRAINER_RUN_RUNNING: i32 = 1;
pub const TRAINER_RUN_SUSPENDED: i32 = 2;
pub const TRAINER_RUN_COMPLETE: i32 = 3;
pub const TRAINER_RUN_FAILED: i32 = 4;

/// Receives every complete line a pod writes (`text` is `len` bytes, not NUL-terminated);
/// called from the run's supervisor thread, never concurrently with itself. Anything but
/// TRAINER_OK cancels the run.
pub type trainer_run_log_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        prefix: *const c_char,
        pod: *const c_char,
        is_stderr: i32,
        text: *const c_char,
        len: usize,
    ) -> trainer_status,
>;

/// Options of `trainer_run_start`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_run_options {
    pub version: u32,
    pub run_dir: *const c_char,
    pub isolation: i32,
    pub pod_helper: *const c_char,
    pub on_log: trainer_run_log_fn,
    pub log_user_data: *mut c_void,
    /// Called once with `log_user_data` when the run is freed, or at once when
    /// `trainer_run_start` fails after reading the options.
    pub log_user_data_free: trainer_user_data_free_fn,
    /// Struct version 2: the progress server the objects were rendered with (borrowed for the
    /// call; the run keeps its own reference).
    pub progress_server: *const trainer_progress_server,
}

/// Struct versions: 1 ends with `log_user_data_free`; 2 adds `progress_server`.
pub const TRAINER_RUN_OPTIONS_VERSION: u32 = 2;

impl trainer_run_options {
    /// `TRAINER_RUN_OPTIONS_INIT`.
    pub const INIT: trainer_run_options = trainer_run_options {
        version: TRAINER_RUN_OPTIONS_VERSION,
        run_dir: core::ptr::null(),
        isolation: TRAINER_ISOLATION_AUTO,
        pod_helper: core::ptr::null(),
        on_log: None,
        log_user_data: core::ptr::null_mut(),
        log_user_data_free: None,
        progress_server: core::ptr::null(),
    };
}

opaque! {
    /// A running (or finished) local execution. Shareable; `trainer_run_free` comes last.
    trainer_run;
    /// The TrainJobStatus progress endpoint of local runs. Shareable; runs hold it.
    trainer_progress_server;
}

unsafe extern "C" {
    pub fn trainer_progress_server_start(
        bind_address: *const c_char,
        port: u16,
        out: *mut *mut trainer_progress_server,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_progress_server_port(server: *const trainer_progress_server) -> u16;
    pub fn trainer_progress_server_ca_cert(server: *const trainer_progress_server)
        -> *const c_char;
    pub fn trainer_progress_server_free(server: *mut trainer_progress_server);
    pub fn trainer_run_start(
        objects: *const c_char,
        len: usize,
        options: *const trainer_run_options,
        out: *mut *mut trainer_run,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_run_wait(
        run: *mut trainer_run,
        timeout_ms: i64,
        phase: *mut i32,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_run_phase(run: *const trainer_run) -> i32;
    pub fn trainer_run_status(
        run: *const trainer_run,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_run_cancel(run: *mut trainer_run);
    pub fn trainer_run_free(run: *mut trainer_run);
    pub fn trainer_run_read_status(
        run_dir: *const c_char,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_run_phase_name(phase: i32) -> *const c_char;
}

// ---- Controller (trainer/controller.h) ----------------------------------------------------------

/// Receives the outcome of one reconcile (`result` is `len` bytes of JSON, NUL-terminated too;
/// `error` is NULL unless it failed). Called from worker threads, possibly several at once.
pub type trainer_controller_reconcile_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        result: *const c_char,
        len: usize,
        error: *const trainer_error,
    ) -> trainer_status,
>;

/// Options of `trainer_controller_new`; NULL/""/0 mean the library default.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_controller_options {
    pub version: u32,
    pub namespace_name: *const c_char,
    pub workers: i32,
    pub feature_gates: *const c_char,
    pub no_events: i32,
    pub once: i32,
    pub resync_period_ms: i64,
    pub shutdown_timeout_ms: i64,
    pub leader_elect: i32,
    pub leader_election_namespace: *const c_char,
    pub leader_election_id: *const c_char,
    pub leader_election_identity: *const c_char,
    pub lease_duration_ms: i64,
    pub renew_deadline_ms: i64,
    pub retry_period_ms: i64,
    pub on_reconcile: trainer_controller_reconcile_fn,
    pub reconcile_user_data: *mut c_void,
    pub reconcile_user_data_free: trainer_user_data_free_fn,
    /// Struct version 2: the plugins every reconcile renders with (the controller keeps its
    /// own reference).
    pub framework: *const trainer_framework,
    /// Struct version 3: the HTTPS endpoints and their certificate (see controller.h).
    pub operator_namespace: *const c_char,
    pub webhook_service_name: *const c_char,
    pub webhook_secret_name: *const c_char,
    pub webhook_cert_dir: *const c_char,
    /// Comma-separated extra subject alternative names.
    pub webhook_cert_hosts: *const c_char,
    pub webhook_bind_address: *const c_char,
    /// 0: no webhooks served.
    pub webhook_port: i32,
    pub status_server_bind_address: *const c_char,
    /// 0: 10443; -1: not served.
    pub status_server_port: i32,
}

/// Struct versions: 1 ends with `reconcile_user_data_free`; 2 adds `framework`; 3 the serving
/// fields.
pub const TRAINER_CONTROLLER_OPTIONS_VERSION: u32 = 3;

impl trainer_controller_options {
    /// `TRAINER_CONTROLLER_OPTIONS_INIT`.
    pub const INIT: trainer_controller_options = trainer_controller_options {
        version: TRAINER_CONTROLLER_OPTIONS_VERSION,
        namespace_name: core::ptr::null(),
        workers: 0,
        feature_gates: core::ptr::null(),
        no_events: 0,
        once: 0,
        resync_period_ms: 0,
        shutdown_timeout_ms: 0,
        leader_elect: 0,
        leader_election_namespace: core::ptr::null(),
        leader_election_id: core::ptr::null(),
        leader_election_identity: core::ptr::null(),
        lease_duration_ms: 0,
        renew_deadline_ms: 0,
        retry_period_ms: 0,
        on_reconcile: None,
        reconcile_user_data: core::ptr::null_mut(),
        reconcile_user_data_free: None,
        framework: core::ptr::null(),
        operator_namespace: core::ptr::null(),
        webhook_service_name: core::ptr::null(),
        webhook_secret_name: core::ptr::null(),
        webhook_cert_dir: core::ptr::null(),
        webhook_cert_hosts: core::ptr::null(),
        webhook_bind_address: core::ptr::null(),
        webhook_port: 0,
        status_server_bind_address: core::ptr::null(),
        status_server_port: 0,
    };
}

/// Options of `trainer_controller_reconcile`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_controller_reconcile_options {
    pub version: u32,
    pub feature_gates: *const c_char,
    pub no_events: i32,
    pub cancel: *mut trainer_cancel_token,
    pub framework: *const trainer_framework,
}

pub const TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION: u32 = 2;

impl trainer_controller_reconcile_options {
    /// `TRAINER_CONTROLLER_RECONCILE_OPTIONS_INIT`.
    pub const INIT: trainer_controller_reconcile_options = trainer_controller_reconcile_options {
        version: TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION,
        feature_gates: core::ptr::null(),
        no_events: 0,
        cancel: core::ptr::null_mut(),
        framework: core::ptr::null(),
    };
}

opaque! {
    /// The TrainJob controller's loop over one client. `run` and `stop` are meant for
    /// different threads; `free` comes after `run` returned.
    trainer_controller;
}

unsafe extern "C" {
    pub fn trainer_controller_options_init(
        opts: *mut trainer_controller_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_controller_new(
        client: *mut trainer_client,
        opts: *const trainer_controller_options,
        out: *mut *mut trainer_controller,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_controller_run(
        ctl: *mut trainer_controller,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_controller_stop(ctl: *mut trainer_controller);
    pub fn trainer_controller_metrics(
        ctl: *const trainer_controller,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_controller_free(ctl: *mut trainer_controller);
    pub fn trainer_controller_reconcile_options_init(
        opts: *mut trainer_controller_reconcile_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_controller_reconcile(
        client: *mut trainer_client,
        namespace_name: *const c_char,
        name: *const c_char,
        opts: *const trainer_controller_reconcile_options,
        out: *mut trainer_buffer,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
}

// ---- Plugins (trainer/plugin.h) -----------------------------------------------------------------

pub const TRAINER_PLUGIN_ABI_VERSION_MAJOR: u32 = 1;
pub const TRAINER_PLUGIN_ABI_VERSION_MINOR: u32 = 0;
/// `(major << 16) | minor`.
pub const TRAINER_PLUGIN_ABI_VERSION: u32 =
    (TRAINER_PLUGIN_ABI_VERSION_MAJOR << 16) | TRAINER_PLUGIN_ABI_VERSION_MINOR;
/// The symbol a plugin library exports (`TRAINER_PLUGIN_ENTRY_SYMBOL`).
pub const TRAINER_PLUGIN_ENTRY_SYMBOL: &str = "trainer_plugin_entry";

opaque! {
    /// The request document of one callback; borrowed for the callback, its thread only.
    trainer_plugin_request;
    /// Where a callback puts its reply; borrowed for the callback.
    trainer_plugin_reply;
    /// A plugin. Shareable once created; owned by the caller until added to a framework.
    trainer_plugin;
    /// The plugins of one pipeline. Movable while plugins are added, then shareable.
    trainer_framework;
}

/// The request/reply functions as a table, handed to a loaded plugin's entry point so that a
/// plugin library need not link libtrainer. Static storage.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_plugin_host {
    pub abi_version: u32,
    pub request_json: Option<
        unsafe extern "C" fn(
            request: *const trainer_plugin_request,
            len: *mut usize,
        ) -> *const c_char,
    >,
    pub request_get: Option<
        unsafe extern "C" fn(
            request: *const trainer_plugin_request,
            pointer: *const c_char,
            len: *mut usize,
        ) -> *const c_char,
    >,
    pub request_get_string: Option<
        unsafe extern "C" fn(
            request: *const trainer_plugin_request,
            pointer: *const c_char,
        ) -> *const c_char,
    >,
    pub request_get_int: Option<
        unsafe extern "C" fn(
            request: *const trainer_plugin_request,
            pointer: *const c_char,
            out: *mut i64,
        ) -> i32,
    >,
    pub reply_set: Option<
        unsafe extern "C" fn(
            reply: *mut trainer_plugin_reply,
            json: *const c_char,
            len: usize,
        ) -> trainer_status,
    >,
    pub reply_set_error:
        Option<unsafe extern "C" fn(reply: *mut trainer_plugin_reply, message: *const c_char)>,
}

/// One extension point's callback: TRAINER_OK, or a failure status with a message set through
/// `reply_set_error`. Called from any thread, concurrently, with the same `user_data`.
pub type trainer_plugin_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request: *const trainer_plugin_request,
        reply: *mut trainer_plugin_reply,
    ) -> trainer_status,
>;

/// What a plugin is. Every callback may be `None` (the plugin takes no part in that phase).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_plugin_descriptor {
    pub abi_version: u32,
    pub name: *const c_char,
    pub user_data: *mut c_void,
    pub user_data_free: trainer_user_data_free_fn,
    pub validate: trainer_plugin_fn,
    pub enforce_ml_policy: trainer_plugin_fn,
    pub enforce_pod_group_policy: trainer_plugin_fn,
    pub enforce_pod_spec: trainer_plugin_fn,
    pub pre_build_sync: trainer_plugin_fn,
    pub build: trainer_plugin_fn,
    pub status: trainer_plugin_fn,
}

impl trainer_plugin_descriptor {
    /// A descriptor of this ABI version with no name, user data or callbacks.
    pub const INIT: trainer_plugin_descriptor = trainer_plugin_descriptor {
        abi_version: TRAINER_PLUGIN_ABI_VERSION,
        name: core::ptr::null(),
        user_data: core::ptr::null_mut(),
        user_data_free: None,
        validate: None,
        enforce_ml_policy: None,
        enforce_pod_group_policy: None,
        enforce_pod_spec: None,
        pre_build_sync: None,
        build: None,
        status: None,
    };
}

/// `trainer_plugin_entry` of a plugin library: called once at load with the host table; returns
/// the descriptor (borrowed, copied by the library) or NULL to refuse.
pub type trainer_plugin_entry_fn = Option<
    unsafe extern "C" fn(host: *const trainer_plugin_host) -> *const trainer_plugin_descriptor,
>;

unsafe extern "C" {
    pub fn trainer_plugin_request_json(
        request: *const trainer_plugin_request,
        len: *mut usize,
    ) -> *const c_char;
    pub fn trainer_plugin_request_get(
        request: *const trainer_plugin_request,
        pointer: *const c_char,
        len: *mut usize,
    ) -> *const c_char;
    pub fn trainer_plugin_request_get_string(
        request: *const trainer_plugin_request,
        pointer: *const c_char,
    ) -> *const c_char;
    pub fn trainer_plugin_request_get_int(
        request: *const trainer_plugin_request,
        pointer: *const c_char,
        out: *mut i64,
    ) -> i32;
    pub fn trainer_plugin_reply_set(
        reply: *mut trainer_plugin_reply,
        json: *const c_char,
        len: usize,
    ) -> trainer_status;
    pub fn trainer_plugin_reply_set_error(reply: *mut trainer_plugin_reply, message: *const c_char);
    pub fn trainer_plugin_host_table() -> *const trainer_plugin_host;

    pub fn trainer_plugin_new(
        desc: *const trainer_plugin_descriptor,
        out: *mut *mut trainer_plugin,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_plugin_load(
        path: *const c_char,
        out: *mut *mut trainer_plugin,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_plugin_name(plugin: *const trainer_plugin) -> *const c_char;
    pub fn trainer_plugin_free(plugin: *mut trainer_plugin);

    pub fn trainer_framework_new(
        feature_gates: *const c_char,
        out: *mut *mut trainer_framework,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_framework_add(
        framework: *mut trainer_framework,
        plugin: *mut trainer_plugin,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_framework_plugin_count(framework: *const trainer_framework) -> usize;
    pub fn trainer_framework_plugin_name(
        framework: *const trainer_framework,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_framework_free(framework: *mut trainer_framework);
    pub fn trainer_document_validate_with(
        doc: *const trainer_document,
        context: *const trainer_document_list,
        framework: *const trainer_framework,
        out: *mut *mut trainer_validation,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
}

// ---- Converter (trainer/convert.h) ------------------------------------------------------------

/// Options of `trainer_convert`; a NULL pointer means the library default. Every string is
/// borrowed for the call and NUL-terminated. Fields are only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct trainer_convert_options {
    pub version: u32,
    pub namespace_name: *const c_char,
    pub strict: i32,
    pub format: trainer_format,
    pub parse: *const trainer_parse_options,
}

/// Struct versions: 1 ends with `parse`.
pub const TRAINER_CONVERT_OPTIONS_VERSION: u32 = 1;

impl trainer_convert_options {
    /// `TRAINER_CONVERT_OPTIONS_INIT`.
    pub const INIT: trainer_convert_options = trainer_convert_options {
        version: TRAINER_CONVERT_OPTIONS_VERSION,
        namespace_name: core::ptr::null(),
        strict: 0,
        format: TRAINER_FORMAT_YAML,
        parse: core::ptr::null(),
    };
}

opaque! {
    /// The objects and warnings of one conversion. Shareable; owned by the caller.
    trainer_convert_result;
}

unsafe extern "C" {
    pub fn trainer_convert_options_init(
        opts: *mut trainer_convert_options,
        version: u32,
    ) -> trainer_status;
    pub fn trainer_convert(
        data: *const c_char,
        len: usize,
        opts: *const trainer_convert_options,
        out: *mut *mut trainer_convert_result,
        err: *mut *mut trainer_error,
    ) -> trainer_status;
    pub fn trainer_convert_result_free(result: *mut trainer_convert_result);
    pub fn trainer_convert_result_text(result: *const trainer_convert_result) -> *const c_char;
    pub fn trainer_convert_result_count(result: *const trainer_convert_result) -> usize;
    pub fn trainer_convert_result_json(
        result: *const trainer_convert_result,
        i: usize,
    ) -> *const c_char;
    pub fn trainer_convert_result_warning_count(result: *const trainer_convert_result) -> usize;
    pub fn trainer_convert_result_warning(
        result: *const trainer_convert_result,
        i: usize,
    ) -> *const c_char;
}
