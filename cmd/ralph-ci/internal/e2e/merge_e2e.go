package e2e

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

func Protect(w *CIWorld) *CIWorld {
	w.ExtraEnv = append(w.ExtraEnv, "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=42")
	w.Srv.Protect("ralph-ci")
	w.Srv.TreeFrom = func(ref string) []string {
		if ref == w.Srv.BaseSHA {
			ref = "master"
		}
		out, err := exec.Command("git", "-C", w.Bare, "ls-tree", "-r", "--name-only", ref).Output()
		if err != nil {
			return nil
		}
		return strings.Fields(string(out))
	}
	return w
}

// MergePR presses the merge button: PUT .../pulls/2/merge, as a person
// with the token would; it returns the answer's status code.
func (w *CIWorld) MergePR() int {
	w.T.Helper()
	req, err := http.NewRequest("PUT", w.Srv.URL+"/repos/Codertocat/Hello-World/pulls/2/merge", bytes.NewReader([]byte(`{"merge_method":"squash"}`)))
	if err != nil {
		w.T.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.T.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// gate is the newest `ralph-ci` status on sha.
func (w *CIWorld) gate(sha string) fake.Status {
	w.T.Helper()
	_, statuses := w.Srv.Snapshot()
	for i := len(statuses) - 1; i >= 0; i-- {
		if st := statuses[i]; st.SHA == sha && st.Context == "ralph-ci" {
			return st
		}
	}
	w.T.Fatalf("no ralph-ci status on %.7s", sha)
	return fake.Status{}
}

func (w *CIWorld) WantGate(sha, state, desc string) {
	w.T.Helper()
	if st := w.gate(sha); st.State != state || !strings.Contains(st.Description, desc) || st.TargetURL != "https://github.com/Codertocat/Hello-World/actions/runs/42" {
		w.T.Fatalf("ralph-ci on %.7s: %s %q -> %s, want %s with %q pointing at the run", sha, st.State, st.Description, st.TargetURL, state, desc)
	}
}

func (w *CIWorld) WantGateState(sha, state, desc string) {
	w.T.Helper()
	if st := w.gate(sha); st.State != state || !strings.Contains(st.Description, desc) {
		w.T.Fatalf("ralph-ci on %.7s: %s %q, want %s with %q", sha, st.State, st.Description, state, desc)
	}
}
