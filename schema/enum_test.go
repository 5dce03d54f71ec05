package schema

import (
	"strings"
	"testing"
)

func TestEnum(t *testing.T) {
	s, err := Compiled()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Enum("#Tier")
	if err != nil || strings.Join(got, ",") != "auto,verify" {
		t.Fatalf("#Tier: %q, %v", got, err)
	}
	if _, err := s.Enum("#Stage"); err == nil {
		t.Error("#Stage is no disjunction of strings, and Enum said nothing")
	}
}
