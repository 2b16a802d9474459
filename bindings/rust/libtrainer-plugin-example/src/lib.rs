// SPDX-License-Identifier: Apache-2.0
//! `librusttest_plugin.so`: the `rusttest` plugin of src/rusttest.rs, exported for libtrainer
//! to load. The same source is compiled into libtrainer's tests as an in-process plugin, so the
//! tests check that both ways render the same objects.

mod rusttest;

libtrainer::export_plugin!(rusttest::RustTest);
