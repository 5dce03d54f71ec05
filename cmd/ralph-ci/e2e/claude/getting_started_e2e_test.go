package claude

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// gettingStartedCommands are the commands of docs/getting-started.md's sh
// blocks, in order, without comments. Only ralph-ci's are run: the page's
// other lines must be the install and key steps this test stands in for,
// so that a step added to the page cannot be skipped here unnoticed.
func gettingStartedCommands(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(e2e.Root(t, "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	standIns := []*regexp.Regexp{
		regexp.MustCompile(`^git clone https://github\.com/ralph-ci/ralph-ci && \(cd ralph-ci && CGO_ENABLED=0 go install \./cmd/ralph-ci\)$`), // the test binary is ralph-ci
		regexp.MustCompile(`^npm install -g @anthropic-ai/claude-code$`),                                                                       // installed by .ci/run
		regexp.MustCompile(`^export ANTHROPIC_API_KEY=\.\.\.$`),                                                                                // the scripted server's
	}
	var cmds []string
	for _, m := range e2e.Fence.FindAllStringSubmatch(string(src), -1) {
		if m[1] != "sh" {
			continue
		}
		for _, line := range strings.Split(m[2], "\n") {
			line, _, _ = strings.Cut(line, "#")
			line = strings.TrimSpace(line)
			switch {
			case line == "":
			case strings.HasPrefix(line, "ralph-ci "):
				cmds = append(cmds, line)
			default:
				known := false
				for _, re := range standIns {
					known = known || re.MatchString(line)
				}
				if !known {
					t.Fatalf("docs/getting-started.md runs %q, which this test does not know: teach it", line)
				}
			}
		}
	}
	return cmds
}

// A team follows docs/getting-started.md literally in an empty repository:
// every ralph-ci command of the page runs, in its order, with the real
// Claude Code CLI (against the scripted Messages API server) as the agent
// init configured. The first spec ends verified 3/3.
func TestGettingStartedLiterally(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := e2e.RalphBinary(t)
	cmds := gettingStartedCommands(t)
	want := []string{"ralph-ci init --agent claude", "ralph-ci check", "ralph-ci run", "ralph-ci status"}
	for _, w := range want {
		found := false
		for _, c := range cmds {
			found = found || c == w
		}
		if !found {
			t.Fatalf("docs/getting-started.md no longer runs %q (its commands: %q)", w, cmds)
		}
	}

	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	hello := filepath.Join(repo, "hello.txt")
	srv := newMessagesServer(t, hello, "hello from ralph-ci\n", "IMPLEMENTATION_COMPLETE")
	home, configDir := claudeHome(t)
	// What a user's shell holds after step 1, pointed at the scripted server.
	env := append(e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_"),
		"ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=sk-ant-test-not-a-real-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CONFIG_DIR="+configDir)

	var runOut []byte
	for _, line := range cmds {
		args := strings.Fields(line)[1:]
		code, stdout, stderr := e2e.RunRalphArgs(t, bin, repo, env, 2*time.Minute, args...)
		t.Logf("$ %s\n%s%s", line, stdout, stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d", line, code)
		}
		if args[0] == "run" {
			runOut = stderr
		}
		if args[0] == "status" && !regexp.MustCompile(`specs/first\.spec\.md\s+3/3`).Match(stdout) {
			t.Errorf("status after the run: want specs/first.spec.md at 3/3")
		}
	}
	e2e.CheckRoutes(t, &srv.RequestLog, "claude_server_test.go")
	if got, err := os.ReadFile(hello); err != nil || string(got) != "hello from ralph-ci\n" {
		t.Errorf("hello.txt = %q, %v; want Claude Code's Write of it", got, err)
	}
	if !bytes.Contains(runOut, []byte(`"counter":"3/3"`)) || !bytes.Contains(runOut, []byte("all specs verified 3/3")) {
		t.Errorf("the run did not reach 3/3")
	}
}
