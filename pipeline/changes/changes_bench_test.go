//go:build unix

package changes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// benchFiles is the number of committed files in the benchmark repository.
const benchFiles = 20000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// TestMain drops what points git at another repository (gitenv.Drop:
// the tests run under git bisect run or a hook must not write into the
// developer's), then removes the benchmark repository, which is shared by all
// benchmarks of a run and built once.
func TestMain(m *testing.M) {
	gitenv.Drop()
	code := m.Run()
	igit.Cleanup() // ralph-ci's own git directories, one per repository a test made
	if benchDir != "" {
		os.RemoveAll(filepath.Dir(benchDir))
	}
	os.Exit(code)
}

// benchRepo returns a git repository with benchFiles committed files in
// nested directories, 5 of them modified, 1 deleted and 3 untracked files.
// It is built once per run and settled: its index is newer than its files, so
// git status does not re-read racily clean files.
func benchRepo(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() { benchDir, benchErr = buildBenchRepo() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func buildBenchRepo() (string, error) {
	tmp, err := os.MkdirTemp("", "ralph-changes-bench-")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "repo")
	for i := range benchFiles {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("sub%02d", i/50%20), fmt.Sprintf("file%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return dir, err
		}
		body := fmt.Sprintf("package p\n\n// File %d.\nconst N%d = %d\n", i, i, i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return dir, err
		}
	}
	time.Sleep(1100 * time.Millisecond) // so the index is newer than every file
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "20k files"}} {
		if err := benchGit(dir, args...); err != nil {
			return dir, err
		}
	}
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i), "sub00", fmt.Sprintf("file%05d.go", i))
		if err := os.WriteFile(p, []byte("package p // dirty\n"), 0o644); err != nil {
			return dir, err
		}
	}
	if err := os.Remove(filepath.Join(dir, "pkg10", "sub00", "file00010.go")); err != nil {
		return dir, err
	}
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, "pkg20", fmt.Sprintf("untracked%d.go", i)), []byte("package p\n"), 0o644); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// benchGit runs git in dir.
func benchGit(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = testGitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}

// withUntrackedCache turns git's untracked cache on in dir for the rest of the
// benchmark, as feature.manyFiles does, and fills it.
func withUntrackedCache(b *testing.B, dir string) {
	b.Helper()
	for _, args := range [][]string{{"config", "core.untrackedCache", "true"}, {"status"}, {"status"}} {
		if err := benchGit(dir, args...); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() {
		_ = benchGit(dir, "config", "--unset", "core.untrackedCache")
		_ = benchGit(dir, "update-index", "--no-untracked-cache")
	})
}

// cpuTime is the user and system CPU time used so far by this process and the
// child processes it waited for.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// loop runs op b.N times and also reports the CPU time per op, which a busy
// machine disturbs less than the wall time.
func loop(b *testing.B, op func()) {
	start := cpuTime()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// baseline returns a snapshot of dir taken while one more file was dirty, then
// restores that file.
func baseline(b *testing.B, dir string) Snapshot {
	b.Helper()
	p := filepath.Join(dir, "pkg30", "sub00", "file00030.go")
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package p // briefly dirty\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	before, err := Take(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		b.Fatal(err)
	}
	return before
}

// BenchmarkGitStatusPorcelain20k is the target: what a shell loop running
// git status --porcelain per iteration pays.
func BenchmarkGitStatusPorcelain20k(b *testing.B) {
	benchGitStatus(b, benchRepo(b))
}

// BenchmarkGitStatusPorcelain20kUntrackedCache is the target in a repository
// with git's untracked cache on.
func BenchmarkGitStatusPorcelain20kUntrackedCache(b *testing.B) {
	dir := benchRepo(b)
	withUntrackedCache(b, dir)
	benchGitStatus(b, dir)
}

func benchGitStatus(b *testing.B, dir string) {
	loop(b, func() {
		cmd := exec.Command("git", "status", "--porcelain")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git status: %v\n%s", err, out)
		}
	})
}

// BenchmarkTake20k is one snapshot per rotation.
func BenchmarkTake20k(b *testing.B) {
	benchTake(b, benchRepo(b))
}

// BenchmarkTake20kUntrackedCache is one snapshot per rotation in a
// repository with git's untracked cache on.
func BenchmarkTake20kUntrackedCache(b *testing.B) {
	dir := benchRepo(b)
	withUntrackedCache(b, dir)
	benchTake(b, dir)
}

func benchTake(b *testing.B, dir string) {
	ctx := context.Background()
	loop(b, func() {
		s, err := Take(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Files) != 9 {
			b.Fatalf("snapshot lists %d files, want 9", len(s.Files))
		}
	})
}

// BenchmarkWatcherTakeUnchanged20k is one snapshot per rotation by a
// Watcher when the rotation changed nothing: a barrier, no git.
func BenchmarkWatcherTakeUnchanged20k(b *testing.B) {
	dir := benchRepo(b)
	ctx := context.Background()
	w, err := NewWatcher(ctx, dir, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if on, why := w.FastPath(); !on {
		b.Logf("fast path off: %s", why)
	}
	loop(b, func() {
		s, err := w.Take(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Files) != 9 {
			b.Fatalf("snapshot lists %d files, want 9", len(s.Files))
		}
	})
}

// BenchmarkTakeChanged20k is the whole per-rotation cost: one snapshot and
// its comparison with the previous one, including one blob look-up.
func BenchmarkTakeChanged20k(b *testing.B) {
	dir := benchRepo(b)
	ctx := context.Background()
	before := baseline(b, dir)
	loop(b, func() {
		after, err := Take(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		changed, err := Changed(ctx, dir, before, after)
		if err != nil {
			b.Fatal(err)
		}
		if len(changed) != 1 {
			b.Fatalf("changed = %q, want the restored file", changed)
		}
	})
}
