package layers

import (
	"bytes"
	"path"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// Go's test configuration lives inside its test files: a TestMain decides
// whether a package's tests run at all (it may exit 0 before them), an
// init may exit before them, and a build constraint (//go:build, or the
// older // +build) decides whether a test file is compiled. Every
// *_test.go file is therefore also guarded by a view of those parts only
// ([goTestView]), whatever the stage may do to tests: in a stage with
// allow_test_changes: true, new test functions in an existing file pass,
// while a TestMain added or edited, an init added, or a build constraint
// added or changed rejects the claim, naming the file as
// "calc/calc_test.go (test configuration)". A new test file with a
// TestMain or an exiting init is judged by [StopsTests]. The build tags
// a verification command passes (-tags) are part of the command, guarded
// with the spec's front matter or the config file.

// isGoTest tells a Go test file that the go tool compiles: *_test.go
// outside testdata/ and vendor/, whose name does not start with _ or .
// (which the go tool ignores).
func isGoTest(rel string) bool {
	base := path.Base(rel)
	if !strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".") {
		return false
	}
	for _, d := range strings.Split(path.Dir(rel), "/") {
		if d == "testdata" || d == "vendor" {
			return false
		}
	}
	return true
}

var (
	goConstraint = lazyregexp.New(`^//\s*(go:build|\+build)\b`)
	goPackage    = lazyregexp.New(`^package\s`)
	goConfigFunc = lazyregexp.New(`^func\s+(TestMain|init)\s*\(`)
	goTopLevel   = lazyregexp.New(`^\S`)
)

// goTestView keeps what in a Go test file decides whether its package's
// tests run: the build constraints above its package clause, and the
// whole text of its TestMain and init functions, trimmed, without blank
// lines. A file without any of them has an empty view; new tests,
// helpers and edits of test bodies leave the view as it was.
func goTestView(content []byte) []byte {
	var b bytes.Buffer
	header, in := true, false
	for _, line := range strings.Split(string(content), "\n") {
		line = strings.TrimRight(line, " \t\r")
		switch {
		case header && goPackage.MatchString(line):
			header = false
		case header:
			if goConstraint.MatchString(line) {
				b.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
			}
			continue
		}
		if in && goTopLevel.MatchString(line) && !strings.HasPrefix(line, "}") && !strings.HasPrefix(line, ")") {
			in = false // a function ends at its closing brace; this is the next declaration
		}
		if goConfigFunc.MatchString(line) {
			in = true
		}
		if in && strings.TrimSpace(line) != "" {
			b.WriteString(strings.TrimSpace(line) + "\n")
		}
		if in && line == "}" {
			in = false
		}
	}
	return b.Bytes()
}
