package sudoroot

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWanted(t *testing.T) {
	for _, c := range []struct {
		setting string
		euid    int
		sudoUID string
		want    bool
	}{
		{"", 1001, "", true},
		{"auto", 1001, "", true},
		{"off", 1001, "", false},         // the opt-out never asks sudo
		{"ralph-agent", 1001, "", false}, // a named user needs root already (agentuser.Pick refuses)
		{"", 0, "", false},               // root already
		{"", 1001, "1001", false},        // came through sudo: never again
	} {
		if got := Wanted(c.setting, c.euid, c.sudoUID); got != c.want {
			t.Errorf("Wanted(%q, %d, %q) = %v, want %v", c.setting, c.euid, c.sudoUID, got, c.want)
		}
	}
}

func TestEnviron(t *testing.T) {
	env := []string{"PATH=/job/bin:/usr/bin", "SUDO_UID=7", "RALPH_SUDO_FROM=1/3", "RALPH_TOKEN_FD=3", "PYTHONPATH=/p", "HOME=/home/runner"}
	own := []string{"PATH=/usr/sbin:/usr/bin", "SUDO_UID=1001", "SUDO_GID=1001", "SUDO_USER=runner", "USER=root"}
	got := Environ(env, own, []string{"RALPH_TOKEN_FD"})
	want := []string{"PATH=/job/bin:/usr/bin", "PYTHONPATH=/p", "HOME=/home/runner", "SUDO_UID=1001", "SUDO_GID=1001", "SUDO_USER=runner"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}

func TestInvoker(t *testing.T) {
	env := func(uid, gid string) func(string) string {
		return func(k string) string { return map[string]string{"SUDO_UID": uid, "SUDO_GID": gid}[k] }
	}
	if uid, gid, ok := Invoker(0, env("1001", "121")); !ok || uid != 1001 || gid != 121 {
		t.Errorf("Invoker as root = %d, %d, %v", uid, gid, ok)
	}
	for _, c := range []struct {
		euid     int
		uid, gid string
	}{{1001, "1001", "121"}, {0, "", ""}, {0, "0", "0"}, {0, "x", "1"}, {0, "5", ""}} {
		if _, _, ok := Invoker(c.euid, env(c.uid, c.gid)); ok {
			t.Errorf("Invoker(%d, SUDO_UID=%q SUDO_GID=%q) is ok", c.euid, c.uid, c.gid)
		}
	}
}

func TestParseFrom(t *testing.T) {
	if pid, fd, err := ParseFrom("1234/5"); err != nil || pid != 1234 || fd != 5 {
		t.Errorf("ParseFrom(1234/5) = %d, %d, %v", pid, fd, err)
	}
	for _, v := range []string{"", "1234", "1/5", "1234/2", "a/5", "1234/x"} {
		if _, _, err := ParseFrom(v); err == nil {
			t.Errorf("ParseFrom(%q) is no error", v)
		}
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	p := Payload{Env: []string{"A=1", "B=x=y\nz"}, Token: "t", PushToken: "p"}
	raw, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw)
	if err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("Decode(Encode(p)) = %+v, %v", got, err)
	}
	if _, err := Decode([]byte("not json")); err == nil {
		t.Error("a broken payload decodes")
	}
}

func TestMissing(t *testing.T) {
	if !Works {
		t.Skip("Linux only")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "there"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(dir, "there"):             filepath.Join(dir, "there"),
		filepath.Join(dir, "new.xml"):           filepath.Join(dir, "new.xml"),
		filepath.Join(dir, "a", "b", "new.xml"): filepath.Join(dir, "a"),
	} {
		if got := Missing(in); got != want {
			t.Errorf("Missing(%s) = %s, want %s", in, got, want)
		}
	}
}
