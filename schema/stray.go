package schema

import (
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// strayFields reports every field of data that def does not allow, at its
// position, with the closest allowed name. CUE reports a closedness error
// only while the struct around the field evaluates, which another mistake
// beside it (a misspelt field that a comprehension of the schema compares)
// can prevent; walking the data against the schema finds every typo,
// whatever else is wrong.
func strayFields(filename string, def, data cue.Value, path []string) Problems {
	// A definition whose comprehensions compare a field not given yet
	// (verification_method) is an error as a whole, yet its fields resolve.
	if k := def.IncompleteKind(); (k != cue.StructKind && k != cue.BottomKind) || data.IncompleteKind() != cue.StructKind {
		return nil
	}
	it, err := data.Fields()
	if err != nil {
		return nil
	}
	var ps Problems
	for it.Next() {
		sel := it.Selector()
		if sel.LabelType() != cue.StringLabel {
			continue
		}
		name := sel.Unquoted()
		at := append(append([]string{}, path...), name)
		child := it.Value()
		sub := def.LookupPath(cue.MakePath(cue.Str(name)))
		if !sub.Exists() {
			sub = def.LookupPath(cue.MakePath(cue.Str(name).Optional()))
		}
		if !sub.Exists() {
			sub = def.LookupPath(cue.MakePath(cue.AnyString)) // a pattern: {[#Name]: #Agent}
		}
		if !sub.Exists() {
			msg := fmt.Sprintf("unknown field %q", name)
			if sug := suggest(name, fieldNames(def, name)); sug != "" {
				msg += fmt.Sprintf("; did you mean %q?", sug)
			}
			p := Problem{File: filename, Path: strings.Join(at, "."), Msg: msg}
			setPos(&p, labelPos(child))
			ps = append(ps, p)
			continue
		}
		ps = append(ps, strayIn(filename, sub, child, at)...)
	}
	return ps
}

// strayIn walks one value: a struct field by field, a list element by
// element against the schema's element.
func strayIn(filename string, def, data cue.Value, path []string) Problems {
	if data.IncompleteKind() != cue.ListKind {
		return strayFields(filename, def, data, path)
	}
	elem := def.LookupPath(cue.MakePath(cue.AnyIndex))
	if !elem.Exists() {
		return nil
	}
	list, err := data.List()
	if err != nil {
		return nil
	}
	var ps Problems
	for i := 0; list.Next(); i++ {
		ps = append(ps, strayFields(filename, elem, list.Value(), append(append([]string{}, path...), strconv.Itoa(i)))...)
	}
	return ps
}

// labelPos is where a field's name is written, else its value.
func labelPos(v cue.Value) token.Pos {
	if f, ok := v.Source().(*ast.Field); ok && f.Label != nil {
		return f.Label.Pos()
	}
	return v.Pos()
}

// withStray merges the stray-field problems into ps: CUE's own report of
// the same field, and its reports of what lies inside a stray field, are
// dropped.
func withStray(ps, stray Problems) Problems {
	if len(stray) == 0 {
		return ps
	}
	out := append(Problems{}, stray...)
	for _, p := range ps {
		inside := false
		for _, s := range stray {
			inside = inside || p.Path == s.Path || strings.HasPrefix(p.Path, s.Path+".")
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out.sorted()
}
