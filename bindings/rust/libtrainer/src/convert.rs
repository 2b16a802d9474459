// SPDX-License-Identifier: Apache-2.0
//! The converter (`trainer_convert`): Training Operator v1 jobs and Katib Experiments in, their
//! Trainer v2 objects out, as `trainerctl convert` prints them (docs/convert.md).

use crate::cluster::CStrings;
use crate::{opt_string, sys, Code, Error, Format, ParseOptions, Result};
use core::ffi::c_char;
use core::ptr;

/// Options of [`convert`]. `None` means the library default (in brackets).
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    /// Namespace of a job that names none, as `kubectl --namespace` ["default"].
    pub namespace: Option<String>,
    /// Every warning is an error instead ([`Code::INVALID`], one field error each).
    pub strict: bool,
    /// The format of [`Conversion::text`] [YAML, a `---` stream; JSON: a `v1` List].
    pub format: Option<Format>,
    /// Limits for parsing the input [library defaults].
    pub parse: Option<ParseOptions>,
}

/// What [`convert`] produced, copied out of the library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// Every object as one text in [`ConvertOptions::format`].
    pub text: String,
    /// Every object as compact JSON, in apply order.
    pub objects: Vec<String>,
    /// One per v1 field Trainer v2 cannot express, naming its path (kubectl prints them as
    /// `Warning: <text>`).
    pub warnings: Vec<String>,
}

/// Replaces every Training Operator v1 job among the documents of `input` (a YAML stream or
/// JSON; a `v1` List stands for its items) by its Trainer v2 objects (a generated
/// TrainingRuntime where no built-in runtime fits, then the TrainJob), and every Katib
/// Experiment by an OptimizationJob; other documents are kept as they are. Errors:
/// [`Code::INVALID`] with one field error per problem (paths in the v1 object), [`Code::PARSE`],
/// [`Code::LIMIT`], [`Code::INVALID_ARGUMENT`] for bad options.
pub fn convert(input: impl AsRef<[u8]>, options: &ConvertOptions) -> Result<Conversion> {
    let input = input.as_ref();
    let mut strs = CStrings::default();
    let mut opts = sys::trainer_convert_options::INIT;
    opts.namespace_name = strs.opt(&options.namespace)?;
    opts.strict = i32::from(options.strict);
    opts.format = options.format.unwrap_or(Format::Yaml).raw();
    let parse = options.parse.as_ref().map(ParseOptions::raw);
    opts.parse = parse.as_ref().map_or(ptr::null(), |p| p as *const _);
    let mut out = ptr::null_mut();
    let mut err = ptr::null_mut();
    // SAFETY: the input, strings and options live for the call; out-parameters are valid.
    unsafe {
        Error::check(
            sys::trainer_convert(
                input.as_ptr().cast::<c_char>(),
                input.len(),
                &opts,
                &mut out,
                &mut err,
            ),
            err,
        )?
    };
    if out.is_null() {
        return Err(Error::new(Code::INTERNAL, "trainer_convert returned no result"));
    }
    // SAFETY: `out` is a live result owned here; its strings are copied before it is freed.
    let conversion = unsafe {
        Conversion {
            text: opt_string(sys::trainer_convert_result_text(out)).unwrap_or_default(),
            objects: (0..sys::trainer_convert_result_count(out))
                .filter_map(|i| opt_string(sys::trainer_convert_result_json(out, i)))
                .collect(),
            warnings: (0..sys::trainer_convert_result_warning_count(out))
                .filter_map(|i| opt_string(sys::trainer_convert_result_warning(out, i)))
                .collect(),
        }
    };
    // SAFETY: owned, freed once.
    unsafe { sys::trainer_convert_result_free(out) };
    Ok(conversion)
}
