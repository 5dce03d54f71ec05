package actionstep_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goEnv is `go env NAME` of the go running the tests.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// TestTamperedReleaseFallsBackToSourceBuild follows the tampered release
// through the rest of the Action: the install step refuses it, the Go and
// cache steps turn on with the key the Action computes, the build step
// (run exactly as action.yml has it, with a real `go build`) builds
// ralph-ci from the Action's source, and the ralph-ci step runs that build.
// The build step's module and build caches (runner.temp folders) are
// linked to this machine's, as an actions/cache hit would restore them.
func TestTamperedReleaseFallsBackToSourceBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the fallback build needs go on PATH: %v", err)
	}
	j := newJob(t, "v1.2.3", "X64", nil, func(good, bad string) *fakeRelease {
		return newRelease(t, good, bad, true)
	}, func(dir string) { stubGH(t, dir, false, false) })

	res := j.step(t, "install")
	if res.Err != nil || res.Outputs["build"] != "true" {
		t.Fatalf("install: %v, outputs %v, want build=true\n%s", res.Err, res.Outputs, res.Output)
	}
	for _, id := range []string{"setup-go", "build"} {
		s, err := j.action.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		if on, err := j.runner.Enabled(s); err != nil || !on {
			t.Errorf("step %s enabled = %v (%v), want on after a refused release", id, on, err)
		}
	}
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	j.runner.Ctx["steps.setup-go.outputs.go-version"] = goVersion
	cache := cacheStep(t, j)
	wantKey := "ralph-ci-go-Linux-X64-" + goVersion + "-" + res.Outputs["go-sum"]
	if got, err := j.runner.Ctx.Expand(cache["key"]); err != nil || got != wantKey {
		t.Errorf("cache key = %q (%v), want %q", got, err, wantKey)
	}
	if got, err := j.runner.Ctx.Expand(cache["restore-keys"]); err != nil || !strings.HasPrefix(wantKey, got) || !strings.HasSuffix(got, goVersion+"-") {
		t.Errorf("cache restore-keys = %q (%v), want a prefix of %q ending in the Go version", got, err, wantKey)
	}
	paths, err := j.runner.Ctx.Expand(cache["path"])
	if err != nil {
		t.Fatal(err)
	}
	build, _ := j.action.Step("build")
	env, err := j.runner.StepEnv(build)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"GOMODCACHE", "GOCACHE"} {
		if !strings.Contains(paths, env[v]) || !strings.HasPrefix(env[v], j.temp) {
			t.Errorf("build step %s = %q: want a runner.temp folder among the cached paths %q", v, env[v], paths)
		}
	}
	// The cache "hit": the runner.temp folders hold this machine's caches.
	if err := os.MkdirAll(filepath.Dir(env["GOCACHE"]), 0o755); err != nil {
		t.Fatal(err)
	}
	for v, host := range map[string]string{"GOMODCACHE": goEnv(t, "GOMODCACHE"), "GOCACHE": goEnv(t, "GOCACHE")} {
		if err := os.Symlink(host, env[v]); err != nil {
			t.Fatal(err)
		}
	}

	res = j.step(t, "build")
	if res.Err != nil {
		t.Fatalf("build step failed: %v\n%s", res.Err, res.Output)
	}
	if res.Outputs["bin"] != j.bin {
		t.Errorf("build outputs = %v, want bin=%s", res.Outputs, j.bin)
	}
	want := "ralph-ci v1.2.3 " + runtime.GOOS + "/" + runtime.GOARCH
	if !strings.Contains(res.Output, want) {
		t.Errorf("the built binary's version line lacks %q:\n%s", want, res.Output)
	}
	checkRalphBin(t, j, "built")
	if runtime.GOOS == "linux" {
		checkStatic(t, j.bin)
	}
}

// checkStatic: the ELF binary at path asks for no dynamic loader and no
// shared library, as the release (CGO_ENABLED=0) does not.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader (PT_INTERP): every start of it, each agent's shepherd included, pays for linking; build it with CGO_ENABLED=0 as the release is", path)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v (%v), want none as the release", path, libs, err)
	}
}

// TestReleaseInstallSkipsTheGoSteps: with a release installed, no Go
// toolchain, cache or build step runs, and the ralph-ci step runs the
// release binary.
func TestReleaseInstallSkipsTheGoSteps(t *testing.T) {
	j := newJob(t, "v1.2.3", "X64", nil, func(good, bad string) *fakeRelease {
		return newRelease(t, good, bad, false)
	}, func(dir string) { stubGH(t, dir, false, false) })
	if res := j.step(t, "install"); res.Err != nil || res.Outputs["bin"] != j.bin {
		t.Fatalf("install: %v %v\n%s", res.Err, res.Outputs, res.Output)
	}
	for _, s := range j.action.Runs.Steps {
		if s.ID == "install" || s.ID == "ralph" {
			continue
		}
		if on, err := j.runner.Enabled(s); err != nil || on {
			t.Errorf("step %q enabled = %v (%v), want skipped when a release is installed", s.Name, on, err)
		}
	}
	checkRalphBin(t, j, "installed")
}

// checkRalphBin: the ralph-ci step runs the binary at j.bin.
func checkRalphBin(t *testing.T, j *job, how string) {
	t.Helper()
	ralph, err := j.action.Step("ralph")
	if err != nil {
		t.Fatal(err)
	}
	env, err := j.runner.StepEnv(ralph)
	if err != nil {
		t.Fatal(err)
	}
	if env["RALPH_BIN"] != j.bin {
		t.Errorf("ralph-ci step RALPH_BIN = %q, want the %s %s", env["RALPH_BIN"], how, j.bin)
	}
}

// cacheStep is the with: of the actions/cache step (a uses: step, which
// these tests do not run), checked to be on for a source build.
func cacheStep(t *testing.T, j *job) map[string]string {
	t.Helper()
	for _, s := range j.action.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/cache@") {
			if on, err := j.runner.Enabled(s); err != nil || !on {
				t.Errorf("cache step enabled = %v (%v), want on for a source build", on, err)
			}
			return s.With
		}
	}
	t.Fatal("action.yml has no actions/cache step")
	return nil
}
