// SPDX-License-Identifier: Apache-2.0
//! Prints the version of the libtrainer.so it runs with, after checking it against the crate's.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    libtrainer::check_version()?;
    println!("libtrainer {}", libtrainer::version());
    Ok(())
}
