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
}

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

// definition returns the named definition, e.g. "#Config".
func (s *Schema) definition(name string) cue.Value {
	return s.v.LookupPath(cue.ParsePath(name))
}
