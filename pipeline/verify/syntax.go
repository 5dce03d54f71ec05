package verify

import (
	"path"
	"regexp"
	"sync"
)

// Syntax is how the registry's runners write tests in files of one
// extension: the patterns that start a test, and the markers that keep
// one from counting as passed.
type Syntax struct {
	// Runners names the runners whose test files have the extension.
	Runners []string
	Start   []*regexp.Regexp
	Markers []Marker
}

// Marker is one compiled marker pattern and what it does to a test
// ("skipped", "expected to fail", "focused", "inverted", "a todo").
type Marker struct {
	What string
	Re   *regexp.Regexp
}

// SyntaxOf returns the syntax of the runners whose test files
// ([Runner.TestFiles]) have rel's extension; ok is false when none
// declares how a test starts there.
func SyntaxOf(rel string) (s Syntax, ok bool) {
	s, ok = syntaxes()[path.Ext(rel)]
	return s, ok
}

var syntaxes = sync.OnceValue(func() map[string]Syntax {
	out := map[string]Syntax{}
	for _, r := range runners {
		if IsNone(r.TestFiles) || IsNone(r.TestStart) {
			continue
		}
		exts := map[string]bool{}
		for _, f := range r.TestFiles {
			exts[path.Ext(f)] = true
		}
		for ext := range exts {
			s := out[ext]
			s.Runners = append(s.Runners, r.Name)
			for _, p := range r.TestStart {
				s.Start = append(s.Start, regexp.MustCompile(p))
			}
			for _, k := range r.Markers.All() {
				if IsNone(k.Patterns) {
					continue
				}
				for _, p := range k.Patterns {
					s.Markers = append(s.Markers, Marker{k.What, regexp.MustCompile(p)})
				}
			}
			out[ext] = s
		}
	}
	return out
})
