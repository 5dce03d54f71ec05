package discovery

import (
	"errors"

	"golang.org/x/sys/unix"
)

// dirWatch is an inotify instance watching the spec folders. Find reads
// its queue itself, without blocking: the kernel queues an event before
// the write that caused it returns, so a change made before Find asks
// (by an agent that has exited, say) is always in the queue then.
//
// What it earns (BenchmarkReload in pipeline/project, no spec changed):
// 0.4 ms a rotation at 100 specs and 4.3 ms at 1,000 (a walk that stats
// every spec) against 4 us, far under 1% of a real agent's rotation; but
// without it the scale target fails (bench/scale.sh, SECTION=rotation:
// 17.0 ms a rotation at 1,000 specs against 8.2 ms at one, 2.07x, where
// 2x is the most allowed; 10.0 ms, 1.23x, with it), so it stays. It is
// not fsnotify, the changes package's watcher: fsnotify reads the queue
// in a goroutine of its own, so an empty channel does not say that a
// change made before Find asked was seen, and ordering it would take a
// barrier (a rename and a wait) per Find, as changes.Watcher pays for.
type dirWatch struct {
	fd  int
	buf []byte
}

// watchMask is every change to a folder's entries and to the folder
// itself.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

func newDirWatch() (*dirWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &dirWatch{fd: fd, buf: make([]byte, 64<<10)}, nil
}

// add watches the folder dir (again: a folder already watched keeps its
// watch).
func (w *dirWatch) add(dir string) error {
	_, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
	return err
}

// changed empties the queue and tells whether it held any event (an
// overflow and a failed read count as changes).
func (w *dirWatch) changed() bool {
	seen := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case n > 0:
			seen = true
		case errors.Is(err, unix.EAGAIN):
			return seen
		case errors.Is(err, unix.EINTR):
		default:
			return true
		}
	}
}

func (w *dirWatch) close() error { return unix.Close(w.fd) }
