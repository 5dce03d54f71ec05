package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// A guard per test. A test file is not frozen whole: it is split into
// units, each test with its decorators or attributes (recognised by the
// registry's TestStart patterns, verify.SyntaxOf), each other top-level
// statement (a helper, a fixture, module code), the head of a group of
// tests (a describe, a test class, a mod tests) apart from the tests in
// it, and each name an import brings in. The file's guard item holds the
// set of its units' hashes ([UnitSet]); a rotation may add units (a new
// test beside the others, in an existing file or group, a new import or
// helper), but every unit of the stage's start must still be there,
// byte for byte (leading indentation and blank lines aside): a test's
// body edited, skipped, renamed or deleted rejects the claim, naming it.
// The layout is read from indentation, which every formatter keeps.

// Unit is one piece of a test file.
type Unit struct {
	// Name is the test's (or helper's) name as its head says it
	// ("test_div", "TestDiv", "divides by zero"); an import's entry.
	Name string
	Line int // its first line, from 1
	// Lines are the numbers of the lines of Text, from 1 (none for an
	// import's entry).
	Lines []int
	Text  string
	Test  bool // a test, not other code
}

// Hash is the unit's short hash in a [UnitSet].
func (u Unit) Hash() string {
	h := sha256.Sum256([]byte(u.Text))
	return hex.EncodeToString(h[:8])
}

// node is a line with the lines indented under it.
type node struct {
	head     []int // attribute or decorator lines, then its first line
	closers  []int // lines at its own indentation that close it
	indent   int
	children []*node
	test     bool
	hasTest  bool
}

var (
	attrLine   = lazyregexp.New(`^\s*(@|#\[)`)
	closerLine = lazyregexp.New(`^\s*([})\]]|end\b)`)
)

// Units splits a test file's content into its units, with the syntax of
// its runners ([verify.SyntaxOf]).
func Units(content []byte, syn verify.Syntax) []Unit {
	lines := strings.Split(string(content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	var roots []*node
	var stack []*node
	var attrs []int
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		d := indentOf(l)
		if attrLine.MatchString(l) && !closerLine.MatchString(l) {
			attrs = append(attrs, i)
			continue
		}
		closed := false
		for len(stack) > 0 && stack[len(stack)-1].indent >= d && !closed {
			top := stack[len(stack)-1]
			if top.indent == d && closerLine.MatchString(l) && len(attrs) == 0 {
				top.closers, closed = append(top.closers, i), true
			}
			stack = stack[:len(stack)-1]
		}
		if closed {
			continue
		}
		n := &node{head: append(attrs, i), indent: d}
		attrs = nil
		for _, h := range n.head {
			n.test = n.test || slices.ContainsFunc(syn.Start, func(re *regexp.Regexp) bool { return re.MatchString(lines[h]) })
		}
		if len(stack) > 0 {
			p := stack[len(stack)-1]
			p.children = append(p.children, n)
		} else {
			roots = append(roots, n)
		}
		stack = append(stack, n)
	}
	if len(attrs) > 0 { // decorators at the end of the file
		roots = append(roots, &node{head: attrs})
	}
	var out []Unit
	for _, r := range roots {
		markTests(r)
		out = append(out, unitsOf(r, lines)...)
	}
	return out
}

func indentOf(l string) int {
	d := 0
	for _, r := range l {
		switch r {
		case ' ':
			d++
		case '\t':
			d += 4
		default:
			return d
		}
	}
	return d
}

func markTests(n *node) bool {
	n.hasTest = n.test
	for _, c := range n.children {
		if markTests(c) {
			n.hasTest = true
		}
	}
	return n.hasTest
}

// unitsOf is n's units: n whole when it is a test or holds none, else
// its head and closing lines, then its children's units.
func unitsOf(n *node, lines []string) []Unit {
	if n.test || !n.hasTest {
		var idx []int
		collect(n, &idx)
		if entries, ok := importEntries(lines, idx); ok {
			out := make([]Unit, len(entries))
			for i, e := range entries {
				out[i] = Unit{Name: e, Line: n.head[0] + 1, Text: "import " + e + "\n"}
			}
			return out
		}
		return []Unit{{Name: nameOf(lines[n.head[len(n.head)-1]]), Line: n.head[0] + 1, Lines: numbers(idx), Text: textOf(lines, idx), Test: n.test}}
	}
	out := []Unit{{Name: nameOf(lines[n.head[len(n.head)-1]]), Line: n.head[0] + 1, Text: textOf(lines, append(slices.Clone(n.head), n.closers...))}}
	for _, c := range n.children {
		out = append(out, unitsOf(c, lines)...)
	}
	return out
}

func numbers(idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = j + 1
	}
	return out
}

// collect appends the lines of n's subtree, in order.
func collect(n *node, idx *[]int) {
	*idx = append(*idx, n.head...)
	for _, c := range n.children {
		collect(c, idx)
	}
	*idx = append(*idx, n.closers...)
	slices.Sort(*idx)
}

// textOf is the lines idx, trimmed, one per line.
func textOf(lines []string, idx []int) string {
	var b strings.Builder
	for _, i := range idx {
		b.WriteString(strings.TrimSpace(lines[i]) + "\n")
	}
	return b.String()
}

var (
	defName    = lazyregexp.New(`\b(?:def|func|fn|class|function|mod)\s+(?:\([^)]*\)\s*)?(\w+)`)
	quotedName = lazyregexp.New("[\"'`]([^\"'`]+)[\"'`]")
	wordName   = lazyregexp.New(`[\w.]+`)
)

// nameOf is the name a unit's head gives it: the declared name, else the
// first quoted title, else its first word.
func nameOf(head string) string {
	if m := defName.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	if m := quotedName.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	return wordName.FindString(head)
}

var (
	pyFrom     = lazyregexp.New(`^from\s+([\w.]+)\s+import\s+\(?([^()]*)\)?$`)
	pyImport   = lazyregexp.New(`^import\s+([\w., ]+)$`)
	esImport   = lazyregexp.New(`^import\s+(?:type\s+)?(.*?)\s+from\s+["']([^"']+)["'];?$`)
	cjsRequire = lazyregexp.New(`^(?:const|let|var)\s+(\{[^}]*\}|\w+)\s*=\s*require\(["']([^"']+)["']\);?$`)
	goImport   = lazyregexp.New(`^import\s*\((.*)\)$|^import\s+((?:\w+\s+)?"[^"]+")$`)
	goPath     = lazyregexp.New(`(?:[\w.]+\s+)?"[^"]+"`)
	rustUse    = lazyregexp.New(`^use\s+([\w:]+?)(?:::\{([^}]*)\})?;$`)
)

// importEntries reads an import statement (lines idx, joined) as one
// entry per name it brings in, so that names may be added to it while
// those it held stay: "calc: div", "import pytest".
func importEntries(lines []string, idx []int) ([]string, bool) {
	parts := make([]string, len(idx))
	for i, j := range idx {
		parts[i] = strings.TrimSpace(lines[j])
	}
	s := strings.Join(parts, " ")
	split := func(module, names string) []string {
		var out []string
		for _, n := range strings.Split(strings.Trim(names, "{} "), ",") {
			if n = strings.Join(strings.Fields(n), " "); n != "" {
				out = append(out, module+": "+n)
			}
		}
		return out
	}
	switch {
	case pyFrom.MatchString(s):
		m := pyFrom.FindStringSubmatch(s)
		return split(m[1], m[2]), true
	case pyImport.MatchString(s):
		return split("python", pyImport.FindStringSubmatch(s)[1]), true
	case esImport.MatchString(s):
		m := esImport.FindStringSubmatch(s)
		var out []string
		clause := m[1]
		if i := strings.Index(clause, "{"); i >= 0 {
			out = append(out, split(m[2], clause[i:])...)
			clause = strings.Trim(clause[:i], ", ")
		}
		if clause != "" {
			out = append(out, m[2]+": default "+clause)
		}
		return out, true
	case cjsRequire.MatchString(s):
		m := cjsRequire.FindStringSubmatch(s)
		return split(m[2], m[1]), true
	case goImport.MatchString(s):
		m := goImport.FindStringSubmatch(s)
		var out []string
		for _, p := range goPath.FindAllString(m[1]+m[2], -1) {
			out = append(out, "go: "+strings.Join(strings.Fields(p), " "))
		}
		return out, true
	case rustUse.MatchString(s):
		m := rustUse.FindStringSubmatch(s)
		if m[2] == "" {
			return []string{"use: " + m[1]}, true
		}
		return split(m[1], m[2]), true
	}
	return nil, false
}

// UnitSetPrefix starts the hash of a test file's guard item: the set of
// its units' hashes.
const UnitSetPrefix = "units:"

// UnitSet is the guard hash of a test file's units: each unit as
// "hash=name", sorted, after [UnitSetPrefix].
func UnitSet(units []Unit) string {
	entries := make([]string, len(units))
	for i, u := range units {
		entries[i] = u.Hash() + "=" + unitName(u.Name)
	}
	slices.Sort(entries)
	return UnitSetPrefix + strings.Join(slices.Compact(entries), ",")
}

// Gone lists the names of the units of was (a [UnitSet]) that now (one
// too, or "" for a file deleted) no longer holds, sorted; all is false
// when either is not a unit set (compare them whole then).
func Gone(was, now string) (gone []string, ok bool) {
	w, wok := strings.CutPrefix(was, UnitSetPrefix)
	n, nok := strings.CutPrefix(now, UnitSetPrefix)
	if !wok || (!nok && now != "") {
		return nil, false
	}
	have := map[string]bool{}
	for _, e := range strings.Split(n, ",") {
		have[e] = true
	}
	for _, e := range strings.Split(w, ",") {
		if e != "" && !have[e] {
			_, name, _ := strings.Cut(e, "=")
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return slices.Compact(gone), true
}

// AddedUnits lists the units of units whose hash was does not hold: what a
// rotation added to a test file (all of them when was is "": a new file).
// A unit whose name was has under another hash is a changed one, not
// added.
func AddedUnits(was string, units []Unit) []Unit {
	w, _ := strings.CutPrefix(was, UnitSetPrefix)
	have := map[string]bool{}
	for _, e := range strings.Split(w, ",") {
		h, name, _ := strings.Cut(e, "=")
		have[h], have["="+name] = true, true
	}
	var out []Unit
	for _, u := range units {
		if !have[u.Hash()] && !have["="+unitName(u.Name)] {
			out = append(out, u)
		}
	}
	return out
}

// unitName is a unit's name as a UnitSet holds it.
func unitName(name string) string { return strings.NewReplacer(",", " ", "\n", " ").Replace(name) }

// MarkedTests lists the units that a marker of syn keeps from counting as
// passed (a test, or what holds tests: a describe.skip, a module's
// pytestmark), each as "LINE: NAME is WHAT (MARKER)". A marker under a
// condition (skipif, skipIf, a line under an if) may not apply here and
// is left to the test report.
func MarkedTests(units []Unit, syn verify.Syntax) []string {
	var out []string
	for _, u := range units {
		text := strings.Split(strings.TrimSuffix(u.Text, "\n"), "\n")
		for i, l := range text {
			for _, m := range syn.Markers {
				hit := m.Re.FindString(l)
				if hit == "" || conditional(hit) || i > 0 && strings.HasPrefix(text[i-1], "if ") || strings.HasPrefix(l, "if ") {
					continue
				}
				line := u.Line
				if i < len(u.Lines) {
					line = u.Lines[i]
				}
				out = append(out, fmt.Sprintf("%d: %s is %s (%s)", line, u.Name, m.What, strings.TrimSpace(hit)))
				break
			}
		}
	}
	return out
}

func conditional(marker string) bool {
	low := strings.ToLower(marker)
	return strings.Contains(low, "if") || strings.Contains(low, "unless")
}
