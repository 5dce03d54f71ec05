package discovery

import (
	"errors"
	"os"
	"path"
	"path/filepath"
)

// Watch makes Find skip its walk while nothing happened in the spec
// folders: they are watched (inotify, on Linux) from the next Find on, and
// a Find after which no folder saw an event, no missing folder appeared and
// the prompt file kept its size and time returns the last specs without a
// single stat. Anything else, a full event queue included, walks the
// folders as before. Elsewhere than on Linux, or when the system refuses
// a watch, it returns an error and Find keeps walking. Close releases the
// watch.
func (f *Finder) Watch() error {
	if f.watch != nil {
		return nil
	}
	w, err := newDirWatch()
	if err != nil {
		return err
	}
	f.watch, f.last = w, nil // the next walk watches every folder
	return nil
}

// Close stops watching the spec folders.
func (f *Finder) Close() error {
	if f.watch == nil {
		return nil
	}
	err := f.watch.close()
	f.watch = nil
	return err
}

// watchDir watches a folder met by the walk; when the system refuses,
// the Finder stops watching and walks every time.
func (f *Finder) watchDir(dir string) {
	if f.watch != nil && f.watch.add(dir) != nil {
		_ = f.Close()
	}
}

// quiet tells whether the last specs still hold: the folders are watched
// and saw no event since the last walk, no folder that was missing exists
// now, and the prompt file is as it was.
func (f *Finder) quiet() bool {
	if f.watch == nil || f.last == nil || f.watch.changed() {
		return false
	}
	for _, dir := range f.missing {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	if f.Options.Prompt == "" {
		return true
	}
	fi, err := os.Stat(filepath.Join(f.Root, filepath.FromSlash(f.Options.Prompt)))
	present := err == nil && fi.Mode().IsRegular()
	h, known := f.known[path.Clean(f.Options.Prompt)]
	if !known || !h.spec.Prompt {
		return !present
	}
	return present && h.size == fi.Size() && h.mtime.Equal(fi.ModTime()) && h.at.Sub(h.mtime) > racyWindow
}
