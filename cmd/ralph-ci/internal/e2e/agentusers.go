package e2e

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ShareWithAgents makes dir, and everything under it, readable and
// writable by every user of the agent pool (box.user auto gives each
// run as root a user of its own, so runs at once are different users):
// mode 0777 or 0666, and on each folder a default ACL that gives the
// files and folders made in it later the same (the umask does not
// apply under a default ACL). A shared build cache, a CLI's settings
// folder. Nothing where the tests are not root.
func ShareWithAgents(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	// A default ACL of the three base entries, rwx each
	// (<linux/posix_acl_xattr.h>: version 2; tag, perm, id).
	acl := binary.LittleEndian.AppendUint32(nil, 2)
	for _, tag := range []uint16{0x01, 0x04, 0x20} {
		acl = binary.LittleEndian.AppendUint16(acl, tag)
		acl = binary.LittleEndian.AppendUint16(acl, 7)
		acl = binary.LittleEndian.AppendUint32(acl, 0xffffffff)
	}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		switch {
		case err != nil:
			return err
		case fi.Mode()&os.ModeSymlink != 0:
			return nil
		case fi.IsDir():
			if err := os.Chmod(p, 0o777); err != nil {
				return err
			}
			return setDefaultACL(p, acl)
		}
		return os.Chmod(p, fi.Mode().Perm()|0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// AgentUserOf is the user of the agent's own a run logged (its JSON
// log, stderr): its name and uid; "" when the log names none.
func AgentUserOf(stderr []byte) (name string, uid int) {
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Msg  string `json:"message"`
			User string `json:"user"`
			UID  int    `json:"uid"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && strings.HasPrefix(l.Msg, "box: agents and verification commands run as a user of their own") {
			return l.User, l.UID
		}
	}
	return "", 0
}
