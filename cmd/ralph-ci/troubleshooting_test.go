package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// exitMessages are the messages ralph-ci exits with that a person meets,
// each with its entry in docs/troubleshooting.md: the door's errors (no
// config, no spec, a stage without an agent, the lock, a corrupt state),
// and every end of a run or a check with a code other than 1 (a failure)
// or 2 (a bad command line or config, which carry their own fix). The text
// is how the message starts in the source, so the table cannot drift from
// what the binary prints.
var exitMessages = []struct{ text, anchor string }{
	{"no config found", "no-config-found"},
	{"no such file (--config", "no-config-found"},
	{"several config files found", "several-config-files-found"},
	{"no specs found", "no-spec"},
	{"no valid spec left", "no-valid-spec-left"},
	{"has no agent: define one", "stage-has-no-agent"},
	{"every stage is disabled", "every-stage-is-disabled"},
	{"define at least one agent", "agents-define-at-least-one-agent"},
	{"is working on this repository; wait for it to finish", "another-ralph-ci-holds-the-lock"},
	{"is corrupt (", "the-state-is-corrupt"},
	{"out of iterations: ", "out-of-iterations"},
	{"stuck: %s taken out of the loop", "stuck"},
	{"max rotations (%d) reached", "a-limit-stopped-the-run"},
	{"wall-time budget (%s) reached", "a-limit-stopped-the-run"},
	{"cost budget ($%.2f) reached", "a-limit-stopped-the-run"},
	{"token budget (%d) reached", "a-limit-stopped-the-run"},
	{"did not converge: ", "out-of-iterations"},
	{"rate limited: pull requests %v are left for the next run", "a-limit-stopped-the-run"},
	{"is rate limited", "every-agent-of-the-pool-is-rate-limited"},
	{"awaiting the human checkpoint of the verify tier", "a-checkpoint-waits-for-an-answer"},
	{"checkpoint rejected; back to work", "a-checkpoint-was-rejected"},
	{"checkpoint rejected %d times; escalated", "a-checkpoint-was-rejected"},
	{"interrupted: state saved", "interrupted"},
	{"no box for the agent's processes", "box-no-box-for-the-agents-processes"},
}

// exitSite finds, in the source, the message of an exit with a code other
// than 0, 1 and 2: the code's name, then the first string literal after it
// on the line.
var exitSite = regexp.MustCompile(`exitcode\.(Limits|Stuck|Exhausted|AwaitHuman|Rejected|Escalated|Interrupted)\b[^"\n]*(?:fmt\.Sprintf\(|fmt\.Errorf\(|errors\.New\(|, )\s*"([^"]+)"`)

// TestTroubleshootingCoversEveryExit walks the exit-code table
// (exitcode.Uses) and the messages the binary exits with, and fails on
// one without an entry in docs/troubleshooting.md: every exit code has an
// entry that names it ("(exit N)"), every message of exitMessages is in
// the source and its entry exists, every exit with a code of its own in
// the source (exitSite) is in exitMessages or links its entry itself, and
// every link to a heading of a page (page.md#anchor) in the docs, the
// README and the source finds that heading.
func TestTroubleshootingCoversEveryExit(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := readDoc(t, filepath.Join(root, "docs", "troubleshooting.md"))
	anchors := headingAnchors(doc)

	codes := map[exitcode.Code]bool{}
	for _, u := range exitcode.Uses {
		codes[u.Code] = true
	}
	flat := strings.Join(strings.Fields(doc), " ")
	for code := range codes {
		if code == exitcode.OK {
			continue
		}
		if want := fmt.Sprintf("(exit %d)", code); !strings.Contains(flat, want) && !strings.Contains(flat, fmt.Sprintf("Exit %d", code)) {
			t.Errorf("exit %d (%s) has no entry in docs/troubleshooting.md: write one that says %q", code, code.Class(), want)
		}
	}

	source := goSource(t, root)
	for _, m := range exitMessages {
		if !strings.Contains(source, m.text) {
			t.Errorf("exitMessages: %q is not in the source any more: update the table (and the entry %s)", m.text, m.anchor)
		}
		if !anchors[m.anchor] {
			t.Errorf("the message %q has no entry: docs/troubleshooting.md has no heading #%s", m.text, m.anchor)
		}
	}
	for _, site := range exitSite.FindAllStringSubmatch(source, -1) {
		code, msg := site[1], site[2]
		covered := strings.Contains(msg, "troubleshooting.md#") || slices.ContainsFunc(exitMessages, func(m struct{ text, anchor string }) bool {
			return strings.Contains(msg, m.text) || strings.Contains(m.text, msg)
		})
		if !covered {
			t.Errorf("the exit %s with %q has no troubleshooting entry: add it to exitMessages with its entry, or link docs/troubleshooting.md#ENTRY in the message", code, msg)
		}
	}
	checkAnchors(t, root, source)
}

// pageLink is a link to a heading of one of the docs' pages.
var pageLink = regexp.MustCompile(`([a-z][a-z0-9_-]*\.md)#([a-z0-9_-]+)`)

// checkAnchors fails on a link to page.md#anchor, in docs/*.md, the
// README or the Go source, whose page has no such heading.
func checkAnchors(t *testing.T, root, source string) {
	t.Helper()
	pages := map[string]map[string]bool{}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, p := range append(docs, filepath.Join(root, "README.md")) {
		pages[filepath.Base(p)] = headingAnchors(readDoc(t, p))
	}
	check := func(where, text string) {
		for _, m := range pageLink.FindAllStringSubmatch(text, -1) {
			heads, ok := pages[m[1]]
			if !ok {
				continue // another folder's page (a reference page, a workflow)
			}
			if !heads[m[2]] {
				t.Errorf("%s links %s#%s: %s has no such heading", where, m[1], m[2], m[1])
			}
		}
	}
	for _, p := range append(docs, filepath.Join(root, "README.md")) {
		check(p, readDoc(t, p))
	}
	check("the Go source", source)
}

// goSource is the module's Go source, tests and testdata left out.
func goSource(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			b.WriteString(readDoc(t, p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func readDoc(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// headingAnchors are the anchors GitHub gives the headings of a page:
// lower case, punctuation dropped, spaces as hyphens.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		out[slug(strings.TrimLeft(line, "# "))] = true
	}
	return out
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
