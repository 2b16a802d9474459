// SPDX-License-Identifier: Apache-2.0
//! Version, features and status names against the real library.

use libtrainer::{check_version, features, version, version_number, Code, Features};

#[test]
fn version_matches_declarations_and_cargo() {
    assert_eq!(version_number(), libtrainer::sys::TRAINER_VERSION_NUMBER);
    assert_eq!(version(), libtrainer::sys::TRAINER_VERSION_STRING);
    // The crates are versioned with the library.
    assert_eq!(version(), env!("CARGO_PKG_VERSION"));
    check_version().expect("loaded library is compatible");
}

#[test]
fn features_are_known_bits() {
    let f = features();
    let known = Features::MPI.0 | Features::NCCL.0;
    assert_eq!(f.0 & !known, 0, "unknown feature bits in {f:?}");
    let dbg = format!("{f:?}");
    assert_eq!(f.contains(Features::MPI), dbg.contains("mpi"));
    assert_eq!(f.contains(Features::NCCL), dbg.contains("nccl"));
}

#[test]
fn status_names_come_from_the_library() {
    let cases = [
        (Code::OK, "TRAINER_OK"),
        (Code::INVALID_ARGUMENT, "TRAINER_E_INVALID_ARGUMENT"),
        (Code::PARSE, "TRAINER_E_PARSE"),
        (Code::INVALID, "TRAINER_E_INVALID"),
        (Code::LIMIT, "TRAINER_E_LIMIT"),
        (Code::NOT_FOUND, "TRAINER_E_NOT_FOUND"),
        (Code::UNSUPPORTED, "TRAINER_E_UNSUPPORTED"),
        (Code::NOMEM, "TRAINER_E_NOMEM"),
        (Code::INTERNAL, "TRAINER_E_INTERNAL"),
        (Code::USER, "TRAINER_E_USER"),
        (Code::IO, "TRAINER_E_IO"),
        (Code::TIMEOUT, "TRAINER_E_TIMEOUT"),
        (Code::CANCELLED, "TRAINER_E_CANCELLED"),
        (Code::UNAUTHORIZED, "TRAINER_E_UNAUTHORIZED"),
        (Code::FORBIDDEN, "TRAINER_E_FORBIDDEN"),
        (Code::CONFLICT, "TRAINER_E_CONFLICT"),
        (Code::SERVER, "TRAINER_E_SERVER"),
        (Code::FAILED, "TRAINER_E_FAILED"),
        (Code(-1000), "TRAINER_E_?"),
    ];
    for (code, name) in cases {
        assert_eq!(code.name(), name, "{}", code.0);
        assert_eq!(code.to_string(), name);
    }
}
