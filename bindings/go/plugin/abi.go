// SPDX-License-Identifier: Apache-2.0

package plugin

// The C side of a Go plugin: a trainer_plugin_descriptor whose callbacks are the exported
// functions of abi_export.go, and the calls through the host table. Only the header is used,
// never a libtrainer symbol, so a c-shared plugin does not link libtrainer.

/*
#cgo CFLAGS: -I${SRCDIR}/../../../include
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <trainer.h>

// Defined by //export in abi_export.go (cgo spells the const pointers without const).
extern trainer_status goPluginValidate(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern trainer_status goPluginEnforceMLPolicy(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern trainer_status goPluginEnforcePodGroupPolicy(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern trainer_status goPluginEnforcePodSpec(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern trainer_status goPluginPreBuildSync(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern trainer_status goPluginBuild(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern trainer_status goPluginStatus(void*, trainer_plugin_request*, trainer_plugin_reply*);
extern void goPluginFree(void*);

// Phase bits: which callbacks the descriptor gets.
enum { kValidate = 1, kMLPolicy = 2, kPodGroup = 4, kPodSpec = 8, kPreBuild = 16, kBuild = 32,
       kStatus = 64 };

// A descriptor in C memory (the library copies it; the caller frees it with
// go_plugin_descriptor_free). user_data is a cgo.Handle, passed as an integer.
static trainer_plugin_descriptor* go_plugin_descriptor_new(const char* name, uintptr_t handle,
                                                          int phases) {
  trainer_plugin_descriptor* d = calloc(1, sizeof *d);
  if (d == NULL) return NULL;
  d->abi_version = TRAINER_PLUGIN_ABI_VERSION;
  d->name = strdup(name);
  d->user_data = (void*)handle;
  d->user_data_free = goPluginFree;
#define GO_PLUGIN_SET(bit, field, fn) \
  if (phases & (bit)) d->field = (trainer_plugin_fn)(fn)
  GO_PLUGIN_SET(kValidate, validate, goPluginValidate);
  GO_PLUGIN_SET(kMLPolicy, enforce_ml_policy, goPluginEnforceMLPolicy);
  GO_PLUGIN_SET(kPodGroup, enforce_pod_group_policy, goPluginEnforcePodGroupPolicy);
  GO_PLUGIN_SET(kPodSpec, enforce_pod_spec, goPluginEnforcePodSpec);
  GO_PLUGIN_SET(kPreBuild, pre_build_sync, goPluginPreBuildSync);
  GO_PLUGIN_SET(kBuild, build, goPluginBuild);
  GO_PLUGIN_SET(kStatus, status, goPluginStatus);
#undef GO_PLUGIN_SET
  return d;
}

static void go_plugin_descriptor_free(trainer_plugin_descriptor* d) {
  if (d == NULL) return;
  free((char*)d->name);
  free(d);
}

// Calls through the host table (function pointers cannot be called from Go).
static const char* go_host_request_json(const trainer_plugin_host* h,
                                        const trainer_plugin_request* r, size_t* len) {
  return h->request_json(r, len);
}
static const char* go_host_request_get(const trainer_plugin_host* h,
                                       const trainer_plugin_request* r, const char* p,
                                       size_t* len) {
  return h->request_get(r, p, len);
}
static const char* go_host_request_get_string(const trainer_plugin_host* h,
                                              const trainer_plugin_request* r, const char* p) {
  return h->request_get_string(r, p);
}
static int32_t go_host_request_get_int(const trainer_plugin_host* h,
                                       const trainer_plugin_request* r, const char* p,
                                       int64_t* out) {
  return h->request_get_int(r, p, out);
}
static trainer_status go_host_reply_set(const trainer_plugin_host* h, trainer_plugin_reply* r,
                                        const char* json, size_t len) {
  return h->reply_set(r, json, len);
}
static void go_host_reply_set_error(const trainer_plugin_host* h, trainer_plugin_reply* r,
                                    const char* message) {
  h->reply_set_error(r, message);
}
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// ABIVersion is the plugin ABI version (major<<16 | minor) this package was built for.
const ABIVersion = uint32(C.TRAINER_PLUGIN_ABI_VERSION)

// registered is the Go state of one plugin: the value of the cgo.Handle in user_data.
type registered struct {
	p    Plugin
	host *C.trainer_plugin_host
}

// Descriptor returns a new trainer_plugin_descriptor (as unsafe.Pointer, in C memory) for p,
// whose callbacks reach p through host (a const trainer_plugin_host*), and a function that
// frees the descriptor itself (the library copies it). The descriptor's user_data holds a
// cgo.Handle of p that its user_data_free deletes: once trainer_plugin_new succeeds the library
// owns it; when it fails, call DeleteUserData(desc) before freeing. Package trainer and Entry
// use this; plugin authors call neither.
func Descriptor(host unsafe.Pointer, p Plugin) (desc unsafe.Pointer, free func(), err error) {
	if host == nil {
		return nil, nil, fmt.Errorf("plugin: no host table")
	}
	if p == nil {
		return nil, nil, fmt.Errorf("plugin: nil Plugin")
	}
	name := p.Name()
	for i := 0; i < len(name); i++ {
		if name[i] == 0 {
			return nil, nil, fmt.Errorf("plugin: name %q contains NUL", name)
		}
	}
	phases := 0
	if _, ok := p.(Validator); ok {
		phases |= C.kValidate
	}
	if _, ok := p.(MLPolicyEnforcer); ok {
		phases |= C.kMLPolicy
	}
	if _, ok := p.(PodGroupPolicyEnforcer); ok {
		phases |= C.kPodGroup
	}
	if _, ok := p.(PodSpecEnforcer); ok {
		phases |= C.kPodSpec
	}
	if _, ok := p.(PreBuildSyncer); ok {
		phases |= C.kPreBuild
	}
	if _, ok := p.(ComponentBuilder); ok {
		phases |= C.kBuild
	}
	if _, ok := p.(StatusReporter); ok {
		phases |= C.kStatus
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	h := cgo.NewHandle(&registered{p: p, host: (*C.trainer_plugin_host)(host)})
	d := C.go_plugin_descriptor_new(cname, C.uintptr_t(h), C.int(phases))
	if d == nil {
		h.Delete()
		return nil, nil, fmt.Errorf("plugin: out of memory")
	}
	return unsafe.Pointer(d), func() { C.go_plugin_descriptor_free(d) }, nil
}

// DeleteUserData releases the Go state of a descriptor that no plugin took (see Descriptor).
func DeleteUserData(desc unsafe.Pointer) {
	d := (*C.trainer_plugin_descriptor)(desc)
	cgo.Handle(uintptr(d.user_data)).Delete()
}

// Entry is the body of a plugin library's trainer_plugin_entry: it checks that the host speaks
// this package's plugin ABI and returns p's descriptor, or nil (which refuses the load). The
// descriptor stays allocated: a loaded library is never unloaded. Use it from a main package
// built with -buildmode=c-shared:
//
//	//export trainer_plugin_entry
//	func trainer_plugin_entry(host unsafe.Pointer) unsafe.Pointer {
//		return plugin.Entry(host, myPlugin{})
//	}
func Entry(host unsafe.Pointer, p Plugin) unsafe.Pointer {
	if host == nil {
		return nil
	}
	hostABI := uint32((*C.trainer_plugin_host)(host).abi_version)
	// Same major version, and a host at least as new as this package (minor versions append).
	if hostABI>>16 != ABIVersion>>16 || hostABI&0xffff < ABIVersion&0xffff {
		return nil
	}
	desc, _, err := Descriptor(host, p)
	if err != nil {
		return nil
	}
	return desc
}

// hostSource reads a request through the host table.
type hostSource struct {
	host *C.trainer_plugin_host
	req  *C.trainer_plugin_request
}

func (s hostSource) json() []byte {
	var n C.size_t
	p := C.go_host_request_json(s.host, s.req, &n)
	return C.GoBytes(unsafe.Pointer(p), C.int(n))
}

func (s hostSource) get(pointer string) ([]byte, bool) {
	cp := C.CString(pointer)
	defer C.free(unsafe.Pointer(cp))
	var n C.size_t
	p := C.go_host_request_get(s.host, s.req, cp, &n)
	if p == nil {
		return nil, false
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n)), true
}

func (s hostSource) getString(pointer string) (string, bool) {
	cp := C.CString(pointer)
	defer C.free(unsafe.Pointer(cp))
	p := C.go_host_request_get_string(s.host, s.req, cp)
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}

func (s hostSource) getInt(pointer string) (int64, bool) {
	cp := C.CString(pointer)
	defer C.free(unsafe.Pointer(cp))
	var v C.int64_t
	if C.go_host_request_get_int(s.host, s.req, cp, &v) == 0 {
		return 0, false
	}
	return int64(v), true
}

// dispatch runs one phase method and writes its reply or error. A panic becomes a failure of
// the callback with the panic's text; it never unwinds into the library.
func dispatch(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply,
	call func(p Plugin, r *Request) (*Reply, error)) (st C.trainer_status) {
	reg := cgo.Handle(uintptr(user)).Value().(*registered)
	fail := func(code C.trainer_status, msg string) C.trainer_status {
		cmsg := C.CString(msg)
		defer C.free(unsafe.Pointer(cmsg))
		C.go_host_reply_set_error(reg.host, reply, cmsg)
		return code
	}
	defer func() {
		if r := recover(); r != nil {
			st = fail(C.TRAINER_E_USER, fmt.Sprintf("panic: %v", r))
		}
	}()
	out, err := call(reg.p, &Request{src: hostSource{host: reg.host, req: req}})
	if err != nil {
		code := C.trainer_status(C.TRAINER_E_USER)
		if pe, ok := err.(*Error); ok && pe.Code < 0 {
			code = C.trainer_status(pe.Code)
		}
		return fail(code, err.Error())
	}
	text, err := out.bytes()
	if err != nil {
		return fail(C.TRAINER_E_USER, "encoding the reply: "+err.Error())
	}
	if text == nil {
		return C.TRAINER_OK
	}
	ctext := C.CBytes(text)
	defer C.free(ctext)
	if st := C.go_host_reply_set(reg.host, reply, (*C.char)(ctext), C.size_t(len(text))); st != C.TRAINER_OK {
		return fail(st, "the library refused the reply")
	}
	return C.TRAINER_OK
}
