package gitenv

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The token every credential of these tests holds.
const token = "ghs_markerToken0123456789"

// A pair that can carry a credential is withheld whatever the case of
// its section and name, the rest is renumbered from 0 with the count
// that says so, and the pairs git never reads (beyond the count) go too.
func TestWithoutCredentialsRenumbers(t *testing.T) {
	env := []string{"PATH=/bin",
		"GIT_CONFIG_KEY_0=HTTP.https://github.com/.ExtraHeader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic " + token,
		"GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=/work/a",
		"GIT_CONFIG_KEY_2=url.https://x-access-token:" + token + "@github.com/.insteadOf", "GIT_CONFIG_VALUE_2=https://github.com/",
		"GIT_CONFIG_KEY_3=user.name", "GIT_CONFIG_VALUE_3=ci",
		"GIT_CONFIG_KEY_4=Credential.https://github.com.Helper", "GIT_CONFIG_VALUE_4=!f() { echo password=" + token + "; }; f",
		"GIT_CONFIG_COUNT=5",
		"GIT_CONFIG_KEY_5=http.extraheader", "GIT_CONFIG_VALUE_5=x " + token, // beyond the count
		"HOME=/h",
	}
	kept, withheld := WithoutCredentials(env)
	want := []string{"PATH=/bin", "HOME=/h",
		"GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=/work/a",
		"GIT_CONFIG_KEY_1=user.name", "GIT_CONFIG_VALUE_1=ci", "GIT_CONFIG_COUNT=2"}
	if !slices.Equal(kept, want) {
		t.Errorf("kept:\n got %q\nwant %q", kept, want)
	}
	var vars, keys []string
	for _, w := range withheld {
		vars, keys = append(vars, w.Var), append(keys, w.Key)
		if !slices.Contains(w.Secrets, token) {
			t.Errorf("%s (%s): the secrets to mask %q lack the token", w.Var, w.Why, w.Secrets)
		}
	}
	if want := []string{"GIT_CONFIG_KEY_0", "GIT_CONFIG_KEY_2", "GIT_CONFIG_KEY_4", "GIT_CONFIG_KEY_5"}; !slices.Equal(vars, want) {
		t.Errorf("withheld %q, want %q", vars, want)
	}
	if want := []string{"HTTP.https://github.com/.ExtraHeader", "url.https://***@github.com/.insteadOf", "Credential.https://github.com.Helper", "http.extraheader"}; !slices.Equal(keys, want) {
		t.Errorf("the keys named %q, want %q (never the token)", keys, want)
	}
}

// Which keys are refused and which kept, one pair at a time.
func TestCarriesCredential(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		refused    bool
	}{
		{"http.extraheader", "AUTHORIZATION: basic eA==", true},
		{"http.https://github.com/owner/repo.git.extraHeader", "X-Token: t", true},
		{"HTTP.EXTRAHEADER", "x", true},
		{"http.cookieFile", "/home/runner/cookies", true},
		{"http.https://h/.cookiefile", "/c", true},
		{"http.sslKey", "/k.pem", true},
		{"http.proxySSLCert", "/c.pem", true},
		{"credential.helper", "store", true},
		{"credential.https://github.com.username", "x-access-token", true},
		{"core.askPass", "/bin/echo", true},
		{"core.sshCommand", "ssh -i /tmp/key", true},
		{"core.gitProxy", "/bin/proxy", true},
		{"include.path", "/home/runner/.gitconfig.secret", true},
		{"includeIf.gitdir:/work/.path", "/secret", true},
		{"sendemail.smtpPass", "pw", true},
		{"sendemail.work.smtppass", "pw", true},
		{"imap.pass", "pw", true},
		{"url.https://x-access-token:" + token + "@github.com/.insteadOf", "https://github.com/", true},
		{"url.https://" + token + "@github.com/.pushInsteadOf", "https://github.com/", true},
		{"url.https://github.com/.insteadOf", "https://oauth2:" + token + "@github.com/", true},
		{"remote.origin.url", "https://x-access-token:" + token + "@github.com/o/r", true},
		{"submodule.lib.url", "https://" + token + "@github.com/o/lib", true},
		{"http.proxy", "http://user:pw@proxy:3128", true},
		{"alias.fetch2", "!git -c http.extraheader='Authorization: bearer t' fetch", true},
		{"safe.directory", "/work/repo", false},
		{"safe.directory", "*", false},
		{"user.email", "ci@example.com", false},
		{"url.git@github.com:.insteadOf", "https://github.com/", false},
		{"url.ssh://git@github.com/.insteadOf", "https://github.com/", false},
		{"url.https://github.com/.insteadOf", "git@github.com:", false},
		{"remote.origin.url", "https://github.com/o/r", false},
		{"http.proxy", "http://proxy:3128", false},
		{"http.sslCAInfo", "/etc/ssl/ca.pem", false},
		{"core.autocrlf", "input", false},
		{"init.defaultBranch", "main", false},
	} {
		if got := carriesCredential(tc.key, tc.value) != ""; got != tc.refused {
			t.Errorf("%s=%s: refused %v, want %v", tc.key, tc.value, got, tc.refused)
		}
	}
}

// GIT_CONFIG_PARAMETERS is read with git's quoting, in both of its
// forms, and written again as git writes it, without the refused pairs.
func TestWithoutCredentialsParameters(t *testing.T) {
	raw := `'safe.directory'='/work/it'\''s here'\!'' 'HTTP.https://github.com/.EXTRAHEADER'='AUTHORIZATION: basic ` + token + `'` +
		"\t'core.bare'= 'user.name=old style' 'url.https://u:" + token + "@h/.insteadof=https://h/'  'flag.only'"
	pairs, err := parseParameters(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{Key: "safe.directory", Value: "/work/it's here!"}, {Key: "HTTP.https://github.com/.EXTRAHEADER", Value: "AUTHORIZATION: basic " + token},
		{Key: "core.bare", NoValue: true}, {Key: "user.name", Value: "old style"}, {Key: "url.https://u:" + token + "@h/.insteadof", Value: "https://h/"}, {Key: "flag.only", NoValue: true}}
	if !slices.Equal(pairs, want) {
		t.Fatalf("parsed\n %+v\nwant %+v", pairs, want)
	}
	kept, withheld := WithoutCredentials([]string{"GIT_CONFIG_PARAMETERS=" + raw})
	if want := []string{`GIT_CONFIG_PARAMETERS='safe.directory'='/work/it'\''s here'\!'' 'core.bare'= 'user.name'='old style' 'flag.only'=`}; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	if len(withheld) != 2 || withheld[1].Key != "url.https://***@h/.insteadof" || strings.Contains(withheld[0].Key+withheld[1].Key, token) {
		t.Errorf("withheld %+v", withheld)
	}
	for _, bogus := range []string{`'a.b`, `a.b=c`, `'a.b'x`, `'a.b'='c'x`, `'a.b'=c`} {
		if _, err := parseParameters(bogus); err == nil {
			t.Errorf("%q: parsed, but git refuses it", bogus)
		}
	}
	kept, withheld = WithoutCredentials([]string{"GIT_CONFIG_PARAMETERS='http.extraheader'='" + token, "PATH=/bin"})
	if !slices.Equal(kept, []string{"PATH=/bin"}) || len(withheld) != 1 || !slices.Contains(withheld[0].Secrets, "'http.extraheader'='"+token) {
		t.Errorf("a bogus GIT_CONFIG_PARAMETERS: kept %q, withheld %+v", kept, withheld)
	}
}

// A set git refuses whole (a count it does not read, a missing pair) is
// withheld whole; without a refused pair the environment is as it was,
// and the last of twice-set variables is the one judged.
func TestWithoutCredentialsWholeSets(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		kept []string
	}{
		{"bad count", []string{"GIT_CONFIG_COUNT=one", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "PATH=/bin"}, []string{"PATH=/bin"}},
		{"missing pair", []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_KEY_1=a.b", "PATH=/bin"}, []string{"PATH=/bin"}},
		{"no refused pair", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_PARAMETERS='a.b'='c'"},
			[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_PARAMETERS='a.b'='c'"}},
		{"set twice, the last wins", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_KEY_0=http.extraheader"},
			nil},
	} {
		kept, _ := WithoutCredentials(tc.env)
		if !slices.Equal(kept, tc.kept) {
			t.Errorf("%s: kept %q, want %q", tc.name, kept, tc.kept)
		}
	}
}

// git itself reads the pairs kept, and only them: the configuration git
// lists with the environment filtered is what it lists with the input
// minus the refused pairs, for GIT_CONFIG_PARAMETERS as git wrote it for
// an alias (`git -c`) and for renumbered GIT_CONFIG_COUNT pairs.
func TestGitReadsWhatIsKept(t *testing.T) {
	Drop()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	base := []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	list := func(env []string) string {
		t.Helper()
		cmd := exec.Command(git, "config", "--list")
		cmd.Dir, cmd.Env = t.TempDir(), append(base, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git config --list: %v\n%s", err, out)
		}
		return string(out)
	}
	// GIT_CONFIG_PARAMETERS as git hands it to an alias's command.
	cmd := exec.Command(git, "-c", "safe.directory=/it's here!", "-c", "http.extraHeader=AUTHORIZATION: basic "+token,
		"-c", "core.bare", "-c", "url.https://u:"+token+"@h/.insteadOf=https://h/", "-c", "user.name=a b", "-c", "alias.p=!printenv GIT_CONFIG_PARAMETERS", "p")
	cmd.Dir, cmd.Env = t.TempDir(), base
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	params := "GIT_CONFIG_PARAMETERS=" + strings.TrimSuffix(string(out), "\n")
	count := []string{"GIT_CONFIG_COUNT=3", "GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=!echo " + token,
		"GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=/work", "GIT_CONFIG_KEY_2=Safe.Directory", "GIT_CONFIG_VALUE_2=/other"}
	kept, withheld := WithoutCredentials(append(count, params))
	if len(withheld) != 3 {
		t.Errorf("withheld %+v, want the helper, the header and the URL", withheld)
	}
	// Which of the two git reads first is git's business: compared as sets.
	got := strings.Split(strings.TrimSpace(list(kept)), "\n")
	want := []string{"safe.directory=/work", "safe.directory=/other", "safe.directory=/it's here!", "core.bare", "user.name=a b", "alias.p=!printenv GIT_CONFIG_PARAMETERS"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("git lists\n%q\nwant\n%q", got, want)
	}
	if all := list(append(count, params)); !strings.Contains(all, token) {
		t.Errorf("the input's configuration lacks the token:\n%s", all)
	}
}
