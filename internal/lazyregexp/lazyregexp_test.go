package lazyregexp

import (
	"slices"
	"testing"
)

// An expression is compiled at its first use, once, and answers as
// regexp.Regexp does.
func TestCompiledAtFirstUse(t *testing.T) {
	re := New(`(\w+)@(\w+)`)
	if re.re != nil {
		t.Fatal("New compiled the pattern")
	}
	if got := re.String(); got != `(\w+)@(\w+)` || re.re != nil {
		t.Fatalf("String = %q, compiled: %v", got, re.re != nil)
	}
	if !re.MatchString("a@b") || re.MatchString("ab") {
		t.Error("MatchString")
	}
	first := re.Re()
	if re.Re() != first {
		t.Error("compiled twice")
	}
	if got := re.FindStringSubmatch("x a@b y"); !slices.Equal(got, []string{"a@b", "a", "b"}) {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	if got := re.ReplaceAllString("a@b c@d", "$2@$1"); got != "b@a d@c" {
		t.Errorf("ReplaceAllString = %q", got)
	}
}

// A bad pattern panics at its first use, as regexp.MustCompile does.
func TestBadPatternPanicsWhenUsed(t *testing.T) {
	re := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	re.MatchString("x")
}
