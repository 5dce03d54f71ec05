package git

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// holdBaseEnv makes the test binary a run holding a git directory in the
// folder it names (TestMain).
const holdBaseEnv = "RALPH_GIT_TEST_HOLD_IN"

// startRun starts a run (this test binary, see TestMain) that makes and
// holds a git directory in base, and returns it with the directory once
// it is held.
func startRun(t *testing.T, base string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdBaseEnv+"="+base)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n') // printed once held
	if err != nil {
		t.Fatalf("the run did not say its git directory: %v", err)
	}
	return cmd, strings.TrimSpace(line)
}

// TestSweepGoneRemovesOnlyGoneRuns: the git directory of a run killed
// with SIGKILL (which never reaches Cleanup) is removed by the next
// run's sweep; the folders of a live run, of this process and of an
// older ralph-ci (git-NNN, which holds no lock) are left alone, and a
// live run's goes only once it has ended.
func TestSweepGoneRemovesOnlyGoneRuns(t *testing.T) {
	base := t.TempDir()
	killed, killedDir := startRun(t, base)
	live, liveDir := startRun(t, base)
	mine, held, err := makeHeldDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	older := filepath.Join(base, "git-123456")
	if err := os.Mkdir(older, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	if _, err := os.Stat(filepath.Join(killedDir)); err != nil {
		t.Fatalf("the killed run's folder is not there to sweep: %v", err)
	}

	if got := sweepGone(base); !slices.Equal(got, []string{killedDir}) {
		t.Fatalf("the sweep removed %q, want only the killed run's %s", got, killedDir)
	}
	for _, dir := range []string{liveDir, mine, older} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("the sweep removed %s: %v", dir, err)
		}
	}

	if err := live.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = live.Wait()
	if got := sweepGone(base); !slices.Equal(got, []string{liveDir}) {
		t.Fatalf("after the live run ended the sweep removed %q, want %s", got, liveDir)
	}
}

// TestHeldDirIsNotTakenTwice: a folder that a sweep removed between its
// making and its lock is not used (hold fails), so a run never works in
// a folder another run's sweep is removing.
func TestHeldDirIsNotTakenTwice(t *testing.T) {
	base := t.TempDir()
	dir, held, err := makeHeldDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold(dir); err != errTaken {
		t.Errorf("a second hold of a held folder: %v, want errTaken", err)
	}
	_ = held.Close()
	gone := filepath.Join(base, runPrefix+"gone")
	if _, err := hold(gone); err != errTaken {
		t.Errorf("hold of a removed folder: %v, want errTaken", err)
	}
}
