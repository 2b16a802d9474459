// SPDX-License-Identifier: Apache-2.0

// Package gotest is a small framework plugin in Go, the example of docs/bindings.md: for a
// TrainJob on a runtime labelled trainer.kubeflow.org/framework=gotest it sets env on the
// `node` container (GOTEST_PLUGIN=go, GOTEST_JOB=<TrainJob name>) and refuses a TrainJob that
// sets GOTEST_* variables itself (spec.trainer.env). The same type is registered in process
// (trainer.Framework.Add) and exported from a c-shared library (../main.go).
package gotest

import (
	"encoding/json"
	"fmt"
	"strings"

	"libtrainer.dev/trainer/plugin"
)

// Framework is the value of the runtime label this plugin serves.
const Framework = "gotest"

// Plugin is the GoTest plugin. It keeps no state, so concurrent callbacks need no lock.
type Plugin struct{}

// Name implements plugin.Plugin.
func (Plugin) Name() string { return "GoTest" }

// ours reports whether the TrainJob of req runs on a gotest runtime.
func ours(req *plugin.Request) bool {
	label, _ := req.RuntimeLabel(plugin.FrameworkLabel)
	return label == Framework
}

// Validate implements plugin.Validator: the GOTEST_* variables are the plugin's own.
func (Plugin) Validate(req *plugin.Request) (*plugin.Reply, error) {
	if !ours(req) {
		return nil, nil
	}
	var job struct {
		Spec struct {
			Trainer *struct {
				Env []struct {
					Name string `json:"name"`
				} `json:"env"`
			} `json:"trainer"`
		} `json:"spec"`
	}
	raw, ok := req.Get("/trainJob")
	if !ok {
		return nil, fmt.Errorf("the request has no trainJob")
	}
	if err := json.Unmarshal(raw, &job); err != nil {
		return nil, err
	}
	var reply plugin.Reply
	if job.Spec.Trainer != nil {
		for i, env := range job.Spec.Trainer.Env {
			if strings.HasPrefix(env.Name, "GOTEST_") {
				reply.Errors = append(reply.Errors, plugin.FieldError{
					Type:   "FieldValueForbidden",
					Field:  fmt.Sprintf("spec.trainer.env[%d].name", i),
					Value:  env.Name,
					Detail: "GOTEST_* variables are set by the GoTest plugin",
				})
			}
		}
	}
	return &reply, nil
}

// EnforceMLPolicy implements plugin.MLPolicyEnforcer: env on the node container.
func (Plugin) EnforceMLPolicy(req *plugin.Request) (*plugin.Reply, error) {
	if !ours(req) {
		return nil, nil
	}
	name, _ := req.String("/trainJob/metadata/name")
	env := []map[string]string{{"name": "GOTEST_PLUGIN", "value": "go"}, {"name": "GOTEST_JOB", "value": name}}
	return &plugin.Reply{Info: map[string]interface{}{
		"podSets": []interface{}{map[string]interface{}{
			"name":       "node",
			"containers": []interface{}{map[string]interface{}{"name": "node", "env": env}},
		}},
	}}, nil
}
