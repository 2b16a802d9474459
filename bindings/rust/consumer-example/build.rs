// SPDX-License-Identifier: Apache-2.0
//! The run-time search path of libtrainer.so: the `libtrainer` crate hands its dependents the
//! folder it linked against (TRAINER_LIB_DIR) as DEP_LIBTRAINER_LIB_DIR, but a link argument of
//! a dependency never reaches a program, so the program adds the rpath itself.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_LIBTRAINER_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_LIBTRAINER_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
