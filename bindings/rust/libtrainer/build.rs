// SPDX-License-Identifier: Apache-2.0
//! `cargo:rustc-link-arg` does not propagate from libtrainer-sys to its dependents, so this crate
//! repeats the rpath for its own tests. The directory comes from libtrainer-sys
//! (`links = "trainer"` exports it as DEP_TRAINER_LIB_DIR). Applications linking this crate
//! need their own rpath, LD_LIBRARY_PATH, or libtrainer.so in a system directory.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TRAINER_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_TRAINER_LIB_DIR") {
        if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("unix") {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
    }
}
