package shards

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// perSpec are the state folders holding one file per spec; a shard's
// copy wins over the base's when it differs (the shard ran the spec).
var perSpec = []string{"handoffs", "progress"}

// Fold writes the integrated state folder dst (the project's .ralph):
// the base folder's handoffs and progress notes, then those of each shard
// folder (in the order given, the later winning) that differ from the
// base's, the guardrails merged (MergeGuardrails) and the merged state.
// The folders hold saved state files as pipeline/deliver restores them.
func Fold(dst, base string, shardDirs []string, merged state.State) error {
	if err := os.MkdirAll(dst, 0o755); err != nil { // a fresh checkout with nothing to fold has none
		return fmt.Errorf("integrate the state: %w", err)
	}
	for _, sub := range perSpec {
		if err := os.RemoveAll(filepath.Join(dst, sub)); err != nil {
			return fmt.Errorf("integrate the state: %w", err)
		}
		for _, src := range append([]string{base}, shardDirs...) {
			if err := overlay(filepath.Join(dst, sub), filepath.Join(src, sub), filepath.Join(base, sub), src == base); err != nil {
				return fmt.Errorf("integrate the state from %s: %w", src, err)
			}
		}
	}
	baseRails, err := readOptional(filepath.Join(base, "guardrails.md"))
	if err != nil {
		return err
	}
	var rails []string
	for _, d := range shardDirs {
		r, err := readOptional(filepath.Join(d, "guardrails.md"))
		if err != nil {
			return err
		}
		rails = append(rails, string(r))
	}
	if g := MergeGuardrails(string(baseRails), rails); g != "" {
		if err := state.WriteFileAtomic(filepath.Join(dst, "guardrails.md"), []byte(g), 0o644); err != nil {
			return err
		}
	}
	return state.Save(state.Dir(dst), merged)
}

// overlay copies the files of src into dst; unless all, only those that
// differ from the same file under base. dst's parent is the integrated
// state folder: neither dst nor a folder below it may lead out of it.
func overlay(dst, src, base string, all bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		b, err := safefile.ReadUnder(src, p, safefile.StateLimit)
		if err != nil {
			return err
		}
		if !all {
			if old, err := safefile.ReadUnder(base, filepath.Join(base, rel), safefile.StateLimit); err == nil && bytes.Equal(old, b) {
				return nil
			}
		}
		out := filepath.Join(dst, rel)
		if err := safefile.MkdirUnder(filepath.Dir(dst), filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return safefile.ReplaceUnder(filepath.Dir(dst), out, 0o644, func(w io.Writer) error { _, err := w.Write(b); return err })
	})
}

func readOptional(path string) ([]byte, error) {
	return safefile.ReadUnderOptional(filepath.Dir(path), path, safefile.StateLimit)
}
