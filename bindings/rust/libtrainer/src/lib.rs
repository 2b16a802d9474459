// SPDX-License-Identifier: Apache-2.0
//! Safe Rust wrapper of libtrainer, the embeddable core of Kubeflow Trainer v2.
//!
//! Every fallible function returns [`Result<T>`]; an [`Error`] carries the library's status
//! [`Code`], message and Kubernetes-style [`FieldError`]s. Inputs are borrowed `&str`/`&[u8]`;
//! outputs are owned Rust values, so nothing returned here borrows library memory except
//! through a handle that `Drop` frees.
//!
//! Every section of the C ABI has a safe face here: documents ([`DocumentList`]), [`render`],
//! local runs ([`Run`]), collectives ([`Communicator`]), the cluster ([`Client`]), the
//! controller ([`Controller`], [`reconcile`]) and plugins ([`Plugin`], [`Framework`],
//! [`export_plugin!`]).
//!
//! Link against libtrainer.so by setting `TRAINER_LIB_DIR` when building (see libtrainer-sys).

use core::ffi::{c_char, CStr};
use std::fmt;

pub use libtrainer_sys as sys;

mod cluster;
mod collectives;
mod controller;
mod convert;
mod document;
mod error;
mod local;
mod plugin;
mod render;
pub use cluster::{
    AppliedObject, ApplyOptions, CancelToken, Client, ClientOptions, DeleteOptions, GetOptions,
    LogsOptions, Propagation, WaitOptions, WarningFn, WatchOptions,
};
pub use collectives::{Backend, Bf16, CommOptions, Communicator, Element, Memory, ReduceOp, F16};
pub use controller::{
    reconcile, Controller, ControllerOptions, ReconcileFn, ReconcileOptions, ServingOptions,
};
pub use convert::{convert, Conversion, ConvertOptions};
pub use document::{Document, DocumentList, DocumentMut, Format, ParseOptions};
pub use error::{Code, Error, FieldError, Result};
pub use local::{
    read_run_status, Isolation, LogFn, LogLine, Phase, ProgressServer, Run, RunOptions,
};
pub use plugin::{
    json_quote, plugin_entry, Framework, Phases, Plugin, PluginError, PluginHandle, PluginResult,
    Request, FRAMEWORK_LABEL_POINTER,
};
pub use render::{render, RenderOptions, RenderResult, RenderedObject};

/// Version of the loaded library ("0.1.0").
pub fn version() -> &'static str {
    // SAFETY: static storage, never NULL, ASCII.
    unsafe { CStr::from_ptr(sys::trainer_version_string()) }.to_str().unwrap_or("")
}

/// Version of the loaded library as `major * 10000 + minor * 100 + patch`.
pub fn version_number() -> u32 {
    // SAFETY: no arguments, thread-safe.
    unsafe { sys::trainer_version_number() }
}

/// Checks that the loaded library can serve these declarations: same major and minor (0.x minor
/// releases may break the ABI) and at least the patch level the declarations were written for.
pub fn check_version() -> Result<()> {
    check_versions(sys::TRAINER_VERSION_NUMBER, version_number())
}

fn check_versions(header: u32, lib: u32) -> Result<()> {
    if header / 100 != lib / 100 || lib < header {
        return Err(Error::new(
            Code::UNSUPPORTED,
            format!(
                "libtrainer bindings for {}.{}.{} cannot use library {}.{}.{}",
                header / 10000,
                header / 100 % 100,
                header % 100,
                lib / 10000,
                lib / 100 % 100,
                lib % 100
            ),
        ));
    }
    Ok(())
}

/// Set of optional features compiled into the library (`trainer_features()`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Features(pub u32);

impl Features {
    pub const MPI: Features = Features(sys::TRAINER_FEATURE_MPI);
    pub const NCCL: Features = Features(sys::TRAINER_FEATURE_NCCL);

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }
}

impl fmt::Debug for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Vec::new();
        if self.contains(Self::MPI) {
            names.push("mpi".to_string());
        }
        if self.contains(Self::NCCL) {
            names.push("nccl".to_string());
        }
        let rest = self.0 & !(Self::MPI.0 | Self::NCCL.0);
        if rest != 0 {
            names.push(format!("{rest:#x}"));
        }
        if names.is_empty() {
            f.write_str("Features(none)")
        } else {
            write!(f, "Features({})", names.join("|"))
        }
    }
}

/// Features compiled into the loaded library.
pub fn features() -> Features {
    // SAFETY: no arguments, thread-safe.
    Features(unsafe { sys::trainer_features() })
}

/// Copies a borrowed, possibly NULL C string.
pub(crate) fn opt_string(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the library returns NUL-terminated strings valid until the owner is freed;
        // the caller holds the owner for the duration of this call.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// An owned `trainer_buffer`, freed on drop.
pub(crate) struct Buffer(pub(crate) sys::trainer_buffer);

impl Buffer {
    pub(crate) fn new() -> Self {
        Buffer(sys::trainer_buffer::INIT)
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        if self.0.data.is_null() || self.0.len == 0 {
            &[]
        } else {
            // SAFETY: the library wrote `len` bytes at `data`; they live until drop.
            unsafe { std::slice::from_raw_parts(self.0.data.cast::<u8>(), self.0.len) }
        }
    }

    pub(crate) fn into_string(self) -> Result<String> {
        String::from_utf8(self.as_bytes().to_vec()).map_err(|e| {
            Error::new(Code::INTERNAL, format!("libtrainer returned invalid UTF-8: {e}"))
        })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the buffer is either INIT or filled by the library; free resets it.
        unsafe { sys::trainer_buffer_free(&mut self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_checks() {
        assert!(check_versions(100, 100).is_ok());
        assert!(check_versions(100, 101).is_ok());
        assert!(check_versions(101, 100).is_err());
        assert!(check_versions(100, 200).is_err());
        assert!(check_versions(10100, 100).is_err());
    }

    #[test]
    fn features_debug() {
        assert_eq!(format!("{:?}", Features(0)), "Features(none)");
        assert_eq!(format!("{:?}", Features(0b11 | 0x10)), "Features(mpi|nccl|0x10)");
    }

    #[test]
    fn empty_buffer_is_empty_string() {
        assert_eq!(Buffer::new().into_string().unwrap(), "");
    }
}
