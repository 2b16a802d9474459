// SPDX-License-Identifier: Apache-2.0

package plugin

// The descriptor's callbacks (a file of its own: a file with //export may only declare C
// functions in its preamble). user_data is a cgo.Handle of a *registered.

/*
#cgo CFLAGS: -I${SRCDIR}/../../../include
#include <trainer.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export goPluginValidate
func goPluginValidate(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) { return p.(Validator).Validate(r) })
}

//export goPluginEnforceMLPolicy
func goPluginEnforceMLPolicy(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) {
		return p.(MLPolicyEnforcer).EnforceMLPolicy(r)
	})
}

//export goPluginEnforcePodGroupPolicy
func goPluginEnforcePodGroupPolicy(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) {
		return p.(PodGroupPolicyEnforcer).EnforcePodGroupPolicy(r)
	})
}

//export goPluginEnforcePodSpec
func goPluginEnforcePodSpec(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) { return p.(PodSpecEnforcer).EnforcePodSpec(r) })
}

//export goPluginPreBuildSync
func goPluginPreBuildSync(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) { return p.(PreBuildSyncer).PreBuildSync(r) })
}

//export goPluginBuild
func goPluginBuild(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) { return p.(ComponentBuilder).Build(r) })
}

//export goPluginStatus
func goPluginStatus(user unsafe.Pointer, req *C.trainer_plugin_request, reply *C.trainer_plugin_reply) C.trainer_status {
	return dispatch(user, req, reply, func(p Plugin, r *Request) (*Reply, error) { return p.(StatusReporter).Status(r) })
}

//export goPluginFree
func goPluginFree(user unsafe.Pointer) {
	cgo.Handle(uintptr(user)).Delete()
}
