package schema

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// typoBase is a front matter that uses every kind of field: each key of it
// can be misspelt by the typo tests.
const typoBase = `---
id: auth
title: JWT authentication
completion:
  outcome: "All API endpoints require valid JWT tokens"
  acceptance_criteria:
    - "Invalid tokens return 401"
  coder:
    promise: AUTH_IMPLEMENTED
    description: "Authentication code complete"
    verification_method: external
    verification_config:
      command: "go test ./auth/..."
      success_exit_code: 0
      timeout: 300
    max_iterations: 15
  reviewer:
    promise: REVIEWED
    description: "Reviewed"
    verification_method: semantic
    verification_config:
      check_for: ["no TODO"]
contracts:
  - name: login
    verification: verify
    steps: ["curl -X POST /login"]
---
# body
`

var keyLine = regexp.MustCompile(`^(\s*(?:- )?)([a-z_]+):`)

// typoKeys are the lines of typoBase that hold a key.
func typoKeys() []int {
	var lines []int
	for i, l := range strings.Split(typoBase, "\n") {
		if keyLine.MatchString(l) {
			lines = append(lines, i)
		}
	}
	return lines
}

// misspell drops one letter of the key on each of lines (the letter at
// drop[i] modulo its length, never leaving it empty) and returns the text
// and the misspelt keys by line.
func misspell(lines []int, drop []int) (string, map[int]string) {
	src := strings.Split(typoBase, "\n")
	typos := map[int]string{}
	for i, l := range lines {
		m := keyLine.FindStringSubmatch(src[l])
		key := m[2]
		j := drop[i] % len(key)
		typo := key[:j] + key[j+1:]
		if typo == "" || typo == key {
			continue
		}
		src[l] = m[1] + typo + src[l][len(m[0])-1:]
		typos[l] = typo
	}
	return strings.Join(src, "\n"), typos
}

// checkTypos: every misspelt key is reported as an unknown field on its
// own line (1-based: the line index in the file), whatever else is wrong,
// and no problem is an internal error.
func checkTypos(t *testing.T, src string, typos map[int]string) {
	t.Helper()
	_, err := LoadFrontMatter("specs/t.spec.md", []byte(src))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		t.Fatalf("want problems, got %v\n%s", err, src)
	}
	for _, p := range ps {
		if strings.Contains(p.Msg, "internal error") || p.Line == 0 {
			t.Fatalf("problem without a place or internal: %s\n%s", p, src)
		}
	}
	lines := strings.Split(src, "\n")
	for line, typo := range typos {
		if typoIsAKey(typo) || underTypo(lines, line, typos) || optionOfUnknownMethod(lines, line, typos) {
			continue // another valid key, or inside a misspelt key: nothing to judge it by
		}
		found := false
		for _, p := range ps {
			found = found || (p.Line == line+1 && strings.Contains(p.Msg, fmt.Sprintf("unknown field %q", typo)))
		}
		if !found {
			t.Errorf("the typo %q on line %d is not reported there; problems:\n%s\n%s", typo, line+1, ps, src)
		}
	}
}

// underTypo tells whether line lies inside a misspelt key of an outer
// line (one less indented above it).
func underTypo(lines []string, line int, typos map[int]string) bool {
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " -")) }
	in := indent(lines[line])
	for l := line - 1; l >= 0 && in > 0; l-- {
		if strings.TrimSpace(lines[l]) == "" || indent(lines[l]) >= in {
			continue
		}
		if _, ok := typos[l]; ok {
			return true
		}
		in = indent(lines[l])
	}
	return false
}

// optionOfUnknownMethod tells whether line is an option of a
// verification_config whose verification_method is misspelt: which
// options exist depends on the method.
func optionOfUnknownMethod(lines []string, line int, typos map[int]string) bool {
	for l := line - 1; l >= 0 && l >= line-4; l-- {
		if strings.Contains(lines[l], "verification_config:") {
			for _, typo := range typos {
				if strings.HasPrefix(typo, "verif") || strings.HasSuffix(typo, "_method") {
					return true
				}
			}
		}
	}
	return false
}

func typoIsAKey(s string) bool {
	for _, k := range []string{"id", "title", "name", "steps", "model", "judge", "guard", "stages", "method", "config", "required", "qa", "tester"} {
		if s == k {
			return true
		}
	}
	return false
}

// Every pair of misspelt keys is reported, each at its line: the internal
// CUE error ("Selector.Unquoted invoked on non-string label") came from
// two typos at once.
func TestTwoTyposAtOnce(t *testing.T) {
	keys := typoKeys()
	for a := 0; a < len(keys); a++ {
		for b := a + 1; b < len(keys); b++ {
			src, typos := misspell([]int{keys[a], keys[b]}, []int{a + b, 2*a + 1})
			checkTypos(t, src, typos)
		}
	}
}

// Two and three typos at once, anywhere, anyhow: each is reported at its
// line, and nothing is an internal error.
func FuzzFrontMatterTypos(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(13), uint8(0), uint8(1), uint8(4), uint8(2))
	f.Add(uint8(9), uint8(3), uint8(20), uint8(5), uint8(7), uint8(1), uint8(3))
	f.Add(uint8(1), uint8(10), uint8(11), uint8(2), uint8(2), uint8(2), uint8(3))
	f.Fuzz(func(t *testing.T, a, b, c, da, db, dc, n uint8) {
		keys := typoKeys()
		picked := []int{keys[int(a)%len(keys)], keys[int(b)%len(keys)], keys[int(c)%len(keys)]}
		drops := []int{int(da), int(db), int(dc)}
		count := 2 + int(n)%2
		seen := map[int]bool{}
		var lines, drop []int
		for i := 0; i < count; i++ {
			if !seen[picked[i]] {
				seen[picked[i]] = true
				lines, drop = append(lines, picked[i]), append(drop, drops[i])
			}
		}
		src, typos := misspell(lines, drop)
		checkTypos(t, src, typos)
	})
}
