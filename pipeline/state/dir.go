package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// DirName is the name of ralph-ci's state directory at the repository root.
const DirName = ".ralph"

// Names of the files and folders inside the state directory.
const (
	stateFile      = "state.json"
	guardrailsFile = "guardrails.md"
	runFile        = "run.json"
	currentLogFile = "current.log"
	statusFile     = "status"
	handoffsDir    = "handoffs"
	historyDir     = "history"
)

// Dir is the path of a .ralph directory. All path helpers only join paths;
// they neither touch the disk nor validate keys: a spec key ({name}-{hash6})
// is built by the caller and must be a single path element.
type Dir string

// At returns the Dir of the repository whose root is repoRoot.
func At(repoRoot string) Dir { return Dir(filepath.Join(repoRoot, DirName)) }

// Path returns the path of the .ralph directory itself.
func (d Dir) Path() string { return string(d) }

func (d Dir) join(elem ...string) string {
	return filepath.Join(append([]string{string(d)}, elem...)...)
}

// StatePath returns the path of state.json, the matrix of all specs.
func (d Dir) StatePath() string { return d.join(stateFile) }

// Guardrails returns the path of guardrails.md, the notes shared by agents.
func (d Dir) Guardrails() string { return d.join(guardrailsFile) }

// RunFile returns the path of run.json, the one-instance lock.
func (d Dir) RunFile() string { return d.join(runFile) }

// CurrentLog returns the path of current.log, the running rotation's output.
func (d Dir) CurrentLog() string { return d.join(currentLogFile) }

// LinkCurrentLog makes current.log another name of the log file at path
// (a hard link), replacing the previous one atomically: the running
// rotation's output is written once, to its history log, and current.log
// is never truncated. It fails where hard links are not supported; the
// caller then writes current.log itself.
func (d Dir) LinkCurrentLog(path string) error {
	tmp := d.join("." + currentLogFile + newInfix + "link")
	return safefile.LinkUnder(string(d), path, tmp, d.CurrentLog())
}

// CreateCurrentLog creates an empty current.log for the caller to write,
// where LinkCurrentLog failed. The old current.log is removed first: it
// may be a link to an earlier rotation's history log, which truncating it
// would erase.
func (d Dir) CreateCurrentLog() (*os.File, error) {
	if err := safefile.RemoveUnder(string(d), d.CurrentLog()); err != nil {
		return nil, fmt.Errorf("replace %s: %w", d.CurrentLog(), err)
	}
	f, err := safefile.OpenUnder(string(d), d.CurrentLog(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", d.CurrentLog(), err)
	}
	return f, nil
}

// StatusFile returns the path of the file the agent may write its status
// word to; the caller clears it before each rotation.
func (d Dir) StatusFile() string { return d.join(statusFile) }

// HandoffsDir returns the folder holding the per-spec handoff notes.
func (d Dir) HandoffsDir() string { return d.join(handoffsDir) }

// Handoff returns the path of the handoff note of the spec with that key.
func (d Dir) Handoff(key string) string { return d.join(handoffsDir, key+".md") }

// HistoryDir returns the folder holding the rotation logs of one spec.
func (d Dir) HistoryDir(key string) string { return d.join(historyDir, key) }

// HistoryLog returns the path of the log of the n-th rotation (1-based) of
// a spec: history/{key}/001.log, ..., 999.log, 1000.log, ...
func (d Dir) HistoryLog(key string, n int) string {
	return d.join(historyDir, key, fmt.Sprintf("%03d.log", n))
}

// Rel returns path relative to the .ralph directory, with forward slashes,
// as recorded in a pending rotation (e.g. "history/api.spec-d4e5f6/003.log").
// It fails if path is not inside the directory.
func (d Dir) Rel(path string) (string, error) {
	rel, err := filepath.Rel(string(d), path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %s is not inside %s", path, d)
	}
	return filepath.ToSlash(rel), nil
}

// Resolve is the inverse of Rel: it turns a slash-separated path relative
// to the .ralph directory into a path usable with the os package.
func (d Dir) Resolve(rel string) string { return d.join(filepath.FromSlash(rel)) }

// Ensure creates the .ralph directory and its handoffs and history folders
// if they are missing. Call it before any other function that writes.
func (d Dir) Ensure() error {
	root := filepath.Dir(string(d))
	for _, p := range []string{string(d), d.HandoffsDir(), d.join(historyDir)} {
		if err := safefile.MkdirUnder(root, p, 0o755); err != nil {
			return fmt.Errorf("create ralph-ci state folder: %w (check the permissions of %s)", err, filepath.Dir(p))
		}
	}
	return nil
}

// EnsureHistory creates the history folder of the spec with that key.
func (d Dir) EnsureHistory(key string) error {
	if err := safefile.MkdirUnder(string(d), d.HistoryDir(key), 0o755); err != nil {
		return fmt.Errorf("create history folder: %w (check the permissions of %s)", err, d.join(historyDir))
	}
	return nil
}

// ReadOptional reads a file that may legitimately be missing: a missing file
// yields (nil, nil); any other failure is returned with the path.
// It refuses a special file and reads at most safefile.StateLimit bytes.
func ReadOptional(path string) ([]byte, error) {
	return safefile.ReadUnderOptional(filepath.Dir(path), path, safefile.StateLimit)
}
