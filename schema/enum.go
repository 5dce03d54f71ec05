package schema

import (
	"fmt"
	"slices"

	"cuelang.org/go/cue"
)

// Enum lists, sorted, the strings of a definition that is a disjunction
// of string literals, such as #Method or #Format: the lists the Go
// registries are held equal to.
func (s *Schema) Enum(name string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.definition(name)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	op, args := v.Expr()
	if op != cue.OrOp {
		args = []cue.Value{v}
	}
	var out []string
	for _, a := range args {
		str, err := a.String()
		if err != nil {
			return nil, fmt.Errorf("schema %s: not a disjunction of strings: %w", name, err)
		}
		out = append(out, str)
	}
	slices.Sort(out)
	return out, nil
}
