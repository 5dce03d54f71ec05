//go:build !linux

package changes

import (
	"context"
	"errors"
)

// startSession reports that no events are used here: kqueue, the BSD and
// macOS counterpart of inotify, needs one open file per watched file, which
// a large work tree would exhaust, so every Take of a Watcher is a real one.
func startSession(context.Context, *Watcher, string) (watchSession, error) {
	return nil, errors.New("file-system events are used on Linux only")
}
