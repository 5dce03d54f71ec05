package claude

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// BenchmarkBoxPerRotation is what the box costs, next to what a rotation
// costs anyway:
//
//   - box/make+empty: one box made and emptied, no process (mkdir of the
//     cgroup, open, cgroup.events read, rmdir);
//
//   - start/shepherd and start/shepherd+box: one process started the way
//     ralph-ci starts every agent and verification command (the
//     shepherd, then `true`), without and with its box (started into the
//     cgroup, emptied, removed): the difference is the box's cost per
//     start, paid by each agent, verification command, judge and
//     reviewer of a rotation; start/shepherd+pidns the same in a PID
//     namespace (CLONE_NEWPID and a mount namespace, as root here: the
//     user-namespace path adds the shepherd's own id maps);
//
//   - rotation/claude: one whole rotation (`ralph-ci run --max-rotations
//     1`, the box on) of the real Claude Code CLI against the scripted
//     model server, which writes a file and claims DONE.
//
//     go test ./cmd/ralph-ci/e2e/claude -run '^$' -bench 'BenchmarkBoxPerRotation/(box|start)' -benchtime 200x
//     go test ./cmd/ralph-ci/e2e/claude -run '^$' -bench 'BenchmarkBoxPerRotation/rotation' -benchtime 5x
//
// Measured (2 cores, loaded by other jobs, 100 runs each): box/make+empty
// 0.34 ms, start/shepherd 5.47 ms, start/shepherd+box 6.12 ms (the box:
// +0.65 ms a start), rotation/claude 5.18 s: a rotation with an agent, a
// verification command and a judge pays about 2 ms, 0.04% of it. The
// PID namespace (2 cores loaded by seven engineers, 2×100 runs):
// start/shepherd 9.2 ms, start/shepherd+box 9.5 ms, start/shepherd+pidns
// 12.1 ms (+2.9 ms a start: the namespaces and the shepherd's /proc
// mount), about 9 ms a rotation of three starts, 0.2% of rotation/claude.
// Again on 2026-11-28 (load falling from 25 to 7; 100 runs, 3 rotations):
// box/make+empty 0.12 ms, start/shepherd 4.29 ms, start/shepherd+box
// 4.45 ms (+0.16 ms), start/shepherd+pidns 4.51 ms (+0.22 ms),
// rotation/claude 1.12 s: three boxed starts cost under 1 ms, 0.06%.
func BenchmarkBoxPerRotation(b *testing.B) {
	bin := e2e.RalphBinary(b)
	boxes, err := box.Open(box.Cgroup, "")
	if err != nil {
		b.Skipf("no writable cgroup here: %v", err)
	}
	defer boxes.Close()
	b.Run("box/make+empty", func(b *testing.B) {
		for b.Loop() {
			x, err := boxes.New()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := x.Empty(0); err != nil {
				b.Fatal(err)
			}
		}
	})
	cases := []struct {
		name string
		host *agent.Host
	}{
		{"start/shepherd", &agent.Host{Shepherd: bin}},
		{"start/shepherd+box", &agent.Host{Shepherd: bin, Boxes: boxes}},
	}
	if ns, err := box.Open(box.PIDNS, bin); err == nil {
		cases = append(cases, struct {
			name string
			host *agent.Host
		}{"start/shepherd+pidns", &agent.Host{Shepherd: bin, Boxes: ns}})
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := agent.Run(context.Background(), agent.Invocation{Argv: []string{"true"}, Host: bc.host})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("exit %d: %v", res.ExitCode, err)
				}
			}
		})
	}
	b.Run("rotation/claude", func(b *testing.B) {
		e2e.RequireAgentCLI(b, "claude", "@anthropic-ai/claude-code")
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			home, configDir := claudeHome(b)
			repoDir := filepath.Join(b.TempDir(), "repo")
			srv := newMessagesServer(b, filepath.Join(repoDir, "hello.txt"), "hello from claude\n", "IMPLEMENTATION_COMPLETE")
			config := fmt.Sprintf("agents:\n  coder:\n    command: [claude, -p, --output-format, json, --permission-mode, acceptEdits]\n    format: claude\n    timeout: 1m\n%s"+
				"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n", claudeEnvYAML(srv.URL(), configDir))
			dir := e2e.WriteRepoAt(b, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": "# Hello\n\nCreate hello.txt containing \"hello from claude\".\n", ".gitignore": ".ralph/\n",
			})
			env := e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")
			b.StartTimer()
			code, _, stderr := e2e.RunRalphArgs(b, bin, dir, env, 90*time.Second, "--log-format", "json", "run", "--box", "cgroup", "--max-rotations", "1")
			if code != 0 && code != 3 {
				b.Fatalf("exit %d\n%s", code, stderr)
			}
		}
	})
}
