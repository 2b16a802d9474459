// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <trainer.h>
*/
import "C"

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// ParseOptions limits what ParseDocuments and Render accept from untrusted text. A zero field
// means the library default (given in brackets). A limit exceeded is an error with CodeLimit
// (errors.Is(err, ErrLimit)) whose message names the limit.
type ParseOptions struct {
	MaxDocumentBytes int // whole input text [4 MiB]
	MaxDepth         int // nesting of maps/sequences [100]
	MaxDocuments     int // documents in one YAML stream [1000]
	MaxNodes         int // nodes after alias expansion, whole stream [1000000]
	MaxAliases       int // alias (*name) references in the stream [10000]
	// MaxAliasBytes bounds the bytes of scalar text that YAML anchors and aliases copy, whole
	// stream [4 MiB]: an anchored node is charged once when defined and once per alias of it.
	MaxAliasBytes int
}

// toC returns the limits as the C struct; negative limits are refused.
func (o *ParseOptions) toC() (C.trainer_parse_options, error) {
	var c C.trainer_parse_options
	if st := C.trainer_parse_options_init(&c, C.TRAINER_PARSE_OPTIONS_VERSION); st != C.TRAINER_OK {
		return c, optionsError(st, "parse")
	}
	for _, v := range []int{o.MaxDocumentBytes, o.MaxDepth, o.MaxDocuments, o.MaxNodes, o.MaxAliases, o.MaxAliasBytes} {
		if v < 0 {
			return c, &Error{Code: CodeInvalidArgument, Message: "ParseOptions limits must not be negative"}
		}
	}
	c.max_document_bytes = C.size_t(o.MaxDocumentBytes)
	c.max_depth = C.size_t(o.MaxDepth)
	c.max_documents = C.size_t(o.MaxDocuments)
	c.max_nodes = C.size_t(o.MaxNodes)
	c.max_aliases = C.size_t(o.MaxAliases)
	c.max_alias_bytes = C.size_t(o.MaxAliasBytes)
	return c, nil
}

// Format selects the text Document.Encode writes.
type Format int

// Output formats.
const (
	FormatJSON       Format = C.TRAINER_FORMAT_JSON        // compact JSON, no trailing newline
	FormatYAML       Format = C.TRAINER_FORMAT_YAML        // one YAML document, ends with a newline
	FormatJSONPretty Format = C.TRAINER_FORMAT_JSON_PRETTY // JSON indented by two spaces
)

// errClosed is returned by methods called on a closed DocumentList or its documents.
func errClosed() error {
	return &Error{Code: CodeInvalidArgument, Message: "use of a closed trainer.DocumentList"}
}

var nextListID uint64

// DocumentList holds the documents of one YAML stream or JSON text, in input order.
//
// Unlike the C handle, a DocumentList is safe for concurrent use by several goroutines: reads
// (accessors, Validate, Encode) share a lock, Default and Close take it exclusively.
type DocumentList struct {
	mu  sync.RWMutex
	ptr *C.trainer_document_list
	id  uint64 // lock order when two lists are locked together (Validate with a context)
}

// ParseDocuments parses a YAML stream ("---"-separated documents) or JSON text. Empty and null
// documents are skipped; a v1 List contributes its items. Typed Trainer kinds (TrainJob, TrainingRuntime,
// ClusterTrainingRuntime, OptimizationJob) are decoded now, so their type errors surface here as CodeParse with
// a field error naming the path. No defaults are applied (see Document.Default).
// opts may be nil for the library's limits. The caller must Close the list.
func ParseDocuments(data []byte, opts *ParseOptions) (*DocumentList, error) {
	var copts C.trainer_parse_options
	var poptions *C.trainer_parse_options
	if opts != nil {
		var err error
		if copts, err = opts.toC(); err != nil {
			return nil, err
		}
		poptions = &copts
	}
	p, n := bytesArg(data)
	var out *C.trainer_document_list
	var cerr *C.trainer_error
	st := C.trainer_documents_parse(p, n, poptions, &out, &cerr)
	runtime.KeepAlive(data)
	if err := takeError(st, cerr); err != nil {
		C.trainer_document_list_free(out) // NULL on failure; harmless either way
		return nil, err
	}
	l := &DocumentList{ptr: out, id: atomic.AddUint64(&nextListID, 1)}
	runtime.SetFinalizer(l, finalizeList)
	return l, nil
}

// defaultMaxDocumentBytes is the library's default limit on a whole input text.
const defaultMaxDocumentBytes = 4 << 20

// readLimited reads r up to the limit on a whole input plus one byte: enough for the library to
// report an input over the limit (ErrLimit, naming it) without reading an endless stream.
func readLimited(r io.Reader, opts *ParseOptions) ([]byte, error) {
	limit := int64(defaultMaxDocumentBytes)
	if opts != nil && opts.MaxDocumentBytes > 0 {
		limit = int64(opts.MaxDocumentBytes)
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: "reading the input: " + err.Error(), cause: err}
	}
	return data, nil
}

// ParseDocumentsReader is ParseDocuments of the text read from r (at most the whole-input
// limit plus one byte, see RenderReader).
func ParseDocumentsReader(r io.Reader, opts *ParseOptions) (*DocumentList, error) {
	data, err := readLimited(r, opts)
	if err != nil {
		return nil, err
	}
	return ParseDocuments(data, opts)
}

// listsFinalized counts lists freed by the finalizer (a safety net; tests observe it).
var listsFinalized int64

func finalizeList(l *DocumentList) {
	atomic.AddInt64(&listsFinalized, 1)
	l.Close()
}

// Close frees the list and its documents. It is idempotent and always returns nil; afterwards
// the list is empty and the methods of its documents fail or return zero values.
func (l *DocumentList) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ptr != nil {
		C.trainer_document_list_free(l.ptr)
		l.ptr = nil
		runtime.SetFinalizer(l, nil)
	}
	return nil
}

// Len returns the number of documents (0 after Close).
func (l *DocumentList) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return int(C.trainer_document_list_count(l.ptr))
}

// Document returns document i (0 <= i < Len()), or nil when i is out of range. The document
// belongs to the list: it keeps the list reachable and stops working when the list is closed.
func (l *DocumentList) Document(i int) *Document {
	if i < 0 || i >= l.Len() {
		return nil
	}
	return &Document{list: l, index: i}
}

// Documents returns every document of the list, in input order.
func (l *DocumentList) Documents() []*Document {
	n := l.Len()
	docs := make([]*Document, n)
	for i := range docs {
		docs[i] = &Document{list: l, index: i}
	}
	return docs
}

// Document is one document of a DocumentList. It references its list, so the list is not
// finalized while a Document is reachable; its C memory is released by the list's Close.
type Document struct {
	list  *DocumentList
	index int
}

// doc returns the C document; the caller holds the list's lock. nil after Close.
func (d *Document) doc() *C.trainer_document {
	if d.list.ptr == nil {
		return nil
	}
	return C.trainer_document_list_get(d.list.ptr, C.size_t(d.index))
}

// text reads one borrowed string accessor under the read lock and copies it.
func (d *Document) text(get func(*C.trainer_document) *C.char) string {
	d.list.mu.RLock()
	defer d.list.mu.RUnlock()
	doc := d.doc()
	if doc == nil {
		return ""
	}
	return optString(get(doc))
}

// Kind returns the document's kind ("TrainJob"), "" when absent or after Close.
func (d *Document) Kind() string {
	return d.text(func(p *C.trainer_document) *C.char { return C.trainer_document_kind(p) })
}

// APIVersion returns the document's apiVersion, "" when absent.
func (d *Document) APIVersion() string {
	return d.text(func(p *C.trainer_document) *C.char { return C.trainer_document_api_version(p) })
}

// Name returns metadata.name, "" when absent.
func (d *Document) Name() string {
	return d.text(func(p *C.trainer_document) *C.char { return C.trainer_document_name(p) })
}

// Namespace returns metadata.namespace, "" when absent.
func (d *Document) Namespace() string {
	return d.text(func(p *C.trainer_document) *C.char { return C.trainer_document_namespace(p) })
}

// Warnings returns the decoding warnings (`unknown field "spec.foo"` for each field outside the
// typed schema); nil when there are none.
func (d *Document) Warnings() []string {
	d.list.mu.RLock()
	defer d.list.mu.RUnlock()
	doc := d.doc()
	n := int(C.trainer_document_warning_count(doc))
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = optString(C.trainer_document_warning(doc, C.size_t(i)))
	}
	return out
}

// Default applies the CRD schema defaults in place, as the API server does before admission.
// Untyped documents are left unchanged. Idempotent.
func (d *Document) Default() error {
	d.list.mu.Lock()
	defer d.list.mu.Unlock()
	doc := d.doc()
	if doc == nil {
		return errClosed()
	}
	var cerr *C.trainer_error
	return takeError(C.trainer_document_default(doc, &cerr), cerr)
}

// Validate checks the document with Kubeflow Trainer's admission rules, as the API server would
// on create; call Default first. It is the admission path of `trainerctl validate` (the CRD
// rules, the webhooks and every plugin's rules), so both report the same field errors. For a
// TrainJob, context holds the runtimes (and existing objects such as a PriorityClass) it is
// checked against; it may be the document's own list, and nil is an empty list. A runtime that
// context lacks is reported as a warning naming it; a TrainingRuntime of that name that context
// holds only in another namespace rejects the TrainJob.
//
// It returns the admission warnings (also when the document is rejected) and, on rejection, an
// *Error with CodeInvalid whose Fields list every violation. Kinds other than the three Trainer
// kinds fail with CodeUnsupported.
func (d *Document) Validate(context *DocumentList) ([]string, error) {
	return d.ValidateWith(context, nil)
}

// ValidateWith is Validate with the plugins of fw (nil: the built-in plugins, gates off, as
// Validate): a plugin's Validator errors reject the document with their field paths, like the
// built-in plugins' errors.
func (d *Document) ValidateWith(context *DocumentList, fw *Framework) ([]string, error) {
	cfw, unlockFw, err := fw.use()
	if err != nil {
		return nil, err
	}
	defer unlockFw()
	unlock := rlockPair(d.list, context)
	defer unlock()
	doc := d.doc()
	if doc == nil || (context != nil && context.ptr == nil) {
		return nil, errClosed()
	}
	var cctx *C.trainer_document_list
	if context != nil {
		cctx = context.ptr
	}
	var res *C.trainer_validation
	var cerr *C.trainer_error
	st := C.trainer_document_validate_with(doc, cctx, cfw, &res, &cerr)
	var warnings []string
	if res != nil {
		if n := int(C.trainer_validation_warning_count(res)); n > 0 {
			warnings = make([]string, n)
			for i := range warnings {
				warnings[i] = optString(C.trainer_validation_warning(res, C.size_t(i)))
			}
		}
		C.trainer_validation_free(res)
	}
	return warnings, takeError(st, cerr)
}

// Encode writes the document as text. Typed documents come out in upstream's field order with
// empty optional fields omitted; untyped ones keep their key order.
func (d *Document) Encode(f Format) ([]byte, error) {
	d.list.mu.RLock()
	defer d.list.mu.RUnlock()
	doc := d.doc()
	if doc == nil {
		return nil, errClosed()
	}
	var buf C.trainer_buffer
	var cerr *C.trainer_error
	st := C.trainer_document_encode(doc, C.trainer_format(f), &buf, &cerr)
	if err := takeError(st, cerr); err != nil {
		C.trainer_buffer_free(&buf)
		return nil, err
	}
	return takeBuffer(&buf), nil
}

// rlockPair read-locks a (and b when it is another non-nil list) in a global order, so that two
// goroutines validating across the same two lists cannot deadlock behind a pending writer.
func rlockPair(a, b *DocumentList) (unlock func()) {
	if b == nil || b == a {
		a.mu.RLock()
		return a.mu.RUnlock
	}
	first, second := a, b
	if second.id < first.id {
		first, second = second, first
	}
	first.mu.RLock()
	second.mu.RLock()
	return func() {
		second.mu.RUnlock()
		first.mu.RUnlock()
	}
}
