package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// docPages are the pages whose snippets a user copies.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := filepath.Glob("../../docs/reference/*.md")
	return append(append([]string{"../../README.md"}, pages...), ref...)
}

// Every config and front-matter snippet of the docs passes ralph-ci check,
// run on it as a user would: a ```yaml block whose first line is
// "# ralph.yaml" is a config, a ```markdown block that starts with "---" a
// spec. Any other ```yaml block must be a GitHub workflow (or a step of
// one), so that no config snippet escapes the check unmarked.
func TestDocSnippetsPassCheck(t *testing.T) {
	bin := e2e.RalphBinary(t)
	const minimalConfig = "agents:\n  coder:\n    command: [sh, agent.sh]\n"
	const minimalSpec = "---\ncompletion:\n  outcome: \"x\"\n  acceptance_criteria: [\"x\"]\n---\nx\n"
	n := 0
	for _, page := range docPages(t) {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range e2e.Fence.FindAllStringSubmatch(string(src), -1) {
			lang, body := m[1], m[2]
			name := fmt.Sprintf("%s, code block %d", filepath.Base(page), i+1)
			var config, spec string
			switch {
			case lang == "yaml" && strings.HasPrefix(body, "# ralph.yaml\n"):
				config, spec = body, minimalSpec
			case lang == "markdown" && strings.HasPrefix(body, "---\n"):
				config, spec = minimalConfig, body
			case lang == "yaml":
				if !strings.Contains(body, "uses:") && !strings.Contains(body, "runs-on:") {
					t.Errorf("%s: a yaml block that is neither a config (first line \"# ralph.yaml\") nor a workflow:\n%s", name, body)
				}
				continue
			default:
				continue
			}
			n++
			dir := t.TempDir()
			write(t, dir, "ralph.yaml", config)
			write(t, dir, "specs/snippet.spec.md", spec)
			cmd := exec.Command(bin, "--log-format", "json", "check")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s does not pass ralph-ci check: %v\n%s\n--- the snippet ---\n%s", name, err, out, body)
			}
		}
	}
	if n < 4 {
		t.Fatalf("found only %d config and spec snippets in the docs", n)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
