package schema

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"
	cueyaml "cuelang.org/go/encoding/yaml"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// Format is the syntax of a user's file.
type Format string

// The formats a config or front matter may be written in.
const (
	YAML Format = "yaml"
	JSON Format = "json"
	CUE  Format = "cue"
)

// FormatOf picks the format from a file name's extension.
func FormatOf(filename string) (Format, error) {
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".yaml", ".yml":
		return YAML, nil
	case ".json":
		return JSON, nil
	case ".cue":
		return CUE, nil
	}
	return "", fmt.Errorf("%s: unknown config format; use a .yaml, .json or .cue file", filename)
}

// check parses src, unifies it with the definition def and validates it.
// On success the result is concrete and can be decoded into out, a pointer
// to a Go struct with json tags. Every problem names filename and the line
// in it.
func (s *Schema) check(def, filename string, format Format, src []byte, out any) (err error) {
	defer func() {
		// The CUE evaluator must never take the process down on user input.
		if r := recover(); r != nil {
			err = Problems{{File: filename, Msg: fmt.Sprintf("cannot evaluate this file (internal error: %v); please report it", r)}}
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.checked()

	src = stripBOM(src)
	data, err := s.parse(filename, format, src)
	if err != nil {
		return syntaxProblems(filename, src, err)
	}
	if ps := duplicateKeys(filename, format, src); len(ps) > 0 {
		return ps.sorted()
	}
	if err := data.Err(); err != nil {
		return s.problems(filename, data, data, err)
	}
	if k := data.IncompleteKind(); k == cue.TopKind || k == cue.NullKind {
		data = s.ctx.CompileString("{}", cue.Filename(filename)) // an empty document
	} else if k != cue.StructKind {
		return Problems{{File: filename, Line: 1, Col: 1, Msg: fmt.Sprintf("the top level must be a mapping of fields, not a %s", k)}}
	}
	v, ps := s.validate(filename, s.definition(def), data)
	if len(ps) > 0 {
		return ps
	}
	raw, err := v.MarshalJSON()
	if err != nil {
		return s.problems(filename, data, v, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return Problems{{File: filename, Msg: fmt.Sprintf("cannot decode: %v", err)}}
	}
	return nil
}

// parse turns the user's bytes into a CUE value, keeping positions in
// filename.
func (s *Schema) parse(filename string, format Format, src []byte) (cue.Value, error) {
	switch format {
	case YAML:
		f, err := cueyaml.Extract(filename, src)
		if err != nil {
			return cue.Value{}, err
		}
		return s.ctx.BuildFile(f), nil
	case JSON:
		expr, err := cuejson.Extract(filename, src)
		if err != nil {
			return cue.Value{}, err
		}
		if _, ok := expr.(*ast.StructLit); !ok {
			return cue.Value{}, cueerrors.Newf(expr.Pos(), "the top level must be an object")
		}
		return s.ctx.BuildExpr(expr, cue.Filename(filename)), nil
	case CUE:
		return s.ctx.CompileBytes(src, cue.Filename(filename)), nil
	}
	return cue.Value{}, fmt.Errorf("unknown format %q", format)
}

// syntaxProblems reports a parse error at its position in the user's file.
// Every problem has a line: one the parser left out is placed by
// placeLineless.
func syntaxProblems(filename string, src []byte, err error) Problems {
	var ps Problems
	for _, e := range cueerrors.Errors(err) {
		p := Problem{File: filename, Msg: message(e)}
		if p.Msg == "" || p.Msg == "%s" {
			p = plainSyntaxProblem(filename, e.Error())
		}
		setPos(&p, e.Position())
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		ps = Problems{plainSyntaxProblem(filename, err.Error())}
	}
	for i := range ps {
		if ps[i].Line == 0 {
			placeLineless(&ps[i], src)
		}
	}
	return ps.sorted()
}

// problems converts evaluation errors into problems located in the user's
// file: the error's own position when it is in that file, else the position
// of the deepest field of the path the user did write. Errors at one path
// are summarised into the fewest messages a user can act on.
func (s *Schema) problems(filename string, data, unified cue.Value, err error) Problems {
	type group struct {
		path []string
		pos  token.Pos
		msgs []string
	}
	var order []string
	groups := map[string]*group{}
	for _, e := range cueerrors.Errors(err) {
		path := userPath(e.Path())
		key := strings.Join(path, ".")
		g := groups[key]
		if g == nil {
			g = &group{path: path}
			groups[key] = g
			order = append(order, key)
		}
		if !g.pos.IsValid() {
			g.pos = userPosOf(filename, e)
		}
		g.msgs = append(g.msgs, message(e))
	}
	var ps Problems
	for _, key := range order {
		g := groups[key]
		pos, written := g.pos, true
		if !pos.IsValid() {
			pos = nearestPos(data, g.path)
			written = data.LookupPath(cue.MakePath(selectors(g.path)...)).Exists()
		}
		user, kind := "", ""
		if v := data.LookupPath(cue.MakePath(selectors(g.path)...)); written && v.Exists() {
			user, kind = fmt.Sprint(v), v.IncompleteKind().String()
		}
		for _, m := range summarize(user, kind, g.msgs) {
			path := key
			switch {
			case m == notAllowedMsg:
				m = unknownField(unified, g.path)
			case !written && strings.Contains(m, "incomplete value"):
				path, m = missing(data, g.path)
			}
			p := Problem{File: filename, Path: path, Msg: m}
			setPos(&p, pos)
			ps = append(ps, p)
		}
	}
	return ps.sorted()
}

// userPath drops the schema's definition name ("#Config") from a path.
func userPath(path []string) []string {
	if len(path) > 0 && strings.HasPrefix(path[0], "#") {
		return path[1:]
	}
	return path
}

// userPosOf is the first position of e in filename, if any.
func userPosOf(filename string, e cueerrors.Error) token.Pos {
	for _, pos := range append([]token.Pos{e.Position()}, e.InputPositions()...) {
		if pos.IsValid() && pos.Filename() == filename {
			return pos
		}
	}
	return token.NoPos
}

// nearestPos is the position of the longest prefix of path present in data.
func nearestPos(data cue.Value, path []string) token.Pos {
	sels := selectors(path)
	for n := len(sels); n >= 0; n-- {
		v := data.LookupPath(cue.MakePath(sels[:n]...))
		if v.Exists() && v.Pos().IsValid() {
			return v.Pos()
		}
	}
	return token.NoPos
}

func selectors(path []string) []cue.Selector {
	sels := make([]cue.Selector, 0, len(path))
	for _, elem := range path {
		sel := cue.ParsePath(elem)
		if sel.Err() != nil {
			sels = append(sels, cue.Str(elem))
			continue
		}
		sels = append(sels, sel.Selectors()...)
	}
	return sels
}

func setPos(p *Problem, pos token.Pos) {
	if pos.IsValid() {
		p.Line, p.Col = pos.Line(), pos.Column()
	}
}

// message is the error text without CUE's position suffixes.
func message(e cueerrors.Error) string {
	format, args := e.Msg()
	return fmt.Sprintf(format, args...)
}

// reFileLine matches "file:line: message" errors of the YAML parser.
var reFileLine = lazyregexp.New(`^(?:.*?):(\d+): (.+)$`)

// The file name the message may start with is dropped (the problem names
// the file itself).
func plainSyntaxProblem(filename, msg string) Problem {
	msg = strings.TrimPrefix(msg, filename+": ")
	p := Problem{File: filename, Msg: msg}
	if g := reFileLine.FindStringSubmatch(msg); g != nil {
		p.Line, _ = strconv.Atoi(g[1])
		p.Col = 1
		p.Msg = g[2]
	}
	return p
}

// ValidateJSON checks a JSON document that ralph-ci wrote itself (the
// state file, a report) against a definition such as "#State".
func ValidateJSON(def, filename string, src []byte) error {
	s, err := Compiled()
	if err != nil {
		return err
	}
	var out any
	return s.check(def, filename, JSON, src, &out)
}
