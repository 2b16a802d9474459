// SPDX-License-Identifier: Apache-2.0
//! Errors: an owned copy of a `trainer_error`.

use crate::{opt_string, sys};
use core::ffi::CStr;
use std::fmt;

/// A libtrainer status code. Codes are append-only, so this is an open set: a newer library may
/// return a value without a constant here (its [`Code::name`] is then `"TRAINER_E_?"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code(pub i32);

impl Code {
    pub const OK: Code = Code(sys::TRAINER_OK);
    pub const INVALID_ARGUMENT: Code = Code(sys::TRAINER_E_INVALID_ARGUMENT);
    pub const PARSE: Code = Code(sys::TRAINER_E_PARSE);
    pub const INVALID: Code = Code(sys::TRAINER_E_INVALID);
    pub const LIMIT: Code = Code(sys::TRAINER_E_LIMIT);
    pub const NOT_FOUND: Code = Code(sys::TRAINER_E_NOT_FOUND);
    pub const UNSUPPORTED: Code = Code(sys::TRAINER_E_UNSUPPORTED);
    pub const NOMEM: Code = Code(sys::TRAINER_E_NOMEM);
    pub const INTERNAL: Code = Code(sys::TRAINER_E_INTERNAL);
    pub const USER: Code = Code(sys::TRAINER_E_USER);
    pub const IO: Code = Code(sys::TRAINER_E_IO);
    pub const TIMEOUT: Code = Code(sys::TRAINER_E_TIMEOUT);
    pub const CANCELLED: Code = Code(sys::TRAINER_E_CANCELLED);
    pub const UNAUTHORIZED: Code = Code(sys::TRAINER_E_UNAUTHORIZED);
    pub const FORBIDDEN: Code = Code(sys::TRAINER_E_FORBIDDEN);
    pub const CONFLICT: Code = Code(sys::TRAINER_E_CONFLICT);
    pub const SERVER: Code = Code(sys::TRAINER_E_SERVER);
    pub const FAILED: Code = Code(sys::TRAINER_E_FAILED);

    /// The C constant name, as the library spells it ("TRAINER_E_PARSE").
    pub fn name(self) -> &'static str {
        // SAFETY: static storage, never NULL.
        unsafe { CStr::from_ptr(sys::trainer_status_name(self.0)) }
            .to_str()
            .unwrap_or("TRAINER_E_?")
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One Kubernetes-style field violation (k8s.io/apimachinery `field.Error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Path of the offending field ("spec.trainer.numNodes").
    pub path: String,
    /// Kubernetes type name ("FieldValueInvalid", "FieldValueRequired", ...).
    pub field_type: String,
    /// Offending value as JSON text, when the violation carries one.
    pub value: Option<String>,
    /// Explanation ("must be greater than or equal to 1").
    pub detail: String,
    /// The library's full rendering (`<path>: Invalid value: <value>: <detail>`).
    pub text: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The error of every fallible function of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
    /// Field violations of `INVALID` and `PARSE` errors.
    pub fields: Vec<FieldError>,
    /// Admission warnings that came with a rejected validation (kubectl prints them too).
    pub warnings: Vec<String>,
    /// HTTP status code of an error a Kubernetes API server answered (404, 422, ...); 0 for
    /// every other error.
    pub http_status: i32,
    /// The server's `Status.reason` (`NotFound`, `Invalid`, ...); empty when it sent none.
    pub reason: String,
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            fields: Vec::new(),
            warnings: Vec::new(),
            http_status: 0,
            reason: String::new(),
        }
    }

    /// Converts the outcome of a C call: `Ok(())` for TRAINER_OK, else the copied error. Frees
    /// `err` in every case.
    ///
    /// # Safety
    /// `err` must be NULL or an error object returned by the library and not yet freed.
    pub(crate) unsafe fn check(
        status: sys::trainer_status,
        err: *mut sys::trainer_error,
    ) -> Result<()> {
        struct Guard(*mut sys::trainer_error);
        impl Drop for Guard {
            fn drop(&mut self) {
                // SAFETY: NULL or an owned error; freed exactly once.
                unsafe { sys::trainer_error_free(self.0) }
            }
        }
        let guard = Guard(err);
        if status == sys::TRAINER_OK {
            return Ok(());
        }
        if guard.0.is_null() {
            return Err(Error::new(Code(status), String::new()));
        }
        // SAFETY: `guard.0` is live until `guard` drops.
        Err(unsafe { Self::copy(guard.0) }.expect("non-NULL error"))
    }

    /// An owned copy of a borrowed error; `None` for NULL.
    ///
    /// # Safety
    /// `e` must be NULL or a live error object.
    pub(crate) unsafe fn copy(e: *const sys::trainer_error) -> Option<Error> {
        if e.is_null() {
            return None;
        }
        // SAFETY (caller): `e` is live; borrowed strings are copied.
        unsafe {
            let n = sys::trainer_error_field_count(e);
            let fields = (0..n)
                .map(|i| FieldError {
                    path: opt_string(sys::trainer_error_field_path(e, i)).unwrap_or_default(),
                    field_type: opt_string(sys::trainer_error_field_type(e, i)).unwrap_or_default(),
                    value: opt_string(sys::trainer_error_field_value(e, i)),
                    detail: opt_string(sys::trainer_error_field_detail(e, i)).unwrap_or_default(),
                    text: opt_string(sys::trainer_error_field_string(e, i)).unwrap_or_default(),
                })
                .collect();
            Some(Error {
                code: Code(sys::trainer_error_code(e)),
                message: opt_string(sys::trainer_error_message(e)).unwrap_or_default(),
                fields,
                warnings: Vec::new(),
                http_status: sys::trainer_error_http_status(e),
                reason: opt_string(sys::trainer_error_reason(e)).unwrap_or_default(),
            })
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "libtrainer: {}", self.code)
        } else {
            write!(f, "libtrainer: {}: {}", self.code, self.message)
        }
    }
}

impl std::error::Error for Error {}
