// SPDX-License-Identifier: Apache-2.0
//! `cargo:rustc-link-arg` does not propagate from libtrainer-sys to its dependents, so this crate
//! repeats the rpath for its own tests. The directory comes from libtrainer-sys
//! (`links = "trainer"` exports it as DEP_TRAINER_LIB_DIR). A program that depends on this crate
//! gets it in turn as DEP_LIBTRAINER_LIB_DIR (`links = "libtrainer"`) and adds the rpath in its
//! own build.rs (`consumer-example/build.rs`, docs/bindings.md), since a link argument never
//! reaches it from a dependency.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TRAINER_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_TRAINER_LIB_DIR") {
        if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("unix") {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
        println!("cargo:lib_dir={dir}");
    }
}
