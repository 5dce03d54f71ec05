package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// lockLimit bounds what is read of run.json, a few hundred bytes when
// ralph-ci wrote it.
const lockLimit = safefile.StatusLimit

// LockInfo is the content of run.json: who holds the repository.
type LockInfo struct {
	PID       int       `json:"pid"`        // process id of the holder
	Hostname  string    `json:"hostname"`   // machine of the holder
	StartedAt time.Time `json:"started_at"` // when the lock was taken (RFC 3339)
	Command   string    `json:"command"`    // ralph-ci command, e.g. "run"
	Version   string    `json:"version"`    // ralph-ci version of the holder
	// ProcStart is the kernel's start time of PID (Linux: field 22 of
	// /proc/<pid>/stat), 0 if unknown. A live PID with another start time
	// is a reused PID, so the lock is stale.
	ProcStart uint64 `json:"proc_start,omitempty"`
	// RunID identifies the holder's run; its agents carry it in their
	// environment (RALPH_RUN_ID), so the processes a crashed run left
	// behind can be found and stopped.
	RunID string `json:"run_id,omitempty"`
}

// StaleLock describes a lock left by a crashed process that Acquire removed.
type StaleLock struct {
	Holder *LockInfo // the previous content of run.json; nil if unreadable
	Reason string    // why it was considered stale
}

// String describes the recovery, for logging.
func (s *StaleLock) String() string { return "recovered a stale lock: " + s.Reason }

// LockedError is returned by Acquire when another ralph-ci holds the lock.
type LockedError struct {
	Path      string   // run.json
	Holder    LockInfo // its content
	OtherHost bool     // the holder runs on another machine: liveness unknown
}

// Error implements error.
func (e *LockedError) Error() string {
	h := e.Holder
	started := h.StartedAt.UTC().Format(time.RFC3339)
	if e.OtherHost {
		return fmt.Sprintf("another ralph-ci (pid %d on host %q, started %s, %q) is working on this repository; ralph-ci cannot check whether a process on another machine is still running: wait for it to finish or, if it is gone, delete %s", h.PID, h.Hostname, started, h.Command, e.Path)
	}
	return fmt.Sprintf("another ralph-ci (pid %d, started %s, %q) is working on this repository; wait for it to finish or, if it is gone, delete %s", h.PID, started, h.Command, e.Path)
}

// Lock is a held run.json lock.
type Lock struct {
	// Info is the content written to run.json.
	Info LockInfo
	// Recovered is non-nil if a stale lock was removed to take this one;
	// the caller should log it.
	Recovered *StaleLock

	path     string
	data     []byte
	mu       sync.Mutex
	released bool
}

// Tunables, variables so tests can shorten them.
var (
	// creationGrace: an unparsable run.json younger than this may be being
	// written by a non-link fallback creation (see createExclusive); wait.
	creationGrace  = 2 * time.Second
	lockRetryDelay = 20 * time.Millisecond
)

const maxLockAttempts = 200

// Acquire takes the one-instance lock of the repository by creating
// run.json exclusively with info as content. Zero fields of info are filled
// in: PID (this process), Hostname, StartedAt (now) and ProcStart.
//
// If run.json exists and its holder runs on this host and is alive, it
// returns a *LockedError; a holder on another host is assumed alive (it
// cannot be checked) and also yields a *LockedError. A lock whose holder is
// dead (or whose PID was reused, detected on Linux by the process start
// time), or an empty or unparsable run.json, is stale: it is atomically
// replaced by ours, and Lock.Recovered describes it for the log. The
// replacement happens under a recovery mutex and only if run.json still
// holds what was judged stale, so when several processes recover the same
// lock exactly one wins and the others get a *LockedError naming it.
// The .ralph directory must exist ([Dir.Ensure]).
//
// Why not a file lock alone (go-internal's lockedfile, in go.sum): its
// only lock waits, where a second ralph-ci must fail at once naming the
// holder (pid, start, command); and the holder's record is the lock
// itself, so that a crashed run is recognised as such and the agent
// processes it left behind are stopped by its RunID, and a run.json
// naming a live process holds whoever wrote it (lock.txtar). The part
// that must survive a killed process without a record, the recovery
// mutex, is a kernel file lock (flock) already. Taking the lock happens
// once a run: it is not speed machinery.
func Acquire(dir Dir, info LockInfo) (*Lock, error) {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if info.Hostname == "" {
		info.Hostname = host
	}
	if info.StartedAt.IsZero() {
		info.StartedAt = time.Now().UTC()
	}
	if info.ProcStart == 0 && info.PID == os.Getpid() {
		info.ProcStart = processStartTime(info.PID)
	}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("acquire lock: %w", err)
	}
	data = append(data, '\n')
	path := dir.RunFile()
	var lastErr error
	for range maxLockAttempts {
		err := createExclusive(path, data)
		if err == nil {
			return &Lock{Info: info, path: path, data: data}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("acquire lock %s: %w", path, err)
		}
		seen, stale, err := inspectLock(path, host)
		if err != nil {
			return nil, err
		}
		if stale == nil { // gone meanwhile, or too young to judge: retry
			time.Sleep(lockRetryDelay)
			continue
		}
		won, err := replaceIfUnchanged(dir, path, seen, data)
		if err != nil {
			lastErr = err
			time.Sleep(lockRetryDelay)
			continue
		}
		if won {
			return &Lock{Info: info, Recovered: stale, path: path, data: data}, nil
		}
	}
	if lastErr != nil {
		return nil, fmt.Errorf("acquire lock: could not replace the stale %s: %w; delete it by hand", path, lastErr)
	}
	return nil, fmt.Errorf("acquire lock %s: gave up after %d attempts: other ralph-ci processes keep creating and removing it; try again", path, maxLockAttempts)
}

// inspectLock reads run.json and decides. It returns a *LockedError if the
// lock is held, a StaleLock (with the bytes judged) if it is stale, or
// neither if the file vanished or may still be being written.
func inspectLock(path, host string) ([]byte, *StaleLock, error) {
	f, err := safefile.OpenUnder(filepath.Dir(path), path, os.O_RDONLY, 0) // the agent can reach .ralph: never block on, nor follow, what it put there
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("acquire lock: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("acquire lock: %w", err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, lockLimit)); err != nil {
		return nil, nil, fmt.Errorf("acquire lock: read %s: %w", path, err)
	}
	data := buf.Bytes()
	var h LockInfo
	perr := json.Unmarshal(data, &h)
	if perr == nil && (h.PID <= 0 || h.Hostname == "") {
		perr = errors.New("missing pid or hostname")
	}
	if perr != nil {
		if time.Since(fi.ModTime()) < creationGrace {
			return nil, nil, nil
		}
		reason := fmt.Sprintf("%s was unreadable (%v), probably left by a crash while it was created", path, perr)
		if len(bytes.TrimSpace(data)) == 0 {
			reason = fmt.Sprintf("%s was empty, probably left by a crash while it was created", path)
		}
		return data, &StaleLock{Reason: reason}, nil
	}
	if h.Hostname != host {
		return nil, nil, &LockedError{Path: path, Holder: h, OtherHost: true}
	}
	alive, why := processAlive(h.PID, h.ProcStart)
	if alive {
		return nil, nil, &LockedError{Path: path, Holder: h}
	}
	return data, &StaleLock{Holder: &h, Reason: fmt.Sprintf("%s (started %s, %q)", why, h.StartedAt.UTC().Format(time.RFC3339), h.Command)}, nil
}

// replaceIfUnchanged atomically replaces run.json with data (our lock) if it
// still holds seen (the stale lock). The check and the rename run under the
// recovery mutex, so of several processes recovering the same stale lock
// exactly one replaces it; the others find the winner's lock when they look
// again. run.json never disappears in between, so a plain exclusive create
// cannot slip in either.
func replaceIfUnchanged(dir Dir, path string, seen, data []byte) (won bool, err error) {
	tmp, err := writeTemp(filepath.Dir(path), "."+filepath.Base(path)+newInfix+"*", data, 0o644)
	if err != nil {
		return false, err
	}
	defer func() {
		if !won {
			_ = os.Remove(tmp)
		}
	}()
	err = withRecoveryMutex(dir, func() error {
		cur, err := safefile.ReadUnder(filepath.Dir(path), path, lockLimit)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // released meanwhile: retry the exclusive create
		}
		if err != nil {
			return err
		}
		if !bytes.Equal(cur, seen) {
			return nil // replaced meanwhile: judge again
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
		won = true
		return syncDir(filepath.Dir(path))
	})
	return won, err
}

// createExclusive creates path with data, failing with an error matching
// fs.ErrExist if it exists. It links a complete temporary file to path, so
// run.json never exists with partial content. If the file system does not
// support hard links it falls back to O_EXCL and a write, where a crash can
// leave an empty file; inspectLock handles that (creationGrace).
func createExclusive(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, "."+filepath.Base(path)+newInfix+"*", data, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		err = createExclusiveNoLink(path, data)
	}
	if err != nil {
		return err
	}
	return syncDir(dir)
}

func createExclusiveNoLink(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// Release removes run.json if it still holds this lock's content; if
// another process has taken it over it is left in place and an error
// says so. Calling Release again is a no-op.
func (l *Lock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	cur, err := safefile.ReadUnder(filepath.Dir(l.path), l.path, lockLimit)
	if errors.Is(err, fs.ErrNotExist) {
		l.released = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("release lock: %w", err)
	}
	if !bytes.Equal(cur, l.data) {
		l.released = true
		return fmt.Errorf("release lock: %s no longer belongs to this process (was it deleted by hand?); left it in place", l.path)
	}
	if err := removeDurably(l.path); err != nil {
		return fmt.Errorf("release lock: %w", err)
	}
	l.released = true
	return nil
}

// Open prepares dir, takes the lock for info's command and loads the
// state: what every command that changes state does first. Release the
// lock when done.
func Open(dir Dir, info LockInfo) (*Lock, State, error) {
	if err := dir.Ensure(); err != nil {
		return nil, State{}, err
	}
	lock, err := Acquire(dir, info)
	if err != nil {
		return nil, State{}, err
	}
	st, err := Load(dir)
	if err != nil {
		_ = lock.Release()
		return nil, State{}, err
	}
	return lock, st, nil
}
