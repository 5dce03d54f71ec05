package pullrequest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
)

// overlapAgent notes each call in $PROMPTS/<job>.<n> and keeps working
// (never done, so no checkpoint); job B's second call waits for
// $SYNC/a-done, so that B ends after A has ended.
const overlapAgent = `cat > /dev/null
n=$(($(ls "$PROMPTS" | grep -c "^$JOB\.") + 1))
touch "$PROMPTS/$JOB.$n"
if [ "$JOB" = B ] && [ "$n" = 2 ]; then
  i=0; while [ ! -e "$SYNC/a-done" ]; do i=$((i + 1)); [ "$i" -gt 300 ] && exit 9; sleep 0.1; done
fi
echo "RALPH_STATUS: CONTINUE"
`

// Two jobs on one pull request at the same time (two workflows, each its
// own checkout and GITHUB_TOKEN), through the binary, in the worst
// interleaving: the fake holds each job's first progress comment until
// both have looked for one, found none, and posted. They end with one
// progress comment, whose body is the later job's final update; each job
// wrote it twice (its first rotation and its end: the throttle held its
// other rotations back, counted requests), and one of the two posted
// comments was deleted.
func TestOverlappingJobsLeaveOneProgressCommentThroughTheBinary(t *testing.T) {
	w := newPRWorld(t, e2e.RalphBinary(t), map[string]string{"agent.sh": overlapAgent})
	dirB := filepath.Join(t.TempDir(), "b")
	if out, err := exec.Command("cp", "-a", w.Dir, dirB).CombinedOutput(); err != nil {
		t.Fatalf("copying the checkout: %v: %s", err, out)
	}
	syncDir := t.TempDir()
	w.Srv.JobTokens = []string{"token-A", "token-B"}

	// Per job token: its writes of the progress comment, and the barrier
	// holding its first post until both jobs post.
	var mu sync.Mutex
	writes := map[string][]string{} // token -> "METHOD path"
	posting := sync.WaitGroup{}
	posting.Add(2)
	posted := map[string]bool{}
	w.Srv.Hook = func(r *http.Request, body []byte) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		var c struct{ Body string }
		_ = json.Unmarshal(body, &c)
		progress := strings.HasPrefix(c.Body, prchannel.ProgressMarker)
		write := r.Method == http.MethodPatch || r.Method == http.MethodDelete || (r.Method == http.MethodPost && progress)
		if !strings.Contains(r.URL.Path, "/comments") || !write {
			return
		}
		mu.Lock()
		writes[token] = append(writes[token], r.Method+" "+r.URL.Path)
		first := r.Method == http.MethodPost && !posted[token]
		posted[token] = true
		mu.Unlock()
		if !first {
			return
		}
		posting.Done()
		held := make(chan struct{})
		go func() { posting.Wait(); close(held) }()
		select {
		case <-held:
		case <-time.After(15 * time.Second):
			t.Errorf("job %s posted its progress comment; the other job never did", token)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	defer cancel()
	start := func(job, dir, rotations string) (wait func()) {
		args := []string{"run", "--max-rotations", rotations, "--progress-interval", "1h"}
		cmd, o, e := w.Command(ctx, args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Env, "GITHUB_TOKEN=token-"+job, "GITHUB_WORKSPACE="+dir, "JOB="+job, "SYNC="+syncDir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return func() { w.Exit(3, cmd.Wait(), append(args, "(job "+job+")"), o, e) }
	}
	waitA, waitB := start("A", w.Dir, "2"), start("B", dirB, "3")
	waitA()
	if err := os.WriteFile(filepath.Join(syncDir, "a-done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitB()

	all := w.ProgressOf()
	if len(all) != 1 {
		t.Fatalf("%d progress comments after two overlapping jobs, want 1: %+v", len(all), all)
	}
	e2e.Contains(t, "the progress comment (job B's final update)", all[0].Body, "ralph-ci loop: ended", "Rotations: 3 of 3 this run")
	for job, rotations := range map[string]int{"A": 2, "B": 3} {
		calls, _ := filepath.Glob(filepath.Join(w.Prompts, job+".*"))
		var posts, edits int
		for _, r := range writes["token-"+job] {
			posts += b2i(strings.HasPrefix(r, "POST "))
			edits += b2i(strings.HasPrefix(r, "PATCH "))
		}
		if len(calls) != rotations || posts != 1 || edits != 1 {
			t.Errorf("job %s: %d rotations, %d posts and %d edits of the progress comment (%v); want %d rotations, 1 post (its first rotation) and 1 edit (its end)",
				job, len(calls), posts, edits, writes["token-"+job], rotations)
		}
	}
	if deletes := w.Srv.Seen("DELETE", `/issues/comments/`); deletes != 1 {
		t.Errorf("%d progress comments deleted, want 1 (the newer of the two posted)", deletes)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
