//go:build unix

package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// sh returns the argv of a shell script.
func sh(script string) []string { return []string{"sh", "-c", script} }

func TestRunPromptEnvDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("RALPH_TEST_INHERITED", "inherited")
	t.Setenv("RALPH_TEST_OVERRIDDEN", "parent")
	var out bytes.Buffer
	res, err := Run(context.Background(), Invocation{
		Argv:   sh(`printf 'dir=%s\n' "$(pwd -P)"; printf 'env=%s,%s,%s\n' "$RALPH_TEST_INHERITED" "$RALPH_TEST_OVERRIDDEN" "$RALPH_SPEC"; printf 'prompt='; cat; printf '\n'`),
		Dir:    dir,
		Env:    []string{"RALPH_SPEC=specs/a.md", "RALPH_TEST_OVERRIDDEN=first", "RALPH_TEST_OVERRIDDEN=last"},
		Prompt: "do the thing\nRALPH_STATUS: DONE",
		Output: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := "dir=" + real + "\nenv=inherited,last,specs/a.md\nprompt=do the thing\nRALPH_STATUS: DONE\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if res.ExitCode != 0 || res.Signal != "" || res.TimedOut || res.Cancelled || res.PID == 0 {
		t.Errorf("result %+v", res)
	}
	if res.Status != status.Done || res.OutputBytes != int64(len(want)) || res.Tail != want {
		t.Errorf("report %+v", res.Report)
	}
}

// The output reaches the writer byte for byte, stdout and stderr in the
// order they were written.
func TestRunOutputExact(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 300<<10)
	_, _ = rand.Read(data)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := Run(context.Background(), Invocation{
		Argv:   sh(`echo one; echo two >&2; cat data.bin; echo three >&2; exit 3`),
		Dir:    dir,
		Output: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte("one\ntwo\n"), data...), "three\n"...)
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("output differs: %d bytes, want %d", out.Len(), len(want))
	}
	if res.ExitCode != 3 || res.OutputBytes != int64(len(want)) {
		t.Errorf("exit %d, %d bytes", res.ExitCode, res.OutputBytes)
	}
}

// An agent that never reads its prompt does not block Run, whatever the
// size of the prompt; one that does gets all of it.
func TestRunLargePrompt(t *testing.T) {
	prompt := strings.Repeat("p", 1<<20)
	res, err := Run(context.Background(), Invocation{Argv: sh("exit 0"), Prompt: prompt, Timeout: 10 * time.Second})
	if err != nil || res.TimedOut || res.ExitCode != 0 {
		t.Errorf("ignoring the prompt: %+v, %v", res, err)
	}
	var out bytes.Buffer
	res, err = Run(context.Background(), Invocation{Argv: sh("wc -c"), Prompt: prompt, Output: &out})
	if err != nil || strings.TrimSpace(out.String()) != "1048576" {
		t.Errorf("reading the prompt: %q, %v", out.String(), err)
	}
}

func TestRunStartFailure(t *testing.T) {
	tests := []struct {
		inv  Invocation
		want []string
	}{
		{Invocation{Argv: []string{"ralph-no-such-agent-cli"}}, []string{`"ralph-no-such-agent-cli"`, "PATH", "config"}},
		{Invocation{Argv: []string{"/nonexistent/claude"}}, []string{`"/nonexistent/claude"`, "installed"}},
		{Invocation{Argv: []string{"sh"}, Dir: "/nonexistent/dir"}, []string{`"sh"`, "/nonexistent/dir"}},
		{Invocation{Argv: nil}, []string{"empty", "config"}},
		{Invocation{Argv: []string{"sh"}, Format: "yaml"}, []string{`"yaml"`, strings.Join(FormatNames(), ", ")}},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), tt.inv)
		if err == nil {
			t.Errorf("%v: no error", tt.inv.Argv)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", tt.inv.Argv, err, w)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Invocation{Argv: sh("echo never")})
	if !errors.Is(err, context.Canceled) || !res.Cancelled {
		t.Errorf("cancelled before the start: %+v, %v", res, err)
	}
}

// A failing output writer is reported, and the agent still runs to its end.
func TestRunOutputWriteError(t *testing.T) {
	res, err := Run(context.Background(), Invocation{
		Argv:   sh("echo a; echo RALPH_STATUS: DONE"),
		Output: failingWriter{},
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") || res.Status != status.Done {
		t.Errorf("%+v, %v", res.Report, err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A Claude run through a script printing the fixture: the whole pipeline.
func TestRunClaudeFixture(t *testing.T) {
	path, _ := filepath.Abs(filepath.Join("testdata", "claude.json"))
	res, err := Run(context.Background(), Invocation{
		Argv: []string{"cat", path}, Format: "claude", Watch: []string{"requires manual"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.Done || res.Promise != "ALL TESTS PASS" || !res.Usage.CostKnown || res.Usage.Turns != 9 || len(res.Phrases) != 1 {
		t.Errorf("report %+v", res.Report)
	}
}

// A slow output writer (a loaded disk) does not lose the end of the
// output: the agent writes the rest of its output into the pipe and exits
// while Run is still writing "start", and the rest is read afterwards.
func TestRunSlowOutput(t *testing.T) {
	var out bytes.Buffer
	writes := 0
	slow := writerFunc(func(p []byte) (int, error) {
		if writes++; writes == 1 {
			time.Sleep(drainWait + drainWait/2)
		}
		return out.Write(p)
	})
	res, err := Run(context.Background(), Invocation{
		Argv:   sh(`echo start; sleep 0.1; head -c 50000 /dev/zero | tr '\0' x; echo; echo RALPH_STATUS: DONE`),
		Output: slow,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 + 50000 + 20; out.Len() != want || res.OutputBytes != int64(want) || res.Status != status.Done {
		t.Errorf("%d bytes written, %d read, status %q", out.Len(), res.OutputBytes, res.Status)
	}
}
