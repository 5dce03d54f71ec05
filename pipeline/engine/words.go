package engine

import (
	"context"
	"errors"
	"fmt"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
)

// loadWords reads the repository's own admission files
// (layers.admission_files) once, before any agent runs: from the loop's
// trusted commit (the newest commit on HEAD's line the loop did not
// make), never from the working tree the agent edits; outside git, or
// before the first commit, from the working tree as the run found it. A
// file that is missing there or does not read is a usage error naming
// it (and its line).
func (e *engine) loadWords(ctx context.Context) error {
	files := e.opts.Project.Config.Layers.AdmissionFiles
	if len(files) == 0 {
		return nil
	}
	base := trustedBase(ctx, e.root)
	var objs *igit.Objects
	if base.commit != "" {
		var err error
		if objs, err = igit.OpenObjects(ctx, e.root, safefile.ConfigLimit); err != nil {
			return fmt.Errorf("layers.admission_files: %w", err)
		}
		defer objs.Close()
	}
	for _, rel := range files {
		var b []byte
		var err error
		if objs != nil {
			_, b, err = objs.Blob(base.commit, rel)
			if errors.Is(err, igit.ErrMissing) {
				return exitcode.New(exitcode.Usage, fmt.Errorf("%s: layers.admission_files: %s is not in the commit the loop started from (%.12s): commit it (the agent's edits never count)", e.opts.Project.Config.File, rel, base.commit))
			}
		} else {
			b, err = e.readTree(rel, safefile.ConfigLimit)
		}
		if err != nil {
			return exitcode.New(exitcode.Usage, fmt.Errorf("%s: layers.admission_files: %s: %w", e.opts.Project.Config.File, rel, err))
		}
		w, err := layers.ParseWords(rel, b)
		if err != nil {
			return exitcode.New(exitcode.Usage, err)
		}
		e.words = e.words.Add(w)
	}
	e.log.Debug().Strs("files", files).Int("phrases", len(e.words.Phrases)).Int("headings", len(e.words.Headings)).Msg("admission files read")
	return nil
}
