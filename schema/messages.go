package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/internal/text"
)

// Friendlier words for the schema's own patterns, keyed by the bound text
// CUE prints.
var boundWords = map[string]string{
	`=~"^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"`: `want a positive duration such as "90s", "30m" or "1h30m"`,
	`!~"^[0.]+(ns|us|µs|ms|s|m|h)$"`:                 `want a duration greater than zero`,
	`=~"^[A-Za-z0-9][A-Za-z0-9_.-]*$"`:               `want a name of letters, digits, "_", "." or "-"`,
	`=~"^[^<>]+$"`:                                   `a promise is plain text without "<" or ">"`,
	`!~"^/"`:                                         `want a path relative to the repository root`,
	`!~"(^|/)\\.\\.(/|$)"`:                           `want a path inside the repository (no "..")`,
	`=~"^[A-Za-z_][A-Za-z0-9_]*$"`:                   `want an environment variable name`,
	`!=""`:                                           `must not be empty`,
	`>=1`:                                            `want a number of at least 1`,
	`>=0`:                                            `want a number of at least 0`,
	`>0`:                                             `want a number greater than 0`,
}

var (
	reMismatch   = lazyregexp.New(`^conflicting values .+ \(mismatched types (\S+) and (\S+)\)$`)
	reConflict   = lazyregexp.New(`^conflicting values (.+) and (.+)$`)
	reOutOfBound = lazyregexp.New(`^invalid value (.+) \(out of bound (.+)\)$`)
	reNotSatisfy = lazyregexp.New(`^invalid value (.+) \(does not satisfy (.+)\)$`)
	reDisjHeader = lazyregexp.New(`^\d+ errors in empty disjunction:?$`)
	reListLen    = lazyregexp.New(`^incompatible list lengths \(0 and \d+\)$`)
)

// summarize turns the raw CUE messages found at one path into the fewest
// messages a user can act on. user is the value the user wrote there and
// kind its type ("" if the user wrote nothing there).
func summarize(user, kind string, msgs []string) []string {
	var friendly, bounds, others, allowed []string
	var mismatch string
	for _, m := range msgs {
		switch {
		case reDisjHeader.MatchString(m):
		case reMismatch.MatchString(m):
			g := reMismatch.FindStringSubmatch(m)
			want := g[1]
			if want == kind {
				want = g[2]
			}
			mismatch = fmt.Sprintf("wrong type: got %s %s, want %s", kind, user, want)
		case reListLen.MatchString(m):
			others = append(others, "must not be empty")
		case reOutOfBound.MatchString(m):
			g := reOutOfBound.FindStringSubmatch(m)
			if w, ok := boundWords[g[2]]; ok {
				friendly = append(friendly, fmt.Sprintf("invalid value %s: %s", g[1], w))
			} else {
				bounds = append(bounds, m)
			}
		case reNotSatisfy.MatchString(m):
			g := reNotSatisfy.FindStringSubmatch(m)
			bounds = append(bounds, fmt.Sprintf("invalid value %s: not a valid %s", g[1], g[2]))
		case reConflict.MatchString(m):
			g := reConflict.FindStringSubmatch(m)
			for _, v := range g[1:] {
				if v != user {
					allowed = append(allowed, v)
				}
			}
			others = append(others, m)
		default:
			others = append(others, m)
		}
	}
	switch {
	case len(friendly) > 0: // the default disjunct's conflict is noise then
		return dedupe(friendly)
	case len(bounds) > 0:
		return dedupe(bounds)
	case mismatch != "":
		return []string{mismatch}
	case len(allowed) > 1 && user != "":
		sort.Strings(allowed)
		return []string{fmt.Sprintf("%s is not allowed; want one of %s", user, strings.Join(dedupe(allowed), ", "))}
	}
	return dedupe(others)
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// suggest returns the allowed name closest to name, if it is close.
func suggest(name string, allowed []string) string { return text.Suggest(name, allowed) }
