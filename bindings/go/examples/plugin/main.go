// SPDX-License-Identifier: Apache-2.0

// Command plugin is the GoTest plugin (package gotest) as a plugin library that libtrainer loads
// (trainer.LoadPlugin, trainerctl --plugin). Build it with
//
//	go build -buildmode=c-shared -o libgotest.so ./examples/plugin
//
// It does not link libtrainer: it reaches the library only through the host table that
// trainer_plugin_entry receives. The library carries a Go runtime of its own; it loads into C
// and C++ programs and into Go programs alike (TestGoPluginSharedLibrary loads it into the Go
// test binary).
package main

import "C"

import (
	"unsafe"

	"libtrainer.dev/trainer/examples/plugin/gotest"
	"libtrainer.dev/trainer/plugin"
)

//export trainer_plugin_entry
func trainer_plugin_entry(host unsafe.Pointer) unsafe.Pointer {
	return plugin.Entry(host, gotest.Plugin{})
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
