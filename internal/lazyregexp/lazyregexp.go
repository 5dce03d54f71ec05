// Package lazyregexp holds package-level regular expressions that are
// compiled on their first use instead of at program start.
//
// Every agent and verification command runs under a shepherd, which is
// ralph-ci started again, so every package-level regexp.MustCompile of
// the binary was paid once per command: in a delivery rotation at one
// spec, 2.4 ms of the 5.1 ms of package initialisation
// (GODEBUG=inittrace=1 ralph-ci --version; pipeline/layers alone 1.1 ms
// and 4,950 allocations), though a shepherd matches none of them.
// A New at package level costs nothing at start (the compiler lays the
// value out statically); cmd/ralph-ci's TestInitAllocations keeps it so.
//
// The methods are those of regexp.Regexp the module uses; add one when
// a caller needs it.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled at its first use.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// New returns the expression of pattern, compiled (with
// regexp.MustCompile: a bad pattern panics) when first used.
func New(pattern string) *Regexp {
	return &Regexp{pattern: pattern}
}

// Re is the compiled expression, for what the methods below leave out.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.pattern) })
	return r.re
}

// String is the pattern, without compiling it.
func (r *Regexp) String() string { return r.pattern }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Re().MatchString(s) }

// Match is regexp.Regexp.Match.
func (r *Regexp) Match(b []byte) bool { return r.Re().Match(b) }

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.Re().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Re().FindStringIndex(s) }

// FindIndex is regexp.Regexp.FindIndex.
func (r *Regexp) FindIndex(b []byte) []int { return r.Re().FindIndex(b) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Re().FindStringSubmatchIndex(s)
}

// FindSubmatch is regexp.Regexp.FindSubmatch.
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.Re().FindSubmatch(b) }

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Re().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Re().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Re().ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}

// Split is regexp.Regexp.Split.
func (r *Regexp) Split(s string, n int) []string { return r.Re().Split(s, n) }
