package state

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// The test binary doubles as a helper process (for kill -9 and
// inter-process lock tests) when helperEnv is set.
const (
	helperEnv      = "RALPH_STATE_TEST_HELPER"
	helperDirEnv   = "RALPH_STATE_TEST_DIR"
	helperStartEnv = "RALPH_STATE_TEST_START"
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "saveloop":
		helperSaveLoop()
	case "hold":
		helperHold()
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// helperSaveLoop saves sampleState(i) for i = start, start+1, ... forever,
// printing "ready" after the first save.
func helperSaveLoop() {
	d := Dir(os.Getenv(helperDirEnv))
	start, _ := strconv.Atoi(os.Getenv(helperStartEnv))
	for i := start; ; i++ {
		if err := Save(d, sampleState(i)); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		if i == start {
			fmt.Println("ready")
		}
	}
}

// helperHold acquires the lock and prints "won [recovered]" and holds it
// until stdin is closed, or prints "locked: <message>" and exits 3.
func helperHold() {
	d := Dir(os.Getenv(helperDirEnv))
	l, err := Acquire(d, LockInfo{Command: "run", Version: "test"})
	if err != nil {
		if _, ok := err.(*LockedError); ok {
			fmt.Println("locked:", err)
			os.Exit(3)
		}
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if l.Recovered != nil {
		fmt.Println("won recovered")
	} else {
		fmt.Println("won")
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := l.Release(); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helper is a running helper process.
type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startHelper(t *testing.T, kind string, d Dir, extraEnv ...string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+kind, helperDirEnv+"="+string(d))
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() {
		_ = h.cmd.Process.Kill()
		_ = h.cmd.Wait()
	})
	return h
}

// line reads the helper's next output line.
func (h *helper) line(t *testing.T) string {
	t.Helper()
	s, err := h.out.ReadString('\n')
	if err != nil {
		t.Fatalf("helper pid %d: reading output: %v (got %q)", h.cmd.Process.Pid, err, s)
	}
	return strings.TrimSpace(s)
}

// sampleState is the i-th state written by the save loop: its content is a
// function of i, so a loaded state can be checked to be one complete
// version. It is large enough (several KB) for kills to land mid-write.
func sampleState(i int) State {
	s := State{Version: Version, Iteration: i}
	for j := 0; j < 1+i%4; j++ {
		sum := sha256.Sum256([]byte(fmt.Sprint(i, j)))
		files := []string{}
		for k := 0; k < 50+(i+j)%100; k++ {
			files = append(files, fmt.Sprintf("internal/pkg%03d/file_%d_%d.go", k, i, j))
		}
		s.Specs = append(s.Specs, SpecState{
			Path: fmt.Sprintf("specs/s%d.spec.md", j), Counting: Counting{DoneCount: i % 4, LastStatus: status.Continue,
				LastHash: hex.EncodeToString(sum[:]), ModifiedFiles: i%2 == 0, ChangedFiles: files,
				Rotations: i, StuckCount: j},
		})
	}
	return s
}

func newDir(t *testing.T) Dir {
	t.Helper()
	d := At(t.TempDir())
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	return d
}

// shortTimings shortens the lock tunables for the duration of a test.
func shortTimings(t *testing.T) {
	grace, delay := creationGrace, lockRetryDelay
	creationGrace, lockRetryDelay = 100*time.Millisecond, 2*time.Millisecond
	t.Cleanup(func() { creationGrace, lockRetryDelay = grace, delay })
}
