// SPDX-License-Identifier: Apache-2.0

package plugin

import (
	"encoding/json"
	"testing"
)

// fakeSource answers pointers from a map, as the host's accessors would.
type fakeSource map[string]string

func (f fakeSource) json() []byte { return []byte(f[""]) }
func (f fakeSource) get(p string) ([]byte, bool) {
	v, ok := f[p]
	return []byte(v), ok
}
func (f fakeSource) getString(p string) (string, bool) {
	var s string
	v, ok := f[p]
	if !ok || json.Unmarshal([]byte(v), &s) != nil {
		return "", false
	}
	return s, true
}
func (f fakeSource) getInt(p string) (int64, bool) {
	var n int64
	v, ok := f[p]
	if !ok || json.Unmarshal([]byte(v), &n) != nil {
		return 0, false
	}
	return n, true
}

func TestRequestHelpers(t *testing.T) {
	r := &Request{src: fakeSource{
		"":       `{"phase":"validate","trainJob":{"metadata":{"name":"j"}}}`,
		"/phase": `"validate"`,
		"/info/runtime/labels/trainer.kubeflow.org~1framework": `"gotest"`,
		"/trainJob/spec/trainer/numNodes":                      `3`,
	}}
	if r.Phase() != "validate" {
		t.Errorf("Phase() = %q", r.Phase())
	}
	if l, ok := r.RuntimeLabel(FrameworkLabel); !ok || l != "gotest" {
		t.Errorf("RuntimeLabel = %q, %v", l, ok)
	}
	if n, ok := r.Int("/trainJob/spec/trainer/numNodes"); !ok || n != 3 {
		t.Errorf("Int = %d, %v", n, ok)
	}
	if _, ok := r.Get("/missing"); ok {
		t.Error("Get of an absent pointer")
	}
	var doc struct {
		TrainJob struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"trainJob"`
	}
	if err := r.Decode(&doc); err != nil || doc.TrainJob.Metadata.Name != "j" {
		t.Errorf("Decode: %+v, %v", doc, err)
	}
	b := r.JSON()
	b[0] = 'X' // a copy: the request is unchanged
	if string(r.JSON()[:1]) != "{" {
		t.Error("JSON() returned the request's own bytes")
	}
	if got := EscapePointer("a/b~c"); got != "a~1b~0c" {
		t.Errorf("EscapePointer = %q", got)
	}
}

func TestReplyEncoding(t *testing.T) {
	var none *Reply
	if b, err := none.bytes(); b != nil || err != nil {
		t.Errorf("nil reply: %q, %v", b, err)
	}
	b, err := (&Reply{Errors: []FieldError{{Type: "FieldValueInvalid", Field: "spec.x", Value: 3, Detail: "d"}},
		Warnings: []string{"w"}}).bytes()
	if err != nil || string(b) != `{"errors":[{"type":"FieldValueInvalid","field":"spec.x","value":3,"detail":"d"}],"warnings":["w"]}` {
		t.Errorf("reply: %s, %v", b, err)
	}
	if b, _ := (&Reply{Raw: json.RawMessage(`{"info":{}}`), Warnings: []string{"ignored"}}).bytes(); string(b) != `{"info":{}}` {
		t.Errorf("raw reply: %s", b)
	}
	if _, err := (&Reply{Info: func() {}}).bytes(); err == nil {
		t.Error("an unmarshallable reply encoded")
	}
}
