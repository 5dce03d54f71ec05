package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
)

//go:embed *.cue
var cueFiles embed.FS

// Schema is the compiled set of CUE definitions embedded in the binary.
// It is safe for concurrent use: each load builds its own values.
type Schema struct {
	mu  sync.Mutex // cue.Context is not safe for concurrent use
	ctx *cue.Context
	v   cue.Value
	// files counts the files checked in ctx: a cue.Context keeps what was
	// built in it alive (about 12 KiB per front matter), so it is replaced
	// by a fresh one every recycleAfter files.
	files int
}

// recycleAfter is the number of files checked in one cue.Context before
// it is replaced: compiling the schema again costs about as much as
// checking ten front matters, and the heap it frees is what the garbage
// collector would otherwise mark again on every cycle of a long run.
const recycleAfter = 256

var (
	compiled     *Schema
	compiledErr  error
	compiledOnce sync.Once
)

// Compiled returns the embedded schema, compiling it on first use.
func Compiled() (*Schema, error) {
	compiledOnce.Do(func() { compiled, compiledErr = compile() })
	return compiled, compiledErr
}

func compile() (*Schema, error) {
	ctx := cuecontext.New()
	inst := build.NewContext().NewInstance("schema", nil)
	names, err := fs.Glob(cueFiles, "*.cue")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		src, err := cueFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile("schema/"+name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("embedded schema %s: %w", name, err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return nil, fmt.Errorf("embedded schema %s: %w", name, err)
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	return &Schema{ctx: ctx, v: v}, nil
}

// checked counts one file checked, and starts a fresh context when the
// current one has held enough. s.mu must be held; no cue.Value built in
// the old context may be unified with the new one.
func (s *Schema) checked() {
	if s.files++; s.files < recycleAfter {
		return
	}
	if fresh, err := compile(); err == nil { // it compiled once: it compiles again
		s.ctx, s.v, s.files = fresh.ctx, fresh.v, 0
	}
}

// definition returns the named definition, e.g. "#Config".
func (s *Schema) definition(name string) cue.Value {
	return s.v.LookupPath(cue.ParsePath(name))
}

// Fresh compiles the embedded schema into a value of its own, with the doc
// comments of every field: for readers of the schema itself, such as the
// generated reference, which must not share the checks' cue.Context.
func Fresh() (cue.Value, error) {
	s, err := compile()
	if err != nil {
		return cue.Value{}, err
	}
	return s.v, nil
}
