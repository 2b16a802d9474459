// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdlib.h>
#include <trainer.h>
*/
import "C"

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"libtrainer.dev/trainer/plugin"
)

// Plugin is a framework plugin written in Go (see package plugin for the phase interfaces,
// Request and Reply). A *LoadedPlugin, a plugin from a shared library, is one too.
type Plugin = plugin.Plugin

// Framework is the plugin pipeline of renders, validations, applies and the controller: the
// built-in plugins for a set of feature gates, then the plugins added in order
// (trainer_framework). Pass it in RenderOptions, Document.ValidateWith, ApplyOptions and
// ControllerOptions so that a plugin's rules hold on every path. Safe for concurrent use: Add
// and Close take it exclusively, its uses share it. Close it when done; a controller that
// took it keeps its own reference.
type Framework struct {
	mu  sync.RWMutex
	ptr *C.trainer_framework
}

// formatGates writes gates in upstream's --feature-gates syntax, sorted ("A=true,B=false").
func formatGates(gates map[string]bool) (string, error) {
	names := make([]string, 0, len(gates))
	for name := range gates {
		if name == "" || strings.ContainsAny(name, "=,\x00") {
			return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("feature gate name %q is malformed", name)}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%t", name, gates[name])
	}
	return strings.Join(parts, ","), nil
}

// NewFramework returns a framework of the built-in plugins for gates (nil: every gate off).
// Errors: ErrInvalidArgument for an unknown gate.
func NewFramework(gates map[string]bool) (*Framework, error) {
	text, err := formatGates(gates)
	if err != nil {
		return nil, err
	}
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	var out *C.trainer_framework
	var cerr *C.trainer_error
	if err := takeError(C.trainer_framework_new(ctext, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	f := &Framework{ptr: out}
	runtime.SetFinalizer(f, (*Framework).Close)
	return f, nil
}

func errFrameworkClosed() error {
	return &Error{Code: CodeInvalidArgument, Message: "use of a closed trainer.Framework"}
}

// Add appends p after the plugins already there: a Go plugin is registered in process (its
// methods are called from the library's threads, possibly concurrently), a *LoadedPlugin is
// moved into the framework (it is spent, whatever the result). Errors: ErrInvalid for a name
// that a built-in or an added plugin has, or a second StatusReporter; ErrInvalidArgument for
// an unusable name.
func (f *Framework) Add(p Plugin) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if lp, ok := p.(*LoadedPlugin); ok {
		cp := lp.take()
		if cp == nil {
			return &Error{Code: CodeInvalidArgument, Message: "the loaded plugin was closed or already added"}
		}
		if f.ptr == nil {
			C.trainer_plugin_free(cp)
			return errFrameworkClosed()
		}
		var cerr *C.trainer_error
		return takeError(C.trainer_framework_add(f.ptr, cp, &cerr), cerr)
	}
	if f.ptr == nil {
		return errFrameworkClosed()
	}
	desc, freeDesc, err := plugin.Descriptor(unsafe.Pointer(C.trainer_plugin_host_table()), p)
	if err != nil {
		return &Error{Code: CodeInvalidArgument, Message: err.Error()}
	}
	defer freeDesc()
	var cp *C.trainer_plugin
	var cerr *C.trainer_error
	if err := takeError(C.trainer_plugin_new((*C.trainer_plugin_descriptor)(desc), &cp, &cerr), cerr); err != nil {
		// The library took nothing: the Go state is still ours.
		plugin.DeleteUserData(desc)
		return err
	}
	// From here the plugin owns the state; the framework owns the plugin, also on failure.
	return takeError(C.trainer_framework_add(f.ptr, cp, &cerr), cerr)
}

// Plugins returns the names of every plugin, built-in and added, in framework order.
func (f *Framework) Plugins() []string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n := int(C.trainer_framework_plugin_count(f.ptr))
	names := make([]string, n)
	for i := range names {
		names[i] = optString(C.trainer_framework_plugin_name(f.ptr, C.size_t(i)))
	}
	return names
}

// Close releases the framework. Idempotent; always returns nil.
func (f *Framework) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ptr != nil {
		C.trainer_framework_free(f.ptr)
		f.ptr = nil
		runtime.SetFinalizer(f, nil)
	}
	return nil
}

// use returns the C framework read-locked for one call (nil for a nil Framework) and the
// unlock function.
func (f *Framework) use() (*C.trainer_framework, func(), error) {
	if f == nil {
		return nil, func() {}, nil
	}
	f.mu.RLock()
	if f.ptr == nil {
		f.mu.RUnlock()
		return nil, func() {}, errFrameworkClosed()
	}
	return f.ptr, f.mu.RUnlock, nil
}

// LoadedPlugin is a plugin from a shared library (LoadPlugin), until Framework.Add takes it.
type LoadedPlugin struct {
	mu   sync.Mutex
	ptr  *C.trainer_plugin
	name string
}

// LoadPlugin loads the plugin library at path (its trainer_plugin_entry; in Go, a main package
// built with -buildmode=c-shared that calls plugin.Entry). The library stays loaded for the
// life of the process. Errors: ErrIO (cannot be loaded), ErrNotFound (no entry point),
// ErrUser (the entry refused), ErrUnsupported (another plugin ABI); messages name path.
func LoadPlugin(path string) (*LoadedPlugin, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var out *C.trainer_plugin
	var cerr *C.trainer_error
	if err := takeError(C.trainer_plugin_load(cpath, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	lp := &LoadedPlugin{ptr: out, name: C.GoString(C.trainer_plugin_name(out))}
	runtime.SetFinalizer(lp, (*LoadedPlugin).Close)
	return lp, nil
}

// Name returns the plugin's name.
func (lp *LoadedPlugin) Name() string { return lp.name }

// take hands the C plugin to a framework (nil when closed or taken).
func (lp *LoadedPlugin) take() *C.trainer_plugin {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	p := lp.ptr
	lp.ptr = nil
	runtime.SetFinalizer(lp, nil)
	return p
}

// Close frees a plugin no framework took. Idempotent; always returns nil.
func (lp *LoadedPlugin) Close() error {
	C.trainer_plugin_free(lp.take())
	return nil
}
