package scaffold

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example workflows are init's output for Claude Code, so that what a
// team copies and what init writes are one text: the loop's workflow
// installs the CLI it runs and passes the key it reads.
func TestExampleWorkflowsAreInitsOutput(t *testing.T) {
	agent, err := AgentNamed("claude")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(agent, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if !strings.HasPrefix(f.Path, ".github/workflows/") {
			continue
		}
		n++
		example := filepath.Join("../../examples/workflows", filepath.Base(f.Path))
		want, err := os.ReadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != string(f.Content) {
			t.Errorf("%s differs from what init --agent claude writes (internal/scaffold/templates): make them one again\n--- init writes ---\n%s", example, f.Content)
		}
	}
	if n != 2 {
		t.Fatalf("init writes %d workflows, want 2", n)
	}
}

func TestEveryAgentsWorkflowInstallsItsCLIAndPassesItsKey(t *testing.T) {
	for _, agent := range Agents {
		files, err := Files(agent, "go test ./...")
		if err != nil {
			t.Fatal(err)
		}
		run := string(find(t, files, ".github/workflows/ralph-run.yml"))
		config := string(find(t, files, "ralph.yaml"))
		if agent.Preset == "" {
			if !strings.Contains(config, "command: [sh, agent.sh]") || len(find(t, files, "agent.sh")) == 0 {
				t.Errorf("%s: want a config running agent.sh, and agent.sh:\n%s", agent.Name, config)
			}
			continue
		}
		for _, want := range []string{"run: " + agent.Install, agent.Secret + ": ${{ secrets." + agent.Secret + " }}", "contents: write", "pull-requests: write", "statuses: write"} {
			if !strings.Contains(run, want) {
				t.Errorf("%s: ralph-run.yml lacks %q:\n%s", agent.Name, want, run)
			}
		}
		if !strings.Contains(config, "preset: "+agent.Preset) || !strings.Contains(config, `command: "go test ./..."`) {
			t.Errorf("%s: ralph.yaml:\n%s", agent.Name, config)
		}
	}
}

func find(t *testing.T, files []File, path string) []byte {
	t.Helper()
	for _, f := range files {
		if f.Path == path {
			return f.Content
		}
	}
	t.Fatalf("init writes no %s", path)
	return nil
}

func TestWriteRefusesToOverwriteAndWritesNothingThen(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "ralph.yml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Files(Agents[0], "")
	if err != nil {
		t.Fatal(err)
	}
	err = Write(root, files)
	if err == nil || !strings.Contains(err.Error(), "ralph.yml") {
		t.Fatalf("Write over a ralph.yml = %v, want a refusal naming it", err)
	}
	if _, err := os.Stat(filepath.Join(root, "specs")); !os.IsNotExist(err) {
		t.Errorf("a refused init wrote specs/: %v", err)
	}
}

func TestAppendGitignoreOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		added, err := AppendGitignore(root)
		if err != nil || added != want {
			t.Fatalf("call %d: added %v, %v; want %v", i+1, added, err, want)
		}
	}
	got, _ := os.ReadFile(filepath.Join(root, ".gitignore"))
	if string(got) != "bin\n.ralph/\n" {
		t.Errorf(".gitignore = %q", got)
	}
}

func TestTestCommand(t *testing.T) {
	root := t.TempDir()
	if got := TestCommand(root); got != "" {
		t.Errorf("empty folder: %q", got)
	}
	os.WriteFile(filepath.Join(root, "package.json"), []byte("{}"), 0o644)
	if got := TestCommand(root); got != "npm test" {
		t.Errorf("package.json: %q", got)
	}
}

// What init writes for every agent passes actionlint (installed by .ci/run;
// skipped without it outside CI).
func TestWorkflowsPassActionlint(t *testing.T) {
	lint, err := exec.LookPath("actionlint")
	if err != nil {
		out, _ := exec.Command("go", "env", "GOPATH").Output()
		lint = filepath.Join(strings.TrimSpace(string(out)), "bin", "actionlint")
		if _, err := os.Stat(lint); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("actionlint is not installed; .ci/run installs it")
			}
			t.Skip("actionlint is not installed (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)")
		}
	}
	for _, agent := range Agents {
		root := t.TempDir()
		files, err := Files(agent, "go test ./...")
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(root, files); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(lint, ".github/workflows/ralph-run.yml", ".github/workflows/ralph-check.yml")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("init --agent %s: actionlint: %v\n%s", agent.Name, err, out)
		}
	}
}

// The README shows the config init writes for a Go repository, comments
// left out: it must stay what init writes.
func TestREADMEShowsWhatInitWrites(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "The config `init` writes, for a Go repository:\n\n```yaml\n# ralph.yaml\n")
	if !ok {
		t.Fatal("README: no block after \"The config `init` writes, for a Go repository:\"")
	}
	shown, _, _ := strings.Cut(after, "```")
	files, err := Files(Agents[0], "go test ./...")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := withoutComments(string(find(t, files, "ralph.yaml"))), withoutComments(shown); got != want {
		t.Errorf("README shows:\n%s\ninit writes:\n%s", want, got)
	}
}

// withoutComments drops YAML comments and blank lines.
func withoutComments(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line[:i], `"`) {
			line = line[:i]
		}
		if line = strings.TrimRight(line, " "); strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
