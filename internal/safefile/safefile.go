// Package safefile reads files that someone else may have put in the
// working tree (a config, a spec, an agent's .ralph/status or handoff)
// without trusting what they are: a FIFO, a device or a symlink to
// /dev/zero is refused instead of blocking or filling memory, and no
// read returns more than a stated number of bytes.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits for the files ralph-ci reads from the working tree. They are far
// above what any real file of that kind holds.
const (
	// ConfigLimit bounds a config file (ralph.yaml, .json, .cue).
	ConfigLimit = 1 << 20
	// SpecLimit bounds a spec file (markdown with front matter).
	SpecLimit = 4 << 20
	// NoteLimit bounds a handoff or the guardrails file.
	NoteLimit = 1 << 20
	// SourceLimit bounds a working-tree file ralph-ci reads as text to
	// judge it: a verification script, a test file, a file the agent
	// added. A longer one is not read (it is not prose nor a script).
	SourceLimit = 1 << 20
	// StatusLimit bounds .ralph/status, which holds one word.
	StatusLimit = 4 << 10
	// EventLimit bounds the GitHub Actions event payload
	// (GITHUB_EVENT_PATH): GitHub caps a webhook's payload at 25 MB.
	EventLimit = 25 << 20
	// StateLimit bounds state.json and other files ralph-ci wrote itself.
	StateLimit = 64 << 20
)

// ErrNotRegular is the cause of an error for a path that is not a regular
// file (a FIFO, a socket, a device, a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the cause of an error for a file longer than the limit.
var ErrTooLarge = errors.New("file too large")

// Read returns the content of the regular file at path, at most limit
// bytes. It never blocks on a FIFO or device: the file is opened
// non-blocking and checked with fstat before anything is read. Errors name
// path; errors.Is tells ErrNotRegular, ErrTooLarge and fs.ErrNotExist
// apart.
func Read(path string, limit int64) ([]byte, error) {
	f, info, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	return readLimited(f, path, limit)
}

// readLimited reads f (opened at path) whole, refusing more than limit
// bytes: a file can grow while it is read, past the size fstat gave.
func readLimited(f *os.File, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// OpenRegular opens path for reading if it is a regular file, without
// blocking on a FIFO or device (it is refused with ErrNotRegular). The
// caller closes the file and bounds what it reads.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %w (it is a %s); ralph-ci reads only regular files here", path, ErrNotRegular, kind(info.Mode()))
	}
	return f, info, nil
}

// ReadOptional is Read for a file that may legitimately be missing: a
// missing file yields (nil, nil).
func ReadOptional(path string, limit int64) ([]byte, error) {
	data, err := Read(path, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("read %s: %w (over %s)", path, ErrTooLarge, size(limit))
}

func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}
