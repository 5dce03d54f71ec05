package git

import (
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// systemBases are the folders makeBase tries first on Windows, which has
// no /var/tmp nor /tmp: the user's local application data
// (%LocalAppData%) and temporary folder (%TEMP%), which Windows makes the
// user's own (only the user, SYSTEM and the Administrators may enter).
// There is no Landlock here: the agents may change them as the user may.
func systemBases() []string {
	cache, _ := os.UserCacheDir()
	return []string{cache, os.TempDir()}
}

// ownName is the name of this user's folder of git directories:
// ralph-ci-SID (Windows has no uid: os.Getuid is -1 for everyone).
func ownName() (string, error) {
	me, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("this process's user: %w", err)
	}
	return "ralph-ci-" + me.User.Sid.String(), nil
}

// ownFolder checks that dir is a folder (not a link nor a junction)
// that this user owns and that no one else may enter. Windows has no uid
// nor mode bits: what is checked is the folder's security descriptor
// (notOnlyUs is the rule). Its owner is this process's user (or the owner
// the process's token gives what it makes: the Administrators when
// elevated), and its access list (DACL) lets in no one but that user,
// that owner, SYSTEM, the Administrators (who may take any folder
// anyway), CREATOR OWNER and OWNER RIGHTS. A folder with no access list
// (open to everyone) fails.
func ownFolder(dir string) error {
	notOwn := func(why string) error {
		return fmt.Errorf("%s is not a folder of this user's that only it may enter: %s", dir, why)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeDir {
		return notOwn("not a plain folder (a file, a link or a junction)")
	}
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("%s: read its security descriptor: %w", dir, err)
	}
	var ownerSID string
	if owner, _, err := sd.Owner(); err == nil && owner != nil {
		ownerSID = owner.String()
	}
	var entries []ace
	dacl, _, err := sd.DACL()
	hasDACL := err == nil && dacl != nil
	if hasDACL {
		for i := range uint32(dacl.AceCount) {
			var e *windows.ACCESS_ALLOWED_ACE
			if err := windows.GetAce(dacl, i, &e); err != nil {
				return fmt.Errorf("%s: read its access list: %w", dir, err)
			}
			// An allowed or denied entry ends with its SID; the SID of
			// another type is not read (notOnlyUs refuses the type).
			var sid string
			if e.Header.AceType == aceAllowed || e.Header.AceType == aceDenied {
				sid = (*windows.SID)(unsafe.Pointer(&e.SidStart)).String()
			}
			entries = append(entries, ace{kind: e.Header.AceType, sid: sid})
		}
	}
	us, err := ourSIDs()
	if err != nil {
		return err
	}
	if why := notOnlyUs(ownerSID, hasDACL, entries, us); why != "" {
		return notOwn(why)
	}
	return nil
}

// ourSIDs are who may own or enter ralph-ci's folder: this process's
// user, its token's owner of new objects, SYSTEM, the Administrators,
// CREATOR OWNER and OWNER RIGHTS.
func ourSIDs() ([]string, error) {
	token := windows.GetCurrentProcessToken()
	me, err := token.GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("this process's user: %w", err)
	}
	us := []string{me.User.Sid.String()}
	if owner, err := tokenOwner(token); err == nil {
		us = append(us, owner)
	}
	for _, k := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid,
		windows.WinCreatorOwnerSid, windows.WinCreatorOwnerRightsSid} {
		sid, err := windows.CreateWellKnownSid(k)
		if err != nil {
			return nil, fmt.Errorf("well-known SID %d: %w", k, err)
		}
		us = append(us, sid.String())
	}
	return us, nil
}

// tokenOwner is the owner token gives the objects its process makes
// (TOKEN_OWNER).
func tokenOwner(token windows.Token) (string, error) {
	n := uint32(64)
	for {
		buf := make([]byte, n)
		err := windows.GetTokenInformation(token, windows.TokenOwner, &buf[0], n, &n)
		if err == windows.ERROR_INSUFFICIENT_BUFFER {
			continue
		}
		if err != nil {
			return "", err
		}
		return (*struct{ Owner *windows.SID })(unsafe.Pointer(&buf[0])).Owner.String(), nil
	}
}
