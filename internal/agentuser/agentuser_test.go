package agentuser

import "testing"

func TestPick(t *testing.T) {
	for _, c := range []struct {
		setting string
		euid    int
		want    string
		err     bool
	}{
		{"", 0, DefaultName, false},
		{"auto", 0, DefaultName, false},
		{"auto", 1001, "", false},
		{"off", 0, "", false},
		{"off", 1001, "", false},
		{"builder", 0, "builder", false},
		{"builder", 1001, "", true},
		{"root", 0, "", true},
		{"Bad Name", 0, "", true},
	} {
		got, err := Pick(c.setting, c.euid)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Pick(%q, %d) = %q, %v; want %q, error %v", c.setting, c.euid, got, err, c.want, c.err)
		}
	}
}

func TestToolchains(t *testing.T) {
	exists := func(p string) bool { return p == "/root/.rustup" }
	none := func(string) bool { return false }
	if got := Toolchains("/root", none, exists); len(got) != 1 || got[0] != "RUSTUP_HOME=/root/.rustup" {
		t.Errorf("rustup in HOME: %q", got)
	}
	if got := Toolchains("/root", func(k string) bool { return k == "RUSTUP_HOME" }, exists); len(got) != 0 {
		t.Errorf("RUSTUP_HOME set by the job: %q", got)
	}
	if got := Toolchains("/home/x", none, exists); len(got) != 0 {
		t.Errorf("no rustup: %q", got)
	}
}
