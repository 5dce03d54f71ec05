package schema

import (
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
)

const notAllowedMsg = "field not allowed"

// maxPasses bounds how often validate re-checks the data.
const maxPasses = 8

// validate unifies data with def and returns every problem.
//
// CUE reports only some errors of a struct once one of its values is
// wrong (a typo next to a bad value, a missing field next to a typo), so a
// single pass would make users fix one thing at a time. Each further pass
// removes the fields that already have problems from a copy of the data
// and validates again, until nothing new turns up. Positions always come
// from the user's original data.
func (s *Schema) validate(filename string, def, data cue.Value) (cue.Value, Problems) {
	v := def.Unify(data)
	err := v.Validate(cue.Concrete(true))
	if err == nil {
		return v, nil
	}
	all := withStray(s.problems(filename, data, v, err), strayFields(filename, def, data, nil))
	var tree any
	if data.Decode(&tree) != nil {
		return v, withoutEchoes(all) // not plain data (e.g. a CUE file with expressions)
	}
	for pass := 1; pass < maxPasses; pass++ {
		for _, p := range all {
			deletePath(tree, strings.Split(p.Path, "."))
		}
		next := def.Unify(s.ctx.Encode(tree))
		err := next.Validate(cue.Concrete(true))
		if err == nil {
			break
		}
		var fresh Problems
		for _, p := range s.problems(filename, data, next, err) {
			if !covered(all, p.Path) {
				fresh = append(fresh, p)
			}
		}
		if len(fresh) == 0 {
			break
		}
		all = append(all, fresh...)
	}
	return v, withoutEchoes(all).sorted()
}

// withoutEchoes drops CUE's "unresolved disjunction" reports: they echo a
// wrong value that another problem already names (a comparison with an
// unknown verification method, say).
func withoutEchoes(ps Problems) Problems {
	var out Problems
	for _, p := range ps {
		if !strings.HasPrefix(p.Msg, "unresolved disjunction") {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return ps
	}
	return out
}

// covered reports whether path is, or is inside, a path already reported.
func covered(ps Problems, path string) bool {
	for _, p := range ps {
		if path == p.Path || p.Path == "" || strings.HasPrefix(path, p.Path+".") {
			return true
		}
	}
	return false
}

// unknownField words a closedness error, suggesting the closest allowed
// name.
func unknownField(unified cue.Value, path []string) string {
	if len(path) == 0 {
		return notAllowedMsg
	}
	name := path[len(path)-1]
	msg := fmt.Sprintf("unknown field %q", name)
	parent := unified.LookupPath(cue.MakePath(selectors(path[:len(path)-1])...))
	if sug := suggest(name, fieldNames(parent, name)); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	return msg
}

// missing words an incomplete value the user did not write: the first
// field of path missing from data is required, or a list must not be
// empty.
func missing(data cue.Value, path []string) (string, string) {
	sels := selectors(path)
	n := 0
	for n < len(sels) && data.LookupPath(cue.MakePath(sels[:n+1]...)).Exists() {
		n++
	}
	if n < len(path) {
		if _, err := strconv.Atoi(path[n]); err == nil && n > 0 {
			return strings.Join(path[:n], "."), "must not be empty"
		}
		return strings.Join(path[:n+1], "."), "missing required field"
	}
	return strings.Join(path, "."), "missing required field"
}

// deletePath removes the value at path from a decoded JSON-like tree.
func deletePath(tree any, path []string) {
	for i, elem := range path {
		last := i == len(path)-1
		switch t := tree.(type) {
		case map[string]any:
			if last {
				delete(t, elem)
				return
			}
			tree = t[elem]
		case []any:
			n, err := strconv.Atoi(elem)
			if err != nil || n < 0 || n >= len(t) {
				return
			}
			if last {
				t[n] = ast.NewIdent("_") // top: keeps later indexes in place
				return
			}
			tree = t[n]
		default:
			return
		}
	}
}

// fieldNames lists the fields a struct value allows, except skip.
func fieldNames(v cue.Value, skip string) []string {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var names []string
	for it.Next() {
		sel := it.Selector()
		if sel.LabelType() != cue.StringLabel { // a pattern or an index: not a name to suggest
			continue
		}
		if n := sel.Unquoted(); n != skip {
			names = append(names, n)
		}
	}
	return names
}
