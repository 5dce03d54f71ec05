package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// oneOf is how a problem lists the allowed values of the definition def
// (#Method, #Format: generated from the registries): "a", "b", sorted.
func oneOf(t *testing.T, def string) string {
	t.Helper()
	s, err := Compiled()
	if err != nil {
		t.Fatal(err)
	}
	names, err := s.Enum(def)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = strconv.Quote(n)
	}
	return strings.Join(names, ", ")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
