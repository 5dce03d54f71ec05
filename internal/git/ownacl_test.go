package git

import "testing"

// The rule ownFolder applies on Windows to a folder's owner and access
// list, played on the descriptors Windows gives: the user's own folder in
// %LocalAppData% passes; a folder another user made in C:\, one open to
// Users or Everyone, one with no access list or an entry not understood
// fails, naming why.
func TestNotOnlyUs(t *testing.T) {
	const (
		me     = "S-1-5-21-1-2-3-1001"
		other  = "S-1-5-21-1-2-3-1002"
		system = "S-1-5-18"
		admins = "S-1-5-32-544"
		users  = "S-1-5-32-545"
		anyone = "S-1-1-0"
	)
	us := []string{me, system, admins, "S-1-3-0", "S-1-3-4"}
	type testCase struct {
		name    string
		owner   string
		hasDACL bool
		dacl    []ace
		want    string
	}
	for _, tc := range []testCase{
		{name: "the user's profile folder", owner: me, hasDACL: true,
			dacl: []ace{{aceAllowed, system}, {aceAllowed, admins}, {aceAllowed, me}}},
		{name: "made by an elevated process", owner: admins, hasDACL: true,
			dacl: []ace{{aceAllowed, system}, {aceAllowed, admins}, {aceAllowed, me}}},
		{name: "a denial is no harm", owner: me, hasDACL: true,
			dacl: []ace{{aceDenied, anyone}, {aceAllowed, me}}},
		{name: "no owner", want: "it has no owner"},
		{name: "another user's", owner: other, hasDACL: true,
			dacl: []ace{{aceAllowed, other}}, want: "owned by " + other},
		{name: "no access list", owner: me, want: "it has no access list: everyone may enter"},
		{name: "open to Users (C:\\ inherited)", owner: me, hasDACL: true,
			dacl: []ace{{aceAllowed, me}, {aceAllowed, users}}, want: "its access list lets in " + users},
		{name: "open to Everyone", owner: me, hasDACL: true,
			dacl: []ace{{aceAllowed, anyone}}, want: "its access list lets in " + anyone},
		{name: "an object entry", owner: me, hasDACL: true,
			dacl: []ace{{aceAllowed, me}, {5, me}}, want: "its access list has an entry of type 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := notOnlyUs(tc.owner, tc.hasDACL, tc.dacl, us); got != tc.want {
				t.Errorf("notOnlyUs = %q, want %q", got, tc.want)
			}
		})
	}
}
