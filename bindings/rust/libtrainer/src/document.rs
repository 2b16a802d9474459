// SPDX-License-Identifier: Apache-2.0
//! Documents: parse, default, validate, encode.

use crate::{opt_string, sys, Buffer, Code, Error, Framework, Result};
use core::ffi::{c_char, CStr};
use core::marker::PhantomData;
use core::ptr::{self, NonNull};

/// Limits applied when parsing untrusted text; 0 means the library default (in brackets). A
/// limit exceeded is an error with [`Code::LIMIT`] whose message names the limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Whole input text [4 MiB].
    pub max_document_bytes: usize,
    /// Nesting of maps/sequences \[100\].
    pub max_depth: usize,
    /// Documents in one YAML stream \[1000\].
    pub max_documents: usize,
    /// Nodes after alias expansion, whole stream \[1000000\].
    pub max_nodes: usize,
    /// Alias (`*name`) references in the stream \[10000\].
    pub max_aliases: usize,
    /// Bytes of scalar text that YAML anchors and aliases copy, whole stream [4 MiB]: an
    /// anchored node is charged once when it is defined and once more for every alias of it.
    pub max_alias_bytes: usize,
}

impl ParseOptions {
    /// The C struct of the current version with these limits.
    pub(crate) fn raw(&self) -> sys::trainer_parse_options {
        sys::trainer_parse_options {
            max_document_bytes: self.max_document_bytes,
            max_depth: self.max_depth,
            max_documents: self.max_documents,
            max_nodes: self.max_nodes,
            max_aliases: self.max_aliases,
            max_alias_bytes: self.max_alias_bytes,
            ..sys::trainer_parse_options::INIT
        }
    }
}

/// Output format of [`Document::encode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Compact JSON, no trailing newline.
    Json,
    /// One YAML document (block style), ending with a newline.
    Yaml,
    /// JSON indented by two spaces.
    JsonPretty,
}

impl Format {
    pub(crate) fn raw(self) -> sys::trainer_format {
        match self {
            Format::Json => sys::TRAINER_FORMAT_JSON,
            Format::Yaml => sys::TRAINER_FORMAT_YAML,
            Format::JsonPretty => sys::TRAINER_FORMAT_JSON_PRETTY,
        }
    }
}

/// The documents of one YAML stream or JSON text, in input order.
///
/// The C handle is *movable*: this type is `Send` but not `Sync`. Reading documents borrows the
/// list; applying defaults borrows it mutably, so no reference can observe a document change.
pub struct DocumentList {
    ptr: NonNull<sys::trainer_document_list>,
}

// SAFETY: trainer.h classes the list (with its documents) as movable: any thread, one at a time.
unsafe impl Send for DocumentList {}

impl DocumentList {
    /// Parses a YAML stream (`---`-separated) or JSON text. Empty and null documents are skipped;
    /// a `v1` `List` contributes its items. Typed Trainer kinds are decoded now, so their type errors come back as [`Code::PARSE`]
    /// with a field error naming the path. No defaults are applied.
    pub fn parse(data: impl AsRef<[u8]>, options: Option<&ParseOptions>) -> Result<DocumentList> {
        let data = data.as_ref();
        let copts = options.map(ParseOptions::raw);
        let popts = copts.as_ref().map_or(ptr::null(), |o| o as *const sys::trainer_parse_options);
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: `data` is borrowed for the call (a non-null dangling pointer when empty is fine
        // with len 0); `out`/`err` are valid out-parameters.
        let st = unsafe {
            sys::trainer_documents_parse(
                data.as_ptr().cast::<c_char>(),
                data.len(),
                popts,
                &mut out,
                &mut err,
            )
        };
        // SAFETY: `err` came from the call above.
        unsafe { Error::check(st, err) }?;
        NonNull::new(out)
            .map(|ptr| DocumentList { ptr })
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_documents_parse returned no list"))
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        // SAFETY: live handle.
        unsafe { sys::trainer_document_list_count(self.ptr.as_ptr()) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn raw_get(&self, i: usize) -> Option<NonNull<sys::trainer_document>> {
        // SAFETY: live handle; the C function bounds-checks `i`.
        NonNull::new(unsafe { sys::trainer_document_list_get(self.ptr.as_ptr(), i) })
    }

    /// Document `i`, borrowed from the list.
    pub fn get(&self, i: usize) -> Option<Document<'_>> {
        self.raw_get(i).map(|ptr| Document { ptr, _list: PhantomData })
    }

    /// Document `i`, borrowed mutably (for [`DocumentMut::apply_defaults`]).
    pub fn get_mut(&mut self, i: usize) -> Option<DocumentMut<'_>> {
        self.raw_get(i).map(|ptr| DocumentMut { ptr, _list: PhantomData })
    }

    /// The documents in input order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Document<'_>> + '_ {
        (0..self.len()).map(move |i| self.get(i).expect("index below count"))
    }

    /// Applies the CRD schema defaults to every document (see [`DocumentMut::apply_defaults`]).
    pub fn apply_defaults(&mut self) -> Result<()> {
        for i in 0..self.len() {
            self.get_mut(i).expect("index below count").apply_defaults()?;
        }
        Ok(())
    }
}

impl Drop for DocumentList {
    fn drop(&mut self) {
        // SAFETY: owned handle, freed once; no Document outlives `&self`.
        unsafe { sys::trainer_document_list_free(self.ptr.as_ptr()) }
    }
}

impl core::fmt::Debug for DocumentList {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One document, borrowed from its [`DocumentList`]. Strings it returns live as long as the
/// borrow of the list.
#[derive(Clone, Copy)]
pub struct Document<'a> {
    ptr: NonNull<sys::trainer_document>,
    _list: PhantomData<&'a DocumentList>,
}

/// Borrowed accessor string: valid while the list is borrowed and unmodified.
unsafe fn borrowed<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        return "";
    }
    // SAFETY (caller): `p` is a NUL-terminated library string living for 'a.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("")
}

impl<'a> Document<'a> {
    fn raw(&self) -> *const sys::trainer_document {
        self.ptr.as_ptr()
    }

    /// `kind`, "" when absent.
    pub fn kind(&self) -> &'a str {
        // SAFETY: the list is borrowed shared for 'a, so the document is not modified or freed.
        unsafe { borrowed(sys::trainer_document_kind(self.raw())) }
    }

    /// `apiVersion`, "" when absent.
    pub fn api_version(&self) -> &'a str {
        // SAFETY: as in `kind`.
        unsafe { borrowed(sys::trainer_document_api_version(self.raw())) }
    }

    /// `metadata.name`, "" when absent.
    pub fn name(&self) -> &'a str {
        // SAFETY: as in `kind`.
        unsafe { borrowed(sys::trainer_document_name(self.raw())) }
    }

    /// `metadata.namespace`, "" when absent.
    pub fn namespace(&self) -> &'a str {
        // SAFETY: as in `kind`.
        unsafe { borrowed(sys::trainer_document_namespace(self.raw())) }
    }

    /// Decoding warnings: `unknown field "spec.foo"` for each field outside the typed schema.
    pub fn warnings(&self) -> Vec<&'a str> {
        // SAFETY: as in `kind`; warnings live until the list is freed.
        unsafe {
            (0..sys::trainer_document_warning_count(self.raw()))
                .map(|i| borrowed(sys::trainer_document_warning(self.raw(), i)))
                .collect()
        }
    }

    /// Validates with Kubeflow Trainer's admission rules, as the API server would on create
    /// (apply defaults first): the admission path of `trainerctl validate` (CRD rules, webhooks,
    /// every plugin's rules), so both report the same field errors. For a TrainJob, `context`
    /// holds the runtimes (and existing objects such as a PriorityClass) it is checked against;
    /// it may be the document's own list, and `None` is an empty list. A runtime that `context`
    /// lacks is reported as a warning naming it; a TrainingRuntime of that name that `context`
    /// holds only in another namespace rejects the TrainJob.
    ///
    /// Returns the admission warnings. On rejection the error has [`Code::INVALID`], every field
    /// violation, and the warnings in [`Error::warnings`]. Kinds other than the three Trainer
    /// kinds fail with [`Code::UNSUPPORTED`].
    pub fn validate(&self, context: Option<&DocumentList>) -> Result<Vec<String>> {
        self.validate_with(context, None)
    }

    /// [`Document::validate`] with the plugins of `framework` (`None`: the built-in plugins,
    /// gates off), so the rules of plugins added to it apply too; a plugin's field errors come
    /// back like the built-in ones.
    pub fn validate_with(
        &self,
        context: Option<&DocumentList>,
        framework: Option<&Framework>,
    ) -> Result<Vec<String>> {
        let ctx = context.map_or(ptr::null(), |l| l.ptr.as_ptr() as *const _);
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: live document and optional live list, both borrowed shared; validations of
        // the same lists may run concurrently; the framework is shareable once in use.
        let st = unsafe {
            match framework {
                None => sys::trainer_document_validate(self.raw(), ctx, &mut out, &mut err),
                Some(f) => sys::trainer_document_validate_with(
                    self.raw(),
                    ctx,
                    f.in_use(),
                    &mut out,
                    &mut err,
                ),
            }
        };
        let mut warnings = Vec::new();
        if !out.is_null() {
            // SAFETY: `out` is an owned result; strings are copied before it is freed.
            unsafe {
                for i in 0..sys::trainer_validation_warning_count(out) {
                    warnings.extend(opt_string(sys::trainer_validation_warning(out, i)));
                }
                sys::trainer_validation_free(out);
            }
        }
        // SAFETY: `err` came from the call above.
        match unsafe { Error::check(st, err) } {
            Ok(()) => Ok(warnings),
            Err(mut e) => {
                e.warnings = warnings;
                Err(e)
            }
        }
    }

    /// Encodes the document as text. Typed documents use upstream's field order and omit empty
    /// optional fields; untyped documents keep their key order.
    pub fn encode(&self, format: Format) -> Result<String> {
        let mut buf = Buffer::new();
        let mut err = ptr::null_mut();
        // SAFETY: live document; `buf` is empty as required.
        let st =
            unsafe { sys::trainer_document_encode(self.raw(), format.raw(), &mut buf.0, &mut err) };
        // SAFETY: `err` came from the call above.
        unsafe { Error::check(st, err) }?;
        buf.into_string()
    }
}

impl core::fmt::Debug for Document<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Document")
            .field("api_version", &self.api_version())
            .field("kind", &self.kind())
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .finish()
    }
}

/// A document borrowed mutably from its list.
pub struct DocumentMut<'a> {
    ptr: NonNull<sys::trainer_document>,
    _list: PhantomData<&'a mut DocumentList>,
}

impl DocumentMut<'_> {
    /// A shared view of this document.
    pub fn as_document(&self) -> Document<'_> {
        Document { ptr: self.ptr, _list: PhantomData }
    }

    /// Applies the CRD schema defaults in place, as the API server does before admission.
    /// Untyped documents are left unchanged. Idempotent.
    pub fn apply_defaults(&mut self) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: the list is borrowed exclusively, so nothing else reads this document.
        let st = unsafe { sys::trainer_document_default(self.ptr.as_ptr(), &mut err) };
        // SAFETY: `err` came from the call above.
        unsafe { Error::check(st, err) }
    }
}
