package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// DefaultTimeout is the external command's timeout when none is given.
const DefaultTimeout = 300 * time.Second

// commandGrace is the time a timed-out command gets between SIGTERM and
// SIGKILL.
const commandGrace = 5 * time.Second

// external is _verify_external: run a command in the repository and check
// its exit code and output. It runs through agent.Run, so the command gets
// its own process group, which is stopped as a whole on timeout, and its
// output is scanned as it streams, never held whole in memory.
type external struct{}

var _ CommandRunner = external{}

// Commands implements CommandRunner: it runs cfg's command.
func (external) Commands(cfg schema.VerificationConfig) []schema.VerificationConfig {
	return []schema.VerificationConfig{cfg}
}

// Options implements Method.
func (external) Options() string { return "#ExternalConfig" }

// Verify implements Method.
func (external) Verify(ctx context.Context, in Input, cfg schema.VerificationConfig) Result {
	if cfg.Command == nil || len(cfg.Command.Args()) == 0 || cfg.Command.Args()[0] == "" {
		return Result{Reason: "No command specified for external verification"}
	}
	cmd := *cfg.Command
	fail := func(msg string) Result {
		in.Log.Error().Str("command", cmd.String()).Str("error", msg).Msg("verification command failed")
		return Result{Reason: msg}
	}
	dir, err := WorkDir(in.Root, cfg.WorkingDir)
	if err != nil {
		return fail(fmt.Sprintf("Command failed: %v", err))
	}
	timeout := timeoutOf(cfg)
	contains := &matcher{needle: []byte(cfg.OutputContains)}
	forbidden := &matcher{needle: []byte(cfg.OutputNotContains)}
	tests, err := readTests(in, cfg, dir, multi{in.transcript(), contains, forbidden})
	if err != nil {
		return fail(fmt.Sprintf("Command failed: %v", err))
	}
	defer tests.close()
	res, err := agent.Run(ctx, agent.Invocation{
		Argv: tests.cmd.Args(), Dir: dir, Env: tests.env, Timeout: timeout, Grace: commandGrace, Format: "text",
		Output: tests.output, Host: in.Host,
	})
	switch {
	case res.Cancelled:
		return Result{Reason: "Command failed: cancelled"}
	case res.TimedOut:
		return fail(fmt.Sprintf("Command timed out after %ss", seconds(timeout)))
	case err != nil && res.PID == 0:
		return fail(fmt.Sprintf("Command failed: %v", err))
	case err != nil:
		in.Log.Warn().Str("command", cmd.String()).Err(err).Msg("reading the verification command's output")
	}
	run, bad := tests.read(in)
	switch {
	case res.ExitCode != cfg.SuccessExitCode:
		bad = fmt.Sprintf("Command exited with %d, expected %d", res.ExitCode, cfg.SuccessExitCode)
	case cfg.OutputContains != "" && !contains.found:
		bad = fmt.Sprintf("Output doesn't contain: %s", cfg.OutputContains)
	case cfg.OutputNotContains != "" && forbidden.found:
		bad = fmt.Sprintf("Output contains forbidden: %s", cfg.OutputNotContains)
	}
	if bad != "" {
		// The tests still tell which exist: a stage's inventory is taken
		// from a run whose tests fail.
		return Result{Reason: bad, Tests: run}
	}
	return Result{Passed: true, Reason: "External verification passed", Tests: run}
}

// timeoutOf is cfg's timeout, DefaultTimeout when it names none.
func timeoutOf(cfg schema.VerificationConfig) time.Duration {
	if cfg.Timeout != nil && cfg.Timeout.Std() > 0 {
		return cfg.Timeout.Std()
	}
	return DefaultTimeout
}

// WorkDir resolves working_dir against the repository root and rejects a
// directory outside it (also through symbolic links).
func WorkDir(root, rel string) (string, error) {
	if rel == "" {
		rel = "."
	}
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("working_dir %s must be relative to the repository", rel)
	}
	dir := filepath.Join(root, filepath.FromSlash(rel))
	if !inside(root, dir) {
		return "", fmt.Errorf("working_dir %s escapes the repository", rel)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("repository root: %w", err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("working_dir %s: %w", rel, errors.Unwrap(err))
	}
	if !inside(realRoot, realDir) {
		return "", fmt.Errorf("working_dir %s escapes the repository (through a symbolic link)", rel)
	}
	if fi, err := os.Stat(realDir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("working_dir %s is not a directory", rel)
	}
	return dir, nil
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// seconds formats a duration as the spec does ("300" for 300 s).
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprint(int64(d / time.Second))
	}
	return fmt.Sprint(d.Seconds())
}

// matcher looks for needle (exact bytes, as the spec's `in`) in a stream
// written in chunks of any size, keeping only len(needle)-1 bytes.
type matcher struct {
	needle []byte
	carry  []byte
	found  bool
}

// Write implements io.Writer; it never fails.
func (m *matcher) Write(p []byte) (int, error) {
	if m.found || len(m.needle) == 0 {
		return len(p), nil
	}
	buf := append(m.carry, p...)
	if strings.Contains(string(buf), string(m.needle)) {
		m.found, m.carry = true, nil
		return len(p), nil
	}
	keep := min(len(buf), len(m.needle)-1)
	m.carry = append(m.carry[:0:0], buf[len(buf)-keep:]...)
	return len(p), nil
}

// multi writes to every writer; a failing writer does not stop the others.
type multi []interface{ Write([]byte) (int, error) }

// Write implements io.Writer.
func (w multi) Write(p []byte) (int, error) {
	var first error
	for _, x := range w {
		if _, err := x.Write(p); err != nil && first == nil {
			first = err
		}
	}
	return len(p), first
}
