// SPDX-License-Identifier: Apache-2.0
//! Links libtrainer.so. No pkg-config crate (no dependencies at all): the library directory
//! comes from TRAINER_LIB_DIR, or the linker's default search path when it is unset.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=TRAINER_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(dir) = env::var_os("TRAINER_LIB_DIR").filter(|d| !d.is_empty()) {
        let dir = Path::new(&dir);
        if !dir.is_dir() {
            panic!("TRAINER_LIB_DIR={} is not a directory", dir.display());
        }
        let dir = dir.canonicalize().expect("canonicalize TRAINER_LIB_DIR");
        println!("cargo:rustc-link-search=native={}", dir.display());
        // An rpath lets tests and examples run without LD_LIBRARY_PATH. Only for ELF/Mach-O
        // targets; Windows finds DLLs through PATH.
        if env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("unix") {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
        }
        // Exposed to dependents' build scripts as DEP_TRAINER_LIB_DIR.
        println!("cargo:lib_dir={}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib=trainer");
}
